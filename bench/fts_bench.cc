// Full-text search on a text dataset (bench.mjs make-text-dataset), against the
// reference's `fts` line of the same run:
//   fts_bench DATASET [--queries FILE] [--ref ref.jsonl] [--column body] [--k 10]
//             [--reps 3] [--build] [--ref-build ref.jsonl] [--label NAME]
// --reps 0 only builds.
// --build first builds Lancet's FTS index on DATASET in place (timed; --ref-build names
// the reference's create-index line to compare with). Then times every query of the
// query file (default DATASET.queries.json) `reps` passes after one warm-up pass, through
// scan::TextSearch with the key column projected as the reference's bench does. Prints a
// table, the ratios and one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bench_check.h"
#include "bench_stats.h"
#include "lancet/index/text_index.h"
#include "lancet/scan/text_search.h"

using lancet::bench::Check;
using lancet::bench::Die;
using lancet::bench::LastJsonLine;
using lancet::bench::Quantile;
using Json = nlohmann::json;
namespace table = lancet::table;
namespace scan = lancet::scan;

namespace {

struct Options {
  std::string dataset, queries, ref, ref_build, column = "body", label;
  uint32_t k = 10;
  int reps = 3;
  bool build = false;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + a);
      return argv[++i];
    };
    if (a == "--queries")
      o.queries = value();
    else if (a == "--ref")
      o.ref = value();
    else if (a == "--ref-build")
      o.ref_build = value();
    else if (a == "--column")
      o.column = value();
    else if (a == "--label")
      o.label = value();
    else if (a == "--k")
      o.k = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--reps")
      o.reps = std::stoi(value());
    else if (a == "--build")
      o.build = true;
    else if (a[0] == '-')
      Die("unknown option " + a);
    else
      o.dataset = a;
  }
  if (o.dataset.empty()) Die("usage: fts_bench DATASET [--queries FILE] [--ref ref.jsonl] [--build] ...");
  if (o.queries.empty()) o.queries = o.dataset + ".queries.json";
  return o;
}

std::vector<std::string> LoadQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path);
  Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded()) Die(path + ": not JSON");
  if (j.is_object()) j = j["queries"];
  std::vector<std::string> out;
  for (const Json& q : j) out.push_back(q.get<std::string>());
  return out;
}

// Rows returned for `text` (the key column read as the reference's bench reads it).
size_t Search(const table::Dataset& ds, const Options& o, const std::string& text) {
  scan::TextSearchRequest r;
  r.column = o.column;
  r.query.text = text;
  r.k = o.k;
  table::ScanOptions so;
  so.columns = {"id"};
  auto reader = Check(scan::TextSearch(ds, so, r), "search");
  size_t rows = 0;
  for (;;) {
    auto b = Check(reader->Next(), "search");
    if (!b) break;
    rows += static_cast<size_t>(b->num_rows);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  Json out = {{"bench", "fts"}};
  if (o.build) {
    auto ds = Check(table::Dataset::Open(o.dataset), o.dataset);
    const auto t0 = std::chrono::steady_clock::now();
    Check(lancet::index::CreateTextIndex(*ds, o.column), "build");
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-28s %10.0f ms\n", "lancet fts build", ms);
    out["build_ms"] = ms;
    if (auto ref = LastJsonLine(o.ref_build, "create-index")) {
      const double rm = ref->value("median_ms", 0.0);
      std::printf("%-28s %10.0f ms\n", "reference fts build", rm);
      if (ms > 0) std::printf("build time ratio (reference / lancet): %.2fx\n", rm / ms);
      out["ref_build_ms"] = rm;
    }
  }
  if (o.reps <= 0) {  // the build only
    std::cout << out.dump() << "\n";
    return 0;
  }
  auto ds = Check(table::Dataset::Open(o.dataset), o.dataset);
  const auto queries = LoadQueries(o.queries);
  if (queries.empty()) Die(o.queries + ": no queries");
  size_t rows = 0;
  for (const std::string& q : queries) rows += Search(*ds, o, q);  // warm-up: opens the index
  std::vector<double> lat;
  double total_ms = 0;
  for (int rep = 0; rep < o.reps; ++rep) {
    for (const std::string& q : queries) {
      const auto t0 = std::chrono::steady_clock::now();
      Search(*ds, o, q);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      lat.push_back(ms);
      total_ms += ms;
    }
  }
  const double qps = total_ms > 0 ? 1000.0 * static_cast<double>(lat.size()) / total_ms : 0;
  const std::string what = o.label.empty() ? "lancet" : o.label;
  std::printf("%-28s %10s %10s %10s %10s\n", "search", "qps", "p50_ms", "p99_ms", "rows");
  std::printf("%-28s %10.1f %10.3f %10.3f %10zu\n", what.c_str(), qps, Quantile(lat, 0.5), Quantile(lat, 0.99), rows);
  out.update({{"label", what},
              {"qps", qps},
              {"p50_ms", Quantile(lat, 0.5)},
              {"p99_ms", Quantile(lat, 0.99)},
              {"rows", rows},
              {"k", o.k},
              {"queries", queries.size()}});
  if (auto ref = LastJsonLine(o.ref, "fts")) {
    const double rq = ref->value("qps", 0.0);
    std::printf("%-28s %10.1f %10.3f %10.3f %10lld\n", "reference", rq, ref->value("median_ms", 0.0),
                ref->value("p99_ms", 0.0),
                static_cast<long long>(ref->value("rows", 0)) / std::max(1, ref->value("reps", 1)));
    if (rq > 0) std::printf("qps ratio (lancet / reference): %.2fx\n", qps / rq);
    out["ref_qps"] = rq;
    out["ratio"] = rq > 0 ? qps / rq : 0;
  }
  std::cout << out.dump() << "\n";
  return 0;
}
