// Memory bound of index builds: a BTree (or another type) over a column of --rows
// random int64 values, built with a small memory budget, must keep the process's peak
// anonymous RSS under --limit-mib whatever the row count.
//
//   index_build_stress [--rows 10m] [--type btree] [--budget-mib 64] [--limit-mib 512]
//                      [--dir DIR] [--keep]
//
// The dataset is written by a forked child (so the writer's own buffers do not count),
// then indexed here; a lookup of a known value checks the result. Prints one JSON line.
// Exit 0 when the lookup is right and the peak stays under the limit; 1 otherwise; 2 on
// an error; 64 for bad usage.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench_check.h"
#include "lancet/index/scalar_index.h"
#include "lancet/scan/scanner.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace fs = std::filesystem;
using namespace lancet;
using lancet::bench::Check;
using lancet::bench::Die;

namespace {

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
int64_t ValueOf(uint64_t row) { return static_cast<int64_t>(Mix(row) >> 1); }

constexpr uint64_t kRowsPerFile = 4 * 1024 * 1024;
// Row `row`'s address: one fragment per file, ids from 0.
uint64_t AddressOf(uint64_t row) { return (row / kRowsPerFile) << 32 | (row % kRowsPerFile); }

Schema StressSchema() {
  Schema s;
  s.fields.push_back(MakeField("v", MakeType(TypeId::kInt64), false));
  s.fields.push_back(MakeField("c", MakeType(TypeId::kInt32), false));
  return s;
}

// Rows generated batch by batch: the writer never sees them all at once.
class Rows final : public RecordBatchReader {
 public:
  explicit Rows(uint64_t n) : n_(n) {}
  const Schema& schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= n_) return std::optional<RecordBatch>();
    const uint64_t len = std::min<uint64_t>(65536, n_ - next_);
    std::vector<int64_t> v(len);
    std::vector<int32_t> c(len);
    for (uint64_t i = 0; i < len; ++i) {
      v[i] = ValueOf(next_ + i);
      c[i] = static_cast<int32_t>(Mix(next_ + i + 1) % 1000);
    }
    next_ += len;
    RecordBatch b;
    b.schema = schema_;
    b.num_rows = static_cast<int64_t>(len);
    ASSIGN_OR_RETURN(Array va, ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), v));
    ASSIGN_OR_RETURN(Array ca, ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), c));
    b.columns = {std::move(va), std::move(ca)};
    return std::optional<RecordBatch>(std::move(b));
  }

 private:
  uint64_t n_, next_ = 0;
  Schema schema_ = StressSchema();
};

uint64_t ParseCount(const std::string& s) {
  const char last = s.empty() ? 0 : s.back();
  const uint64_t mult = last == 'k' ? 1000 : last == 'm' ? 1000000 : 1;
  return std::stoull(mult == 1 ? s : s.substr(0, s.size() - 1)) * mult;
}

// Anonymous resident memory (heap, stacks), sampled: file pages the local store maps
// count in ru_maxrss, but they are page cache the kernel takes back, not our memory.
double RssAnonMib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stod(line.substr(8)) / 1024.0;
  }
  return 0;
}

class PeakSampler {
 public:
  PeakSampler()
      : thread_([this] {
          while (!stop_) {
            peak_ = std::max(peak_.load(), RssAnonMib());
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
        }) {}
  ~PeakSampler() { Stop(); }
  double Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return std::max(peak_.load(), RssAnonMib());
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<double> peak_{0};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t rows = 10000000, budget_mib = 64, limit_mib = 512;
  std::string type_name = "btree", dir;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--keep") {
      keep = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "usage: index_build_stress [--rows 10m] [--type btree] [--budget-mib 64] [--limit-mib 512] "
                   "[--dir DIR] [--keep]\n";
      return 64;
    }
    const std::string v = argv[++i];
    if (k == "--rows")
      rows = ParseCount(v);
    else if (k == "--type")
      type_name = v;
    else if (k == "--budget-mib")
      budget_mib = std::stoull(v);
    else if (k == "--limit-mib")
      limit_mib = std::stoull(v);
    else if (k == "--dir")
      dir = v;
  }
  const auto type = Check(index::ParseScalarIndexType(type_name), "--type");
  if (dir.empty()) dir = (fs::temp_directory_path() / ("lancet_index_stress_" + std::to_string(getpid()))).string();
  const std::string ds_path = dir + "/t.lance";
  fs::create_directories(dir);

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    Rows gen(rows);
    table::WriteParams p;
    p.max_rows_per_file = kRowsPerFile;
    auto w = table::WriteDataset(ds_path, gen, p);
    if (!w.ok()) std::cerr << "write: " << w.status().ToString() << "\n";
    _exit(w.ok() ? 0 : 2);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die("writing the dataset failed");
  const double write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const double rss_before = RssAnonMib();
  auto sampler = std::make_unique<PeakSampler>();
  auto ds = Check(table::Dataset::Open(ds_path), ds_path);
  index::CreateIndexOptions o;
  o.memory_budget = budget_mib << 20;
  const std::string column = type == index::ScalarIndexType::kBitmap ? "c" : "v";
  const auto t1 = std::chrono::steady_clock::now();
  Check(index::CreateScalarIndex(*ds, column, type, o), "build");
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double rss_build = sampler->Stop();

  // A value of row rows/2 must come back through the index.
  ds = Check(table::Dataset::Open(ds_path), ds_path);
  const uint64_t probe_row = rows / 2;
  table::ScanOptions q;
  q.columns = {"_rowid"};
  q.filter =
      column == "v" ? "v = " + std::to_string(ValueOf(probe_row)) : "c = " + std::to_string(Mix(probe_row + 1) % 1000);
  scan::ScanExplain explain;
  auto reader = Check(scan::NewScan(*ds, q, &explain), "lookup");
  bool found = false;
  uint64_t hits = 0;
  for (;;) {
    auto b = Check(reader->Next(), "lookup");
    if (!b) break;
    for (int64_t i = 0; i < b->num_rows; ++i)
      found = found || b->columns[0].values<uint64_t>()[i] == AddressOf(probe_row);
    hits += static_cast<uint64_t>(b->num_rows);
  }
  const bool ok = found && !explain.uses.empty() && rss_build < double(limit_mib);
  nlohmann::json out = {{"rows", rows},
                        {"type", type_name},
                        {"budget_mib", budget_mib},
                        {"write_s", write_s},
                        {"build_s", build_s},
                        {"rss_anon_before_build_mib", rss_before},
                        {"peak_rss_anon_build_mib", rss_build},
                        {"limit_mib", limit_mib},
                        {"lookup_hits", hits},
                        {"lookup_found", found},
                        {"index_used", !explain.uses.empty()}};
  std::cout << out.dump() << "\n";
  if (!keep) fs::remove_all(dir);
  if (!ok)
    std::cerr << "index_build_stress: " << (found ? "" : "the probe row was not found; ") << "peak RssAnon "
              << rss_build << " MiB (limit " << limit_mib << ")\n";
  return ok ? 0 : 1;
}
