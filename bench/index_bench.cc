// Scalar indexes on the 1M-row mixed dataset (bench.mjs make-dataset), against the same
// queries without an index in the same run and the reference's indexed lookup:
//   index_bench DATASET [--ref ref.jsonl] [--ref-dataset DIR] [--reps 5] [--id 500000]
// --ref-dataset: the reference's copy with its own BTree on id, looked up by Lancet too.
// DATASET is modified: a `bucket` column (100 values, for a 1 % Bitmap query) is added
// and indexes are created and dropped. bench/index_bench.sh makes the copies and runs
// the reference first. Prints a table and one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "bench_check.h"
#include "lancet/index/scalar_index.h"
#include "lancet/scan/scanner.h"
#include "lancet/table/evolution.h"
#include "util/array_builder.h"

using lancet::bench::Check;
using lancet::bench::Die;
using lancet::index::ScalarIndexType;
namespace table = lancet::table;

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Measured {
  double ms = 0;
  uint64_t bytes = 0, rows = 0;
  lancet::scan::ScanExplain explain;
};

std::unique_ptr<table::Dataset> Open(const std::string& path) { return Check(table::Dataset::Open(path), path); }

// Runs `where` reps times (after one warm-up) through the planner; bytes of the last run.
Measured Run(const table::Dataset& ds, const std::string& where, const std::vector<std::string>& columns, int reps) {
  Measured m;
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    table::ScanOptions o;
    o.filter = where;
    o.columns = columns;
    const uint64_t b0 = ds.store()->stats().Snapshot().read_bytes;
    const auto t0 = std::chrono::steady_clock::now();
    lancet::scan::ScanExplain explain;
    auto reader = Check(lancet::scan::NewScan(ds, o, &explain), where);
    uint64_t rows = 0;
    for (;;) {
      auto b = Check(reader->Next(), where);
      if (!b) break;
      rows += static_cast<uint64_t>(b->num_rows);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) times.push_back(ms);
    m.bytes = ds.store()->stats().Snapshot().read_bytes - b0;
    m.rows = rows;
    m.explain = explain;
  }
  m.ms = Median(times);
  return m;
}

double Build(const std::string& path, const std::string& column, ScalarIndexType type, const std::string& name,
             std::map<std::string, std::string> params = {}) {
  auto ds = Open(path);
  lancet::index::CreateIndexOptions o;
  o.name = name;
  o.params = std::move(params);
  const auto t0 = std::chrono::steady_clock::now();
  Check(lancet::index::CreateScalarIndex(*ds, column, type, o), "create " + name);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void Drop(const std::string& path, const std::string& name) {
  Check(lancet::index::DropIndex(*Open(path), name), name);
}

// bucket = a hash of id mod 100: about 1 % of the rows per value, spread over every page.
void AddBucket(const std::string& path) {
  auto ds = Open(path);
  if (ds->schema().FieldIndex("bucket") >= 0) return;
  table::ScanOptions o;
  o.columns = {"id"};
  std::vector<lancet::RecordBatch> batches;
  lancet::Schema schema;
  schema.fields.push_back(lancet::MakeField("bucket", lancet::MakeType(lancet::TypeId::kInt32), false));
  auto reader = Check(ds->NewScan(o), "scan id");
  for (;;) {
    auto b = Check(reader->Next(), "scan id");
    if (!b) break;
    std::vector<int32_t> v(static_cast<size_t>(b->num_rows));
    const int64_t* ids = b->columns[0].values<int64_t>();
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<int32_t>((static_cast<uint64_t>(ids[i]) * 2654435761ULL >> 7) % 100);
    lancet::RecordBatch out;
    out.schema = schema;
    out.num_rows = b->num_rows;
    out.columns.push_back(
        Check(lancet::ArrayFromVector<int32_t>(lancet::MakeType(lancet::TypeId::kInt32), v), "bucket"));
    batches.push_back(std::move(out));
  }
  Check(table::AddColumns(*ds, schema, std::move(batches)), "add bucket");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: index_bench DATASET [--ref ref.jsonl] [--reps 5] [--id 500000]\n";
    return 64;
  }
  const std::string path = argv[1];
  std::string ref_path, ref_dataset;
  int reps = 5;
  int64_t id = 500000;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--ref") ref_path = argv[i + 1];
    if (k == "--ref-dataset") ref_dataset = argv[i + 1];
    if (k == "--reps") reps = std::stoi(argv[i + 1]);
    if (k == "--id") id = std::stoll(argv[i + 1]);
  }
  AddBucket(path);
  for (const auto& s : Check(lancet::index::DescribeIndices(*Open(path)), "list")) Drop(path, s.name);

  const std::vector<std::string> all;  // every column, as the reference's index-lookup returns
  const std::vector<std::string> narrow = {"id", "value"};
  const std::string lookup = "id = " + std::to_string(id);
  const std::string r1 = "id >= 100000 AND id < 110000", r10 = "id >= 100000 AND id < 200000";
  // A value of opt_int that exists (row `id`'s), and the bucket/category queries.
  int64_t probe = 0;
  {
    auto ds = Open(path);
    table::ScanOptions o;
    o.filter = "opt_int IS NOT NULL AND id >= " + std::to_string(id);
    o.columns = {"opt_int"};
    o.limit = 1;
    auto batches = Check(ds->Scan(o), "probe");
    if (batches.empty() || batches[0].num_rows == 0) Die("no opt_int value to look up");
    probe = batches[0].columns[0].values<int64_t>()[0];
  }
  const std::string bloom_q = "opt_int = " + std::to_string(probe);

  auto ds = Open(path);
  const uint64_t total_rows = ds->CountRows();
  std::fprintf(stderr, "baselines without indexes...\n");
  const std::vector<std::string> ids = {"_rowid"};  // what a count needs
  const Measured full_narrow = Run(*ds, "", narrow, std::max(1, reps / 2));
  const Measured base_bucket_ids = Run(*ds, "bucket = 7", ids, reps),
                 base_bucket_narrow = Run(*ds, "bucket = 7", narrow, reps);
  const Measured base_lookup = Run(*ds, lookup, all, reps), base_bucket = Run(*ds, "bucket = 7", all, reps),
                 base_cat = Run(*ds, "category = 3", all, std::max(1, reps / 2)), base_r1 = Run(*ds, r1, narrow, reps),
                 base_r10 = Run(*ds, r10, narrow, reps), base_bloom = Run(*ds, bloom_q, narrow, reps);

  std::fprintf(stderr, "zonemap on id...\n");
  const double zm_build = Build(path, "id", ScalarIndexType::kZoneMap, "id_zm");
  ds = Open(path);
  const Measured zm_r1 = Run(*ds, r1, narrow, reps), zm_r10 = Run(*ds, r10, narrow, reps);
  Drop(path, "id_zm");
  std::fprintf(stderr, "bloomfilter on opt_int...\n");
  const double bf_build = Build(path, "opt_int", ScalarIndexType::kBloomFilter, "opt_int_bf");
  ds = Open(path);
  const Measured bf = Run(*ds, bloom_q, narrow, reps), bf_absent = Run(*ds, "opt_int = 3", narrow, reps);
  std::fprintf(stderr, "btree on id, bitmaps on bucket and category...\n");
  const double bt_build = Build(path, "id", ScalarIndexType::kBTree, "id_idx");
  const double bm_build = Build(path, "bucket", ScalarIndexType::kBitmap, "bucket_idx");
  Build(path, "category", ScalarIndexType::kBitmap, "category_idx");
  ds = Open(path);
  const Measured bm_ids = Run(*ds, "bucket = 7", ids, reps), bm_narrow = Run(*ds, "bucket = 7", narrow, reps);
  const Measured bt = Run(*ds, lookup, all, reps), bm = Run(*ds, "bucket = 7", all, reps),
                 bm_cat = Run(*ds, "category = 3", all, std::max(1, reps / 2));

  for (const auto& [a, b, q] : {std::tuple{&base_lookup, &bt, lookup},
                                {&base_bucket, &bm, std::string("bucket = 7")},
                                {&base_bucket_ids, &bm_ids, std::string("bucket = 7 (row ids)")},
                                {&base_bucket_narrow, &bm_narrow, std::string("bucket = 7 (id, value)")},
                                {&base_cat, &bm_cat, std::string("category = 3")},
                                {&base_r1, &zm_r1, r1},
                                {&base_r10, &zm_r10, r10},
                                {&base_bloom, &bf, bloom_q}}) {
    if (a->rows != b->rows)
      Die(q + ": " + std::to_string(b->rows) + " rows with the index, " + std::to_string(a->rows) + " without");
  }

  // Lancet through the reference's own BTree.
  Measured on_ref;
  if (!ref_dataset.empty()) {
    auto rds = Open(ref_dataset);
    on_ref = Run(*rds, lookup, all, reps);
    if (on_ref.explain.uses.empty()) Die(ref_dataset + ": Lancet did not use the reference's index for " + lookup);
    if (on_ref.rows != base_lookup.rows) Die(ref_dataset + ": " + lookup + " found other rows");
  }
  double ref_lookup = 0, ref_build = 0;
  if (!ref_path.empty()) {
    std::ifstream in(ref_path);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("op")) continue;
      if (j["op"] == "index-lookup" && j.value("index_used", false)) ref_lookup = j["median_ms"];
      if (j["op"] == "create-index") ref_build = j["median_ms"];
    }
  }
  auto ratio = [](double a, double b) { return a > 0 && b > 0 ? a / b : 0.0; };
  // Zones kept: candidate rows over rows, with the default 8192 rows per zone.
  auto zones_kept = [&](const Measured& m) {
    return m.explain.uses.empty() ? 1.0 : double(m.explain.uses[0].rows) / double(total_rows);
  };
  std::printf("%-34s %11s %11s %9s %13s %13s\n", "query", "no index", "index", "speedup", "bytes (none)",
              "bytes (index)");
  auto row = [&](const char* what, const Measured& a, const Measured& b) {
    std::printf("%-34s %9.2fms %9.2fms %8.1fx %13llu %13llu\n", what, a.ms, b.ms, ratio(a.ms, b.ms),
                static_cast<unsigned long long>(a.bytes), static_cast<unsigned long long>(b.bytes));
  };
  row(("btree " + lookup).c_str(), base_lookup, bt);
  row("bitmap bucket = 7 (1 %), row ids", base_bucket_ids, bm_ids);
  row("bitmap bucket = 7 (1 %), id,value", base_bucket_narrow, bm_narrow);
  row("bitmap bucket = 7 (1 %), all cols", base_bucket, bm);
  row("bitmap category = 3 (6.25 %)", base_cat, bm_cat);
  row("zonemap id range 1 %", base_r1, zm_r1);
  row("zonemap id range 10 %", base_r10, zm_r10);
  row(("bloomfilter " + bloom_q).c_str(), base_bloom, bf);
  std::printf(
      "btree lookup: %.1fx fewer bytes than the filtered full scan; reference's indexed lookup %.2f ms "
      "-> %.2fx faster\n",
      ratio(double(base_lookup.bytes), double(bt.bytes)), ref_lookup, ratio(ref_lookup, bt.ms));
  if (!ref_dataset.empty()) {
    std::printf("lancet through the reference's btree: %.2f ms, %llu bytes (%.1fx fewer than the filtered scan)\n",
                on_ref.ms, static_cast<unsigned long long>(on_ref.bytes),
                ratio(double(base_lookup.bytes), double(on_ref.bytes)));
  }
  std::printf(
      "zonemap: 1 %% and 10 %% id ranges read %.2f %% and %.2f %% of a full scan of (id, value), "
      "%llu bytes\n",
      100.0 * double(zm_r1.bytes) / double(full_narrow.bytes), 100.0 * double(zm_r10.bytes) / double(full_narrow.bytes),
      static_cast<unsigned long long>(full_narrow.bytes));
  std::printf("bloomfilter: %.2f %% of zones skipped for a present value, %.2f %% for an absent one\n",
              100.0 * (1 - zones_kept(bf)), 100.0 * (1 - zones_kept(bf_absent)));
  std::printf("builds: btree %.0f ms (reference %.0f ms), bitmap %.0f ms, zonemap %.0f ms, bloomfilter %.0f ms\n",
              bt_build, ref_build, bm_build, zm_build, bf_build);
  nlohmann::json out = {
      {"rows", total_rows},
      {"btree_lookup",
       {{"ms", bt.ms},
        {"bytes", bt.bytes},
        {"scan_ms", base_lookup.ms},
        {"scan_bytes", base_lookup.bytes},
        {"reference_ms", ref_lookup},
        {"speedup_vs_reference", ratio(ref_lookup, bt.ms)},
        {"bytes_ratio", ratio(double(base_lookup.bytes), double(bt.bytes))}}},
      {"btree_reference_built", {{"ms", on_ref.ms}, {"bytes", on_ref.bytes}}},
      {"bitmap_1pct",
       {{"ms", bm.ms},
        {"scan_ms", base_bucket.ms},
        {"speedup", ratio(base_bucket.ms, bm.ms)},
        {"row_ids_speedup", ratio(base_bucket_ids.ms, bm_ids.ms)},
        {"id_value_speedup", ratio(base_bucket_narrow.ms, bm_narrow.ms)}}},
      {"bitmap_category", {{"ms", bm_cat.ms}, {"scan_ms", base_cat.ms}, {"speedup", ratio(base_cat.ms, bm_cat.ms)}}},
      {"zonemap",
       {{"bytes_1pct_of_full", double(zm_r1.bytes) / double(full_narrow.bytes)},
        {"bytes_10pct_of_full", double(zm_r10.bytes) / double(full_narrow.bytes)}}},
      {"bloomfilter", {{"zones_skipped", 1 - zones_kept(bf)}, {"zones_skipped_absent", 1 - zones_kept(bf_absent)}}},
      {"build_ms",
       {{"btree", bt_build},
        {"btree_reference", ref_build},
        {"bitmap", bm_build},
        {"zonemap", zm_build},
        {"bloomfilter", bf_build}}}};
  std::cout << out.dump() << "\n";
  return 0;
}
