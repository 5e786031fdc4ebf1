// Memory bound of blob ingestion: one large local file copied into a dataset.
//
//   blob_ingest_stress [--size 1g] [--file PATH] [--dir DIR] [--limit-mib 256] [--keep]
//
// Writes (or takes) a file of --size deterministic bytes, then writes a one-row
// dataset whose blob column holds {data: null, uri: that file} with
// BlobUriMode::kCopy, so the writer has to stream the file into a dedicated
// sidecar. Reads the stored blob back through BlobFile in 8 MiB chunks and compares
// it with the file. Peak RSS is the process's ru_maxrss after the write; everything
// before it (generating the file) works in 8 MiB chunks, so the figure is the write's.
// Removes what it created unless --keep. Prints one JSON line. Exit 0 when the
// bytes match and the peak stays under --limit-mib; 1 when either fails; 2 on an
// error; 64 for bad usage.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_check.h"
#include "lancet/blob/blob_file.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace fs = std::filesystem;
using namespace lancet;

namespace {

constexpr uint64_t kChunk = 8ULL << 20;

// What this run created, removed at exit (also after Die) unless --keep: only these,
// since a --dir may hold other files.
struct Scratch {
  std::string dataset, input, dir;
  bool keep = false;
  ~Scratch() {
    if (keep) return;
    std::error_code ec;
    if (!dataset.empty()) fs::remove_all(dataset, ec);
    if (!input.empty()) fs::remove(input, ec);
    if (!dir.empty()) fs::remove(dir, ec);
  }
};
Scratch g_scratch;

using lancet::bench::Check;
using lancet::bench::Die;

double PeakRssMib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "1g", "64m", "4096k", "100": bytes. 0 for a malformed value.
uint64_t ParseSize(const std::string& s) {
  size_t used = 0;
  uint64_t n = 0;
  try {
    n = std::stoull(s, &used);
  } catch (const std::exception&) {
    return 0;
  }
  std::string unit = s.substr(used);
  if (unit.empty()) return n;
  if (unit == "k" || unit == "K") return n << 10;
  if (unit == "m" || unit == "M") return n << 20;
  if (unit == "g" || unit == "G") return n << 30;
  return 0;
}

// The file's bytes: xorshift64* words, cheap enough to write a GiB in seconds and
// without runs a writer could compress away.
void WriteInput(const std::string& path, uint64_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) Die(path + ": cannot create");
  std::vector<uint64_t> words(kChunk / 8);
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (uint64_t done = 0; done < size;) {
    for (auto& w : words) {
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      w = x * 0x2545F4914F6CDD1DULL;
    }
    uint64_t n = std::min<uint64_t>(kChunk, size - done);
    out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(n));
    done += n;
  }
  if (!out.flush()) Die(path + ": write failed");
}

RecordBatch OneRow(const Field& blob_field, const std::string& uri) {
  auto id = Check(ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{0}), "id column");
  auto data = Check(MakeBinaryArray(MakeType(TypeId::kLargeBinary), {std::nullopt}), "data child");
  auto uris = Check(MakeBinaryArray(MakeType(TypeId::kUtf8), {uri}), "uri child");
  auto blob = Check(MakeStructArray(blob_field.type, 1, {data, uris}), "blob column");
  RecordBatch batch;
  batch.schema.fields = {MakeField("id", MakeType(TypeId::kInt64), false), blob_field};
  batch.num_rows = 1;
  batch.columns = {id, blob};
  return batch;
}

// Compares the stored blob with `path` chunk by chunk; returns the first differing
// offset or -1. Each side holds one chunk at a time.
int64_t CompareWithFile(blob::BlobFile& file, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die(path + ": cannot open");
  std::vector<char> want(kChunk);
  for (uint64_t pos = 0; pos < file.size();) {
    BufferPtr got = Check(file.read(kChunk), "BlobFile::read at " + std::to_string(pos));
    if (got->empty()) return static_cast<int64_t>(pos);  // stored blob shorter than its size
    in.read(want.data(), static_cast<std::streamsize>(got->size()));
    if (static_cast<uint64_t>(in.gcount()) != got->size()) return static_cast<int64_t>(pos);
    if (std::memcmp(want.data(), got->data(), got->size()) != 0) {
      for (uint64_t i = 0;; ++i) {
        if (want[i] != static_cast<char>(got->data()[i])) return static_cast<int64_t>(pos + i);
      }
    }
    pos += got->size();
  }
  return in.peek() == std::char_traits<char>::eof() ? -1 : static_cast<int64_t>(file.size());
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size = 1ULL << 30;
  std::string input, dir;
  double limit_mib = 256;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--keep") {
      keep = true;
      continue;
    }
    if (i + 1 >= argc) k = "--help";
    if (k == "--size")
      size = ParseSize(argv[++i]);
    else if (k == "--file")
      input = argv[++i];
    else if (k == "--dir")
      dir = argv[++i];
    else if (k == "--limit-mib")
      limit_mib = std::atof(argv[++i]);
    else {
      std::cerr << "usage: blob_ingest_stress [--size 1g] [--file PATH] [--dir DIR] [--limit-mib 256] [--keep]\n";
      return 64;
    }
  }
  if (size == 0 && input.empty()) Die("--size wants a positive number of bytes with an optional k/m/g suffix");
  if (limit_mib <= 0) Die("--limit-mib wants a positive number");

  if (!input.empty()) {
    std::error_code ec;
    input = fs::absolute(input, ec).string();
    size = fs::file_size(input, ec);
    if (ec) Die(input + ": " + ec.message());
  }
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/blob_ingest_stress.XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) Die(templ + ": cannot create a temp dir");
    dir = templ;
    g_scratch.dir = dir;
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) Die(dir + ": " + ec.message());
  }
  g_scratch.keep = keep;
  std::string dataset = dir + "/stress.lance";
  std::error_code rm_ec;
  fs::remove_all(dataset, rm_ec);  // a previous run's output in a --dir
  g_scratch.dataset = dataset;
  auto t0 = std::chrono::steady_clock::now();
  if (input.empty()) {
    input = dir + "/input.bin";
    g_scratch.input = input;
    WriteInput(input, size);
  }
  double gen_s = Seconds(t0);
  double rss_before_mib = PeakRssMib();

  Field blob_field = table::MakeBlobField("blob");
  table::WriteParams params;
  params.blobs.uri_mode = table::BlobUriMode::kCopy;
  t0 = std::chrono::steady_clock::now();
  Check(table::WriteDataset(dataset, Schema{{MakeField("id", MakeType(TypeId::kInt64), false), blob_field}, {}},
                            {OneRow(blob_field, input)}, params),
        "write " + dataset);
  double write_s = Seconds(t0);
  double rss_write_mib = PeakRssMib();

  t0 = std::chrono::steady_clock::now();
  auto ds = Check(table::Dataset::Open(dataset), dataset);
  auto file = Check(blob::BlobFile::Open(*ds, "blob", 0), "BlobFile::Open");
  bool size_ok = file->size() == size;
  int64_t diff = size_ok ? CompareWithFile(*file, input) : 0;
  double verify_s = Seconds(t0);
  static const char* kKinds[] = {"inline", "packed", "dedicated", "external"};
  auto kind = static_cast<unsigned>(file->location().kind);

  bool bytes_ok = size_ok && diff < 0;
  bool rss_ok = rss_write_mib < limit_mib;
  nlohmann::json j = {{"size", size},
                      {"kind", kind < 4 ? kKinds[kind] : "unknown"},
                      {"stored_size", file->size()},
                      {"bytes_equal", bytes_ok},
                      {"first_difference", diff},
                      {"peak_rss_before_write_mib", rss_before_mib},
                      {"peak_rss_write_mib", rss_write_mib},
                      {"limit_mib", limit_mib},
                      {"generate_s", gen_s},
                      {"write_s", write_s},
                      {"write_mb_per_s", write_s > 0 ? size / 1e6 / write_s : 0},
                      {"verify_s", verify_s}};
  if (keep) j["kept_in"] = dir;
  std::cout << j.dump() << std::endl;
  if (!bytes_ok) std::cerr << "blob_ingest_stress: stored bytes differ from " << input << "\n";
  if (!rss_ok) std::cerr << "blob_ingest_stress: peak RSS " << rss_write_mib << " MiB >= " << limit_mib << " MiB\n";
  return bytes_ok && rss_ok ? 0 : 1;
}
