// Nearest-neighbour search on a vector dataset (bench.mjs make-vector-dataset), against
// the reference's `knn` lines of the same run:
//   knn_bench DATASET [--queries FILE] [--ref ref.jsonl] [--column vec] [--k 10]
//             [--nprobes N] [--refine-factor R] [--reps 3] [--bypass-index] [--label NAME]
//             [--latency-ms MS] [--ef N]
// --latency-ms opens the dataset through a store that charges MS per request (a
// simulated object store). Bytes and requests per query are printed for the first
// (cold) pass, when index partitions are read, and over all passes.
// Times every query of the query file (default DATASET.queries.json) `reps` passes after
// one warm-up pass; recall@k against exact search. Prints a table and one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench_check.h"
#include "bench_stats.h"
#include "lancet/io/latency_store.h"
#include "lancet/scan/search.h"

using lancet::bench::Check;
using lancet::bench::Die;
using lancet::bench::LastJsonLine;
using lancet::bench::Quantile;
using Json = nlohmann::json;
namespace table = lancet::table;
namespace scan = lancet::scan;

namespace {

struct Options {
  std::string dataset, queries, ref, column = "vec", label;
  uint32_t k = 10, nprobes = 0, ef = 0;
  std::optional<uint32_t> refine;
  int reps = 3;
  int latency_ms = 0;
  bool bypass = false;
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
    else if (a == "--column")
      o.column = value();
    else if (a == "--label")
      o.label = value();
    else if (a == "--k")
      o.k = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--nprobes")
      o.nprobes = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--refine-factor")
      o.refine = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--reps")
      o.reps = std::stoi(value());
    else if (a == "--bypass-index")
      o.bypass = true;
    else if (a == "--latency-ms")
      o.latency_ms = std::stoi(value());
    else if (a == "--ef")
      o.ef = static_cast<uint32_t>(std::stoul(value()));
    else if (a[0] == '-')
      Die("unknown option " + a);
    else
      o.dataset = a;
  }
  if (o.dataset.empty()) Die("usage: knn_bench DATASET [--queries FILE] [--ref ref.jsonl] [--k 10] ...");
  if (o.queries.empty()) o.queries = o.dataset + ".queries.json";
  return o;
}

std::vector<std::vector<float>> LoadQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path);
  Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded()) Die(path + ": not JSON");
  if (j.is_object()) j = j["queries"];
  std::vector<std::vector<float>> out;
  for (const Json& q : j) out.push_back(q.get<std::vector<float>>());
  return out;
}

std::vector<uint64_t> Search(const table::Dataset& ds, const Options& o, const std::vector<float>& q, bool exact,
                             scan::SearchExplain* explain = nullptr) {
  scan::VectorQuery vq;
  vq.column = o.column;
  vq.vectors = {q};
  vq.k = o.k;
  vq.nprobes = o.nprobes;
  vq.ef = o.ef;
  vq.refine_factor = o.refine;
  vq.use_index = !exact && !o.bypass;
  table::ScanOptions so;
  so.columns = {"_rowid"};
  auto reader = Check(scan::Search(ds, so, vq, explain), "search");
  std::vector<uint64_t> rows;
  for (;;) {
    auto b = Check(reader->Next(), "search");
    if (!b) break;
    for (int64_t i = 0; i < b->num_rows; ++i) rows.push_back(b->columns[0].values<uint64_t>()[i]);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  std::unique_ptr<table::Dataset> ds;
  if (o.latency_ms > 0) {
    auto store = lancet::io::WithLatency(lancet::io::LocalFileSystem(false), std::chrono::milliseconds(o.latency_ms));
    ds = Check(table::Dataset::Open(store, o.dataset), o.dataset);
  } else {
    ds = Check(table::Dataset::Open(o.dataset), o.dataset);
  }
  const auto queries = LoadQueries(o.queries);
  if (queries.empty()) Die(o.queries + ": no queries");

  scan::SearchExplain explain;
  const uint64_t c0 = ds->store()->stats().Snapshot().read_bytes;
  const uint64_t cr0 = ds->store()->stats().Snapshot().read_requests;
  std::vector<std::vector<uint64_t>> results(queries.size());
  std::vector<double> lat;
  // The cold pass: the first time each query runs (index partitions read from the store).
  for (size_t i = 0; i < queries.size(); ++i)
    results[i] = Search(*ds, o, queries[i], false, i == 0 ? &explain : nullptr);
  const auto cold = ds->store()->stats().Snapshot();
  const double cold_bytes = static_cast<double>(cold.read_bytes - c0) / static_cast<double>(queries.size());
  const double cold_requests = static_cast<double>(cold.read_requests - cr0) / static_cast<double>(queries.size());
  const uint64_t b0 = cold.read_bytes;
  const uint64_t r0 = cold.read_requests;
  double total_ms = 0;
  for (int rep = 1; rep <= o.reps; ++rep) {
    for (size_t i = 0; i < queries.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      results[i] = Search(*ds, o, queries[i], false);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      lat.push_back(ms);
      total_ms += ms;
    }
  }
  const auto snap = ds->store()->stats().Snapshot();
  const double passes = std::max(1, o.reps);
  const double bytes_per_query = static_cast<double>(snap.read_bytes - b0) / (passes * queries.size());
  const double requests_per_query = static_cast<double>(snap.read_requests - r0) / (passes * queries.size());

  double recall = 1.0;
  if (!explain.index.empty()) {
    double hit = 0, want = 0;
    for (size_t i = 0; i < queries.size(); ++i) {
      const auto truth = Search(*ds, o, queries[i], true);
      const std::set<uint64_t> t(truth.begin(), truth.end());
      for (uint64_t r : results[i]) hit += t.count(r);
      want += static_cast<double>(truth.size());
    }
    recall = want > 0 ? hit / want : 1.0;
  }
  const double qps = total_ms > 0 ? 1000.0 * static_cast<double>(lat.size()) / total_ms : 0;
  const std::string what = o.label.empty() ? (explain.index.empty() ? "flat" : explain.index) : o.label;
  std::printf("%-28s %10s %10s %10s %8s %12s %9s %12s %9s\n", "search", "qps", "p50_ms", "p99_ms", "recall",
              "bytes/query", "req/query", "cold bytes/q", "cold req/q");
  std::printf("%-28s %10.1f %10.3f %10.3f %8.4f %12.0f %9.1f %12.0f %9.1f\n", ("lancet " + what).c_str(), qps,
              Quantile(lat, 0.5), Quantile(lat, 0.99), recall, bytes_per_query, requests_per_query, cold_bytes,
              cold_requests);
  Json out = {{"bench", "knn"},
              {"label", what},
              {"qps", qps},
              {"p50_ms", Quantile(lat, 0.5)},
              {"p99_ms", Quantile(lat, 0.99)},
              {"recall", recall},
              {"bytes_per_query", bytes_per_query},
              {"requests_per_query", requests_per_query},
              {"k", o.k},
              {"queries", queries.size()}};
  if (auto ref =
          LastJsonLine(o.ref, "knn", [&](const Json& j) { return j.value("bypass_index", false) == o.bypass; })) {
    const double rq = ref->value("qps", 0.0);
    std::printf(
        "%-28s %10.1f %10.3f %10.3f %8s\n",
        ("reference " + ((*ref)["index"].is_string() ? (*ref)["index"].get<std::string>() : std::string("flat")))
            .c_str(),
        rq, ref->value("median_ms", 0.0), ref->value("p99_ms", 0.0),
        (*ref)["recall"].is_null() ? "-" : std::to_string((*ref)["recall"].get<double>()).substr(0, 6).c_str());
    if (rq > 0) std::printf("qps ratio (lancet / reference): %.2fx\n", qps / rq);
    out["ref_qps"] = rq;
    out["ref_recall"] = (*ref)["recall"];
    out["ratio"] = rq > 0 ? qps / rq : 0;
  }
  std::cout << out.dump() << "\n";
  std::cout << explain.ToString();
  return 0;
}
