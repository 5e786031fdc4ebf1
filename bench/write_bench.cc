// Dataset write throughput, file size and peak memory, Lancet vs the reference.
//
//   write_bench INPUT OUT_DIR [--ref ref_write.jsonl] [--reps 3]
//   write_bench --files DATASET... [--out DIR]
//
// INPUT is a dataset with the rows to write; scripts/bench.sh passes the mixed
// 1M-row dataset bench.mjs made, whose rows are the ones `bench.mjs write`
// generates (same recipe and seed, lib/benchdata.mjs), so both sides write the
// same data. The rows are scanned into 65,536-row batches before timing, as
// bench.mjs builds its Arrow table first; a timed run is one WriteDataset
// (create) into an emptied OUT_DIR/lancet.lance.
//
// --files rewrites every data file of each DATASET with FileWriter (rows read
// back with FileReader) and prints the reference's and Lancet's bytes per
// column and file.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace fs = std::filesystem;
using lancet::Array;
using lancet::Field;
using lancet::RecordBatch;

namespace {

void Die(const lancet::Status& st) {
  std::cerr << "write_bench: " << st.ToString() << "\n";
  std::exit(2);
}

template <typename T>
T Check(lancet::Result<T> r) {
  if (!r.ok()) Die(r.status());
  return std::move(*r);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Bytes of Arrow buffers an array holds (what bench.mjs reports as input
// bytes).
uint64_t ArrowBytes(const Array& a) {
  uint64_t total = 0;
  for (const auto& b : a.buffers) total += b ? b->size() : 0;
  for (const auto& c : a.children) total += ArrowBytes(c);
  if (a.dictionary) total += ArrowBytes(*a.dictionary);
  return total;
}

uint64_t DirBytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

uint64_t DataBytes(const fs::path& dataset) { return DirBytes(dataset / "data"); }

// The reference's `write` line from bench.mjs output (empty if none).
nlohmann::json RefWrite(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  std::string line;
  nlohmann::json found;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("op", "") == "write") found = j;
  }
  return found;
}

int RunWrite(const std::string& input, const fs::path& out_dir, const std::string& ref_path, int reps) {
  auto ds = Check(lancet::table::Dataset::Open(input));
  lancet::table::ScanOptions scan;
  scan.batch_size = 65536;
  std::vector<RecordBatch> batches = Check(ds->Scan(scan));
  if (batches.empty()) Die(lancet::Status::InvalidArgument(input + ": no rows"));
  const lancet::Schema schema = batches[0].schema;
  uint64_t rows = 0, input_bytes = 0;
  for (const auto& b : batches) {
    rows += static_cast<uint64_t>(b.num_rows);
    for (const auto& c : b.columns) input_bytes += ArrowBytes(c);
  }
  const double rss_before = PeakRssMb();
  fs::create_directories(out_dir);
  const fs::path target = out_dir / "lancet.lance";
  std::vector<double> ms;
  for (int i = 0; i < reps + 1; ++i) {  // the first run warms up
    fs::remove_all(target);
    auto t0 = std::chrono::steady_clock::now();
    Check(lancet::table::WriteDataset(target.string(), schema, batches));
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i > 0) ms.push_back(t);
  }
  const double ours_ms = Median(ms);
  const uint64_t ours_disk = DataBytes(target);
  const double ours_mbps = static_cast<double>(input_bytes) / 1e6 / (ours_ms / 1e3);

  const nlohmann::json ref = RefWrite(ref_path);
  const double ref_ms = ref.value("median_ms", 0.0);
  const double ref_mbps = ref.value("mb_per_s", 0.0);
  const uint64_t ref_disk = ref.value("disk_bytes", uint64_t{0});
  const double speedup = ref_ms > 0 ? ref_ms / ours_ms : 0;
  const double size_ratio = ref_disk > 0 ? static_cast<double>(ours_disk) / static_cast<double>(ref_disk) : 0;

  std::printf("%-16s %14s %14s %9s\n", "write", "reference", "lancet", "ratio");
  std::printf("%-16s %12.1fms %12.1fms %8.2fx\n", "time (median)", ref_ms, ours_ms, speedup);
  std::printf("%-16s %10.1fMB/s %10.1fMB/s %8.2fx\n", "throughput", ref_mbps, ours_mbps,
              ref_mbps > 0 ? ours_mbps / ref_mbps : 0);
  std::printf("%-16s %12.1fMB %12.1fMB %8.3fx\n", "data files", ref_disk / 1e6, ours_disk / 1e6, size_ratio);
  std::printf(
      "peak RSS: lancet %.0f MB (%.0f MB before the writes, input %.0f "
      "MB); reference %s MB\n",
      PeakRssMb(), rss_before, input_bytes / 1e6, ref.contains("max_rss_mb") ? ref["max_rss_mb"].dump().c_str() : "?");
  nlohmann::json out;
  out["lancet"] = {
      {"write_ms", ours_ms},        {"mb_per_s", ours_mbps},      {"disk_bytes", ours_disk},    {"rows", rows},
      {"input_bytes", input_bytes}, {"peak_rss_mb", PeakRssMb()}, {"rss_before_mb", rss_before}};
  out["reference"] = {{"write_ms", ref_ms}, {"mb_per_s", ref_mbps}, {"disk_bytes", ref_disk}};
  out["ratio"] = {{"throughput", speedup}, {"size", size_ratio}};
  std::cout << out.dump() << "\n";
  return 0;
}

// Leaf columns of each top-level field, in file column order.
int CountLeaves(const Field& f) {
  if (lancet::format::IsLeafField(f)) return 1;
  int n = 0;
  for (const auto& c : f.type.children) n += CountLeaves(c);
  return n;
}

// Column bytes as FileReader::DescribeColumn reports them ("column N: P
// page(s), B bytes").
uint64_t DescribedBytes(const std::string& text) {
  const auto at = text.find(" page(s), ");
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + 10));
}

int RunFiles(const std::vector<std::string>& datasets, const fs::path& out_dir) {
  fs::create_directories(out_dir);
  auto local = lancet::io::LocalFileSystem();
  uint64_t total_ref = 0, total_ours = 0;
  uint64_t columns_ref = 0, columns_ours = 0;
  std::printf("%-48s %14s %14s %8s\n", "file", "reference B", "lancet B", "ratio");
  for (const auto& dataset : datasets) {
    if (!fs::is_directory(fs::path(dataset) / "data")) continue;
    for (const auto& e : fs::directory_iterator(fs::path(dataset) / "data")) {
      if (e.path().extension() != ".lance") continue;
      auto file = Check(local->OpenRead(e.path().string()));
      auto reader = Check(lancet::format::FileReader::Open(std::move(file)));
      if (reader->version().major != 2 || reader->version().minor < 1) continue;
      const lancet::Schema& schema = reader->file_schema();
      RecordBatch batch;
      batch.schema = schema;
      batch.num_rows = static_cast<int64_t>(reader->num_rows());
      int next = 0;
      for (const auto& f : schema.fields) {
        std::vector<int> cols(static_cast<size_t>(CountLeaves(f)));
        for (auto& c : cols) c = next++;
        batch.columns.push_back(Check(reader->ReadRange(f, cols, 0, reader->num_rows())));
      }
      const fs::path target = out_dir / ("rewrite_" + e.path().filename().string());
      auto sink = Check(lancet::format::OpenLocalFileSink(target.string()));
      auto writer = Check(lancet::format::FileWriter::Open(std::move(sink), schema));
      if (batch.num_rows > 0) {
        auto st = writer->Write(batch);
        if (!st.ok()) Die(st);
      }
      const auto stats = Check(writer->Finish());
      const uint64_t ref_size = fs::file_size(e.path());
      total_ref += ref_size;
      total_ours += stats.file_size;
      const std::string name = fs::path(dataset).filename().string() + "/" + e.path().filename().string().substr(0, 12);
      std::printf("%-48s %14llu %14llu %8.3f\n", name.c_str(), static_cast<unsigned long long>(ref_size),
                  static_cast<unsigned long long>(stats.file_size),
                  static_cast<double>(stats.file_size) / static_cast<double>(std::max<uint64_t>(1, ref_size)));
      for (size_t c = 0; c < stats.columns.size(); ++c) {
        const uint64_t ref_bytes = DescribedBytes(Check(reader->DescribeColumn(static_cast<int>(c))));
        columns_ref += ref_bytes;
        columns_ours += stats.columns[c].bytes;
        std::printf("    %-44s %14llu %14llu %8.3f  %s\n", stats.columns[c].path.c_str(),
                    static_cast<unsigned long long>(ref_bytes), static_cast<unsigned long long>(stats.columns[c].bytes),
                    static_cast<double>(stats.columns[c].bytes) / static_cast<double>(std::max<uint64_t>(1, ref_bytes)),
                    stats.columns[c].encodings.empty() ? "" : stats.columns[c].encodings.front().c_str());
      }
      fs::remove(target);
    }
  }
  // Files with inline blobs also hold raw payload buffers, which are not rewritten.
  std::printf("%-48s %14llu %14llu %8.3f\n", "TOTAL column bytes", static_cast<unsigned long long>(columns_ref),
              static_cast<unsigned long long>(columns_ours),
              static_cast<double>(columns_ours) / static_cast<double>(std::max<uint64_t>(1, columns_ref)));
  std::printf("%-48s %14llu %14llu %8.3f\n", "TOTAL file bytes", static_cast<unsigned long long>(total_ref),
              static_cast<unsigned long long>(total_ours),
              static_cast<double>(total_ours) / static_cast<double>(std::max<uint64_t>(1, total_ref)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: write_bench INPUT OUT_DIR [--ref ref_write.jsonl] [--reps 3]\n"
      "       write_bench --files DATASET... [--out DIR]\n";
  if (argc < 3) {
    std::cerr << usage;
    return 64;
  }
  if (std::string(argv[1]) == "--files") {
    std::vector<std::string> datasets;
    fs::path out = fs::temp_directory_path() / ("write_bench_" + std::to_string(getpid()));
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) == "--out" && i + 1 < argc) {
        out = argv[++i];
      } else {
        datasets.emplace_back(argv[i]);
      }
    }
    const int rc = RunFiles(datasets, out);
    fs::remove_all(out);
    return rc;
  }
  std::string ref_path;
  int reps = 3;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--ref") {
      ref_path = argv[i + 1];
    } else if (k == "--reps") {
      reps = std::max(1, std::stoi(argv[i + 1]));
    } else {
      std::cerr << usage;
      return 64;
    }
  }
  return RunWrite(argv[1], argv[2], ref_path, reps);
}
