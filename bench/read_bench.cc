// Full scan, filtered scan and random take on a reference-written dataset, Lancet vs
// the reference.
//
//   read_bench DATASET [--ref ref.jsonl] [--count 1000] [--seed 42] [--reps 5] [--where EXPR]
//              [--only scan|take|take-columns|take-column=NAME|scan-columns|scan-column=NAME|filter]
//              [--batch-size N]   (scans; default ScanOptions::batch_size)
//
// The reference's numbers come from tests/peer/bench.mjs (scan, filter-scan, take) run
// on the same dataset just before (scripts/bench.sh); scans go through NewScan and
// drain the stream; the filtered scan (default "value > 990", 1 % of the mixed
// dataset, every column) also prints its bytes read against the unfiltered scan's.
// Rows are chosen with the same recipe
// (Rand(seed, "bench/take").u32() % rows, repeats skipped), so both take the same rows.
#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lancet/table/dataset.h"
#include "peer_rand.h"

using lancet::table::Dataset;

namespace {

using lancet::bench::Rand;

template <typename F>
std::vector<double> Time(int warmup, int reps, F&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void Die(const lancet::Status& st) {
  std::cerr << "read_bench: " << st.ToString() << "\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: read_bench DATASET [--ref ref.jsonl] [--count 1000] [--seed 42] [--reps 5] [--where EXPR] "
      "[--only scan|take|take-columns|take-column=NAME|scan-columns|scan-column=NAME|filter] "
      "[--batch-size N]\n";
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << usage;
    return 0;
  }
  if (argc < 2 || argc % 2 != 0) {
    std::cerr << usage;
    return 64;
  }
  std::string path = argv[1], ref_path;
  size_t count = 1000;
  uint64_t seed = 42;
  int reps = 5;
  std::string only;  // "scan", "take", "take-columns" or "take-column=NAME": just that (for profiling)
  std::string where = "value > 990";
  uint64_t batch_size = lancet::table::ScanOptions{}.batch_size;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--ref")
      ref_path = argv[i + 1];
    else if (k == "--count")
      count = std::stoul(argv[i + 1]);
    else if (k == "--seed")
      seed = std::stoull(argv[i + 1]);
    else if (k == "--reps")
      reps = std::stoi(argv[i + 1]);
    else if (k == "--only")
      only = argv[i + 1];
    else if (k == "--where")
      where = argv[i + 1];
    else if (k == "--batch-size")
      batch_size = std::stoull(argv[i + 1]);
    else {
      std::cerr << "read_bench: unknown option " << k << "\n" << usage;
      return 64;
    }
  }

  auto opened = Dataset::Open(path);
  if (!opened.ok()) Die(opened.status());
  std::unique_ptr<Dataset> ds = std::move(*opened);
  uint64_t rows = ds->CountRows();
  if (count > rows) count = rows;

  // Scan positions → row addresses (fragments in manifest order, no deletions expected).
  std::vector<uint64_t> frag_start, frag_id;
  uint64_t acc = 0;
  for (const auto& f : ds->fragments()) {
    frag_start.push_back(acc);
    frag_id.push_back(f.id);
    acc += f.physical_rows;
  }
  Rand rnd(seed, "bench/take");
  std::set<uint64_t> seen;
  std::vector<uint64_t> addrs;
  while (addrs.size() < count) {
    uint64_t p = rnd.U32() % rows;
    if (!seen.insert(p).second) continue;
    size_t f = std::upper_bound(frag_start.begin(), frag_start.end(), p) - frag_start.begin() - 1;
    addrs.push_back((frag_id[f] << 32) | (p - frag_start[f]));
  }

  nlohmann::json out;
  const bool do_scan = only.empty() || only == "scan", do_take = only.empty() || only == "take";
  // Drains a NewScan stream, batch by batch (nothing is kept): rows seen.
  auto drain = [&](lancet::table::ScanOptions o) {
    o.batch_size = batch_size;
    auto reader = ds->NewScan(o);
    if (!reader.ok()) Die(reader.status());
    uint64_t n = 0;
    while (true) {
      auto b = (*reader)->Next();
      if (!b.ok()) Die(b.status());
      if (!*b) return n;
      n += static_cast<uint64_t>((*b)->num_rows);
    }
  };
  uint64_t full_bytes = 0, filtered_bytes = 0, filtered_rows = 0;
  auto bytes_of = [&](const lancet::table::ScanOptions& o, uint64_t* rows_out) {
    auto b0 = ds->store()->stats().Snapshot().read_bytes;
    uint64_t n = drain(o);
    if (rows_out) *rows_out = n;
    return ds->store()->stats().Snapshot().read_bytes - b0;
  };
  auto scan_all = Time(do_scan ? 1 : 0, do_scan ? reps : 0, [&] {
    if (drain({}) != rows) Die(lancet::Status::Internal("scan returned the wrong row count"));
  });
  lancet::table::ScanOptions two;
  two.columns = {"id", "value"};
  auto scan_two = Time(do_scan ? 1 : 0, do_scan ? reps : 0, [&] { drain(two); });
  lancet::table::ScanOptions filtered;
  filtered.filter = where;
  const bool do_filter = do_scan || only == "filter";
  auto scan_filtered = Time(do_filter ? 1 : 0, do_filter ? reps : 0, [&] { drain(filtered); });
  if (do_scan) {
    full_bytes = bytes_of({}, nullptr);
    filtered_bytes = bytes_of(filtered, &filtered_rows);
  }
  auto before = ds->store()->stats().Snapshot();
  auto take = Time(do_take ? 1 : 0, do_take ? reps : 0, [&] {
    auto r = ds->TakeRowAddresses(addrs);
    if (!r.ok()) Die(r.status());
    if (static_cast<size_t>(r->num_rows) != count) Die(lancet::Status::Internal("take returned wrong row count"));
  });
  auto after = ds->store()->stats().Snapshot();
  auto cpu_ms = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
  };
  // Where a take's time goes: the same rows, one column at a time, with CPU time per
  // take as for scan-columns (for profiling).
  if (only == "take-columns" || only.starts_with("take-column=")) {
    double total_cpu = 0;
    for (const auto& f : ds->read_schema().fields) {
      if (only.starts_with("take-column=") && only.substr(12) != f.name) continue;
      auto one = [&] {
        auto r = ds->TakeRowAddresses(addrs, {f.name});
        if (!r.ok()) Die(r.status());
      };
      one();
      double c0 = cpu_ms();
      auto t = Time(0, reps, one);
      double cpu = (cpu_ms() - c0) / reps;
      total_cpu += cpu;
      std::printf("take %zu rows of %-12s %8.2f ms wall %8.2f ms cpu\n", count, f.name.c_str(), Median(t), cpu);
    }
    std::printf("cpu total %.2f ms\n", total_cpu);
    return 0;
  }
  // Where a scan's time goes: each column alone, with the process's CPU time per scan,
  // which a loaded machine inflates far less than wall time (for profiling).
  if (only == "scan-columns" || only.starts_with("scan-column=")) {
    double total_cpu = 0;
    for (const auto& f : ds->read_schema().fields) {
      if (only.starts_with("scan-column=") && only.substr(12) != f.name) continue;
      lancet::table::ScanOptions o;
      o.columns = {f.name};
      drain(o);
      double c0 = cpu_ms();
      auto t = Time(0, reps, [&] { drain(o); });
      double cpu = (cpu_ms() - c0) / reps;
      total_cpu += cpu;
      std::printf("scan of %-12s %8.2f ms wall %8.2f ms cpu\n", f.name.c_str(), Median(t), cpu);
    }
    std::printf("cpu total %.2f ms\n", total_cpu);
    return 0;
  }
  size_t ncols = ds->read_schema().fields.size();
  double requests_per_value = double(after.read_requests - before.read_requests) / (reps + 1) / double(count * ncols);

  out["lancet"] = {{"scan_ms", Median(scan_all)},
                   {"scan_id_value_ms", Median(scan_two)},
                   {"filter_scan_ms", Median(scan_filtered)},
                   {"filter_scan_rows", filtered_rows},
                   {"filter_scan_bytes", filtered_bytes},
                   {"scan_bytes", full_bytes},
                   {"take_ms", Median(take)},
                   {"take_requests_per_value", requests_per_value},
                   {"rows", rows},
                   {"take_count", count}};

  // Reference numbers: the scan/take lines bench.mjs printed for this dataset.
  double ref_scan = 0, ref_scan_two = 0, ref_take = 0, ref_filter = 0;
  if (!ref_path.empty()) {
    std::ifstream in(ref_path);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("op")) continue;
      // bench.mjs lists the columns it scanned: all of them, or the two we asked for.
      bool two = j.contains("columns") && j["columns"].size() == 2;
      if (j["op"] == "scan" && !two) ref_scan = j["median_ms"];
      if (j["op"] == "scan" && two) ref_scan_two = j["median_ms"];
      if (j["op"] == "take") ref_take = j["median_ms"];
      if (j["op"] == "filter-scan") ref_filter = j["median_ms"];
    }
  }
  auto ratio = [](double ref, double ours) { return ours > 0 && ref > 0 ? ref / ours : 0.0; };
  out["reference"] = {
      {"scan_ms", ref_scan}, {"scan_id_value_ms", ref_scan_two}, {"filter_scan_ms", ref_filter}, {"take_ms", ref_take}};
  out["speedup"] = {{"scan", ratio(ref_scan, Median(scan_all))},
                    {"scan_id_value", ratio(ref_scan_two, Median(scan_two))},
                    {"filter_scan", ratio(ref_filter, Median(scan_filtered))},
                    {"take", ratio(ref_take, Median(take))}};
  std::printf("%-22s %12s %12s %9s\n", "operation", "reference", "lancet", "speedup");
  std::printf("%-22s %10.1fms %10.1fms %8.2fx\n", "full scan", ref_scan, Median(scan_all),
              ratio(ref_scan, Median(scan_all)));
  std::printf("%-22s %10.1fms %10.1fms %8.2fx\n", "scan id,value", ref_scan_two, Median(scan_two),
              ratio(ref_scan_two, Median(scan_two)));
  std::printf("%-22s %10.1fms %10.1fms %8.2fx\n", "filtered scan", ref_filter, Median(scan_filtered),
              ratio(ref_filter, Median(scan_filtered)));
  std::printf("filtered scan (%s): %llu rows, %.1f %% of the unfiltered scan's %llu bytes\n", where.c_str(),
              static_cast<unsigned long long>(filtered_rows),
              full_bytes ? 100.0 * double(filtered_bytes) / double(full_bytes) : 0.0,
              static_cast<unsigned long long>(full_bytes));
  std::printf("%-22s %10.1fms %10.1fms %8.2fx\n", ("take " + std::to_string(count) + " rows").c_str(), ref_take,
              Median(take), ratio(ref_take, Median(take)));
  std::printf("read requests per taken value: %.3f\n", requests_per_value);
  std::cout << out.dump() << "\n";
  return 0;
}
