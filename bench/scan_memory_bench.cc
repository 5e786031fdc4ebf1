// A streaming scan of a dataset far larger than memory: peak anonymous memory stays
// bounded by the scan's window, not by the dataset.
//
//   scan_memory_bench [--size 5g] [--dir DIR] [--keep] [--limit-mib 512] [--batch-size 4096]
//
// A child process writes the dataset (id int64, value float64, an 8 KiB incompressible
// payload) in appends of 256 MiB, so the writer's memory never counts; the parent then
// drains NewScan over every column, sampling RssAnon (/proc/self/status) after each
// batch, and prints the peak. Exit 1 when the peak reaches --limit-mib. Memory is the
// scan's window (io_parallelism + batch_readahead batches) times the batch's bytes, so
// rows this wide want fewer rows per batch than the default 65536 (512 MiB each).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace {

using lancet::MakeField;
using lancet::MakeType;
using lancet::TypeId;

constexpr size_t kPayload = 8192;
constexpr int64_t kRowsPerAppend = 32768;  // 256 MiB of payload

uint64_t StatusKib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(in, line)) {
    if (line.compare(0, n, key) == 0) return std::stoull(line.substr(n + 1));
  }
  return 0;
}

lancet::Schema BenchSchema() {
  lancet::Schema s;
  s.fields = {MakeField("id", MakeType(TypeId::kInt64), false), MakeField("value", MakeType(TypeId::kFloat64), false),
              MakeField("payload", MakeType(TypeId::kBinary), false)};
  return s;
}

lancet::RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids(static_cast<size_t>(n));
  std::vector<double> values(static_cast<size_t>(n));
  std::vector<std::optional<std::string>> payloads(static_cast<size_t>(n));
  uint64_t x = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(begin);
  for (int64_t i = 0; i < n; ++i) {
    ids[static_cast<size_t>(i)] = begin + i;
    std::string p(kPayload, '\0');
    for (size_t k = 0; k < kPayload; k += 8) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift: incompressible bytes
      std::memcpy(p.data() + k, &x, 8);
    }
    values[static_cast<size_t>(i)] = static_cast<double>(x % 1000000) / 1000.0;
    payloads[static_cast<size_t>(i)] = std::move(p);
  }
  lancet::RecordBatch b;
  b.schema = BenchSchema();
  b.num_rows = n;
  b.columns = {*lancet::ArrayFromVector(MakeType(TypeId::kInt64), ids),
               *lancet::ArrayFromVector(MakeType(TypeId::kFloat64), values),
               *lancet::MakeBinaryArray(MakeType(TypeId::kBinary), payloads)};
  return b;
}

int Write(const std::string& dir, uint64_t bytes) {
  const int64_t rows = static_cast<int64_t>(bytes / kPayload);
  for (int64_t begin = 0; begin < rows; begin += kRowsPerAppend) {
    std::vector<lancet::RecordBatch> batches;
    batches.push_back(Rows(begin, std::min(kRowsPerAppend, rows - begin)));
    lancet::table::WriteParams params;
    params.mode = lancet::table::WriteMode::kAppend;
    auto v = lancet::table::WriteDataset(dir, BenchSchema(), std::move(batches), params);
    if (!v.ok()) {
      std::cerr << "scan_memory_bench: write: " << v.status().ToString() << "\n";
      return 2;
    }
  }
  return 0;
}

uint64_t ParseSize(std::string s) {
  uint64_t mult = 1;
  const char unit = s.empty() ? '\0' : static_cast<char>(std::tolower(s.back()));
  if (unit == 'k' || unit == 'm' || unit == 'g') {
    mult = unit == 'k' ? 1ull << 10 : unit == 'm' ? 1ull << 20 : 1ull << 30;
    s.pop_back();
  }
  return std::stoull(s) * mult;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size = 5ull << 30;
  uint64_t limit_mib = 512;
  std::string dir;
  bool keep = false;
  uint64_t batch_size = 4096;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--keep") {
      keep = true;
    } else if (i + 1 < argc && k == "--size") {
      size = ParseSize(argv[++i]);
    } else if (i + 1 < argc && k == "--dir") {
      dir = argv[++i];
    } else if (i + 1 < argc && k == "--batch-size") {
      batch_size = std::stoull(argv[++i]);
    } else if (i + 1 < argc && k == "--limit-mib") {
      limit_mib = std::stoull(argv[++i]);
    } else {
      std::cerr << "usage: scan_memory_bench [--size 5g] [--dir DIR] [--keep] [--limit-mib 512] [--batch-size 4096]\n";
      return 64;
    }
  }
  const bool temp = dir.empty();
  if (temp) dir = (std::filesystem::temp_directory_path() / ("scan_memory_bench." + std::to_string(getpid()))).string();
  if (!std::filesystem::exists(dir + "/_versions")) {
    auto t0 = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) _exit(Write(dir, size));
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 2;
    std::fprintf(stderr, "scan_memory_bench: wrote %s in %.1f s\n", dir.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  auto ds = lancet::table::Dataset::Open(dir);
  if (!ds.ok()) {
    std::cerr << "scan_memory_bench: " << ds.status().ToString() << "\n";
    return 2;
  }
  uint64_t on_disk = 0;
  for (const auto& f : (*ds)->fragments()) {
    for (const auto& file : f.files) on_disk += file.size_bytes;
  }
  const uint64_t before = StatusKib("RssAnon:");
  uint64_t peak = before, rows = 0, batches = 0;
  auto t0 = std::chrono::steady_clock::now();
  lancet::table::ScanOptions options;
  options.batch_size = batch_size;
  auto reader = (*ds)->NewScan(options);
  if (!reader.ok()) {
    std::cerr << "scan_memory_bench: " << reader.status().ToString() << "\n";
    return 2;
  }
  while (true) {
    auto b = (*reader)->Next();
    if (!b.ok()) {
      std::cerr << "scan_memory_bench: " << b.status().ToString() << "\n";
      return 2;
    }
    if (!*b) break;
    rows += static_cast<uint64_t>((*b)->num_rows);
    ++batches;
    peak = std::max(peak, StatusKib("RssAnon:"));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t read = (*ds)->store()->stats().Snapshot().read_bytes;
  std::printf(
      "{\"dataset_bytes\":%llu,\"rows\":%llu,\"batches\":%llu,\"read_bytes\":%llu,\"seconds\":%.2f,"
      "\"mb_per_s\":%.0f,\"batch_size\":%llu,\"rss_anon_before_mib\":%.1f,\"peak_rss_anon_mib\":%.1f,"
      "\"limit_mib\":%llu}\n",
      static_cast<unsigned long long>(on_disk), static_cast<unsigned long long>(rows),
      static_cast<unsigned long long>(batches), static_cast<unsigned long long>(read), secs, double(read) / 1e6 / secs,
      static_cast<unsigned long long>(batch_size), double(before) / 1024, double(peak) / 1024,
      static_cast<unsigned long long>(limit_mib));
  if (temp && !keep) std::filesystem::remove_all(dir);
  return peak / 1024 < limit_mib ? 0 : 1;
}
