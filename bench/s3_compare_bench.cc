// Lancet against the reference on the same datasets, on local disk and on S3, in one run:
// a 1,000-row take, a full scan, and fetching the small (< 1 MiB) and the large blobs.
//
//   s3_compare_bench --mixed DIR --mixed-s3 URI --blobs DIR --blobs-s3 URI [--ref FILE]...
//                    [--reps 5] [--warmup 1] [--count 1000] [--seed 42]
//                    [--s3-gap BYTES] [--s3-parallelism N] [--only take|scan|blobs]
//   s3_compare_bench copy SRC_DIR s3://bucket/prefix/name.lance    (upload a local dataset)
//   s3_compare_bench rm s3://bucket/prefix                         (delete everything under it)
//   s3_compare_bench probe s3://bucket/prefix/name.lance           (GET cost, ReadMany overlap)
//
// scripts/bench.sh s3 drives it: the reference writes the mixed and the blob dataset
// (bench.mjs make-dataset, make-blob-dataset), `copy` puts the same bytes on S3, bench.mjs
// times take, scan and fetch-blobs on both copies (--ref files, one JSON line each), then
// this program times Lancet on the same rows and blobs: take rows are Rand(seed,
// "bench/take").u32() % rows without repeats, as bench.mjs take; blob sets are every
// non-null blob < 1 MiB / >= 1 MiB in scan order, as bench.mjs fetch-blobs. A timed run
// ends once every returned blob byte was read (mapped local files are otherwise only
// views). Requests and bytes are the store's IoStats (GETs on S3, reads on disk) of the
// last run. Each measurement with a reference figure ends in a line
//   ratio <op> <store>: <reference ms / lancet ms>x
// i.e. Lancet's throughput over the reference's for the same work.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench_check.h"
#include "bench_s3_util.h"
#include "lancet/io/s3_store.h"
#include "lancet/io/uri.h"
#include "lancet/table/dataset.h"
#include "peer_rand.h"

namespace {

using lancet::BufferPtr;
using lancet::bench::Check;
using lancet::bench::Die;
using lancet::table::Dataset;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kLargeBlob = 1024 * 1024;  // bench.mjs LARGE_BLOB

struct Options {
  std::string mixed, mixed_s3, blobs, blobs_s3;
  std::vector<std::string> refs;
  int reps = 5, warmup = 1;
  size_t count = 1000;
  uint64_t seed = 42;
  // S3Options overrides, to see how ReadMany's merging and parallelism shape S3 reads.
  std::optional<uint64_t> s3_gap;
  std::optional<int> s3_parallelism;
  std::string only;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

volatile uint64_t g_sink;

uint64_t Consume(const lancet::Buffer& b) {
  uint64_t acc = 0, w = 0;
  uint64_t i = 0;
  for (; i + 8 <= b.size(); i += 8) {
    std::memcpy(&w, b.data() + i, 8);
    acc ^= w;
  }
  for (; i < b.size(); ++i) acc ^= b.data()[i];
  return acc;
}

struct Result {
  double ms = 0;
  uint64_t requests = 0, bytes = 0, rows = 0, payload = 0;
};

template <typename F>
Result Time(const Options& o, const Dataset& ds, F&& run) {
  std::vector<double> ms;
  Result r;
  for (int i = 0; i < o.warmup + o.reps; ++i) {
    ds.store()->stats().Reset();
    const auto t0 = Clock::now();
    run(&r);
    const double t = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (i >= o.warmup) ms.push_back(t);
  }
  const auto c = ds.store()->stats().Snapshot();
  r.ms = Median(ms);
  r.requests = c.read_requests;
  r.bytes = c.read_bytes;
  return r;
}

// Row addresses of bench.mjs take's rows (scan positions, fragments in manifest order).
std::vector<uint64_t> TakeAddresses(const Dataset& ds, const Options& o) {
  std::vector<uint64_t> start, ids;
  uint64_t acc = 0;
  for (const auto& f : ds.fragments()) {
    start.push_back(acc);
    ids.push_back(f.id);
    acc += f.physical_rows;
  }
  const size_t count = std::min<uint64_t>(o.count, acc);
  lancet::bench::Rand rnd(o.seed, "bench/take");
  std::set<uint64_t> seen;
  std::vector<uint64_t> out;
  while (out.size() < count) {
    const uint64_t p = rnd.U32() % acc;
    if (!seen.insert(p).second) continue;
    const size_t f = std::upper_bound(start.begin(), start.end(), p) - start.begin() - 1;
    out.push_back((ids[f] << 32) | (p - start[f]));
  }
  return out;
}

std::string BlobColumn(const Dataset& ds) {
  for (const auto& f : ds.schema().fields) {
    if (lancet::IsBlobV2Field(f)) return f.name;
  }
  Die(ds.uri() + ": no top-level blob column");
}

// Row ids of the non-null blobs of `column` in scan order, split at 1 MiB.
std::map<std::string, std::vector<uint64_t>> BlobSets(const Dataset& ds, const std::string& column) {
  lancet::table::ScanOptions scan;
  scan.columns = {column};
  scan.with_row_id = true;
  std::map<std::string, std::vector<uint64_t>> sets;
  for (const auto& b : Check(ds.Scan(scan), "scan of " + column)) {
    const lancet::Array& d = b.columns[0];
    const lancet::Array& ids = b.columns[1];
    for (int64_t i = 0; i < b.num_rows; ++i) {
      if (!d.IsValid(i)) continue;
      const uint64_t size = d.children[2].values<uint64_t>()[i];
      sets[size >= kLargeBlob ? "large" : "small"].push_back(ids.values<uint64_t>()[i]);
    }
  }
  return sets;
}

// The reference's median per "<op> <store>", from bench.mjs's JSON lines.
std::map<std::string, double> LoadRefs(const std::vector<std::string>& files) {
  std::map<std::string, double> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) Die("cannot read " + f);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("op") || !j.contains("median_ms")) continue;
      const std::string store = j.value("dataset", "").starts_with("s3://") ? "s3" : "local";
      std::string op = j["op"];
      if (op == "scan" && j.contains("columns") && j["columns"].is_array() && j["columns"].size() <= 2) continue;
      if (op == "fetch-blobs") op += " " + j.value("set", "");
      out[op + " " + store] = j["median_ms"];
    }
  }
  return out;
}

std::string Size(uint64_t n) {
  char b[32];
  if (n >= 10'000'000) {
    std::snprintf(b, sizeof(b), "%.1f MB", n / 1e6);
  } else {
    std::snprintf(b, sizeof(b), "%.1f KB", n / 1e3);
  }
  return b;
}

// Opens `uri`; on S3 with the --s3-* overrides applied to a store of its own.
std::unique_ptr<Dataset> Open(const Options& o, const std::string& uri) {
  if (!lancet::io::IsRemoteUri(uri) || (!o.s3_gap && !o.s3_parallelism)) {
    return Check(Dataset::Open(uri), "open " + uri);
  }
  auto where = Check(lancet::io::ResolveUri(uri), "resolve " + uri);
  lancet::io::S3Options s3 = Check(lancet::io::S3OptionsFrom({}), "S3 options");
  if (o.s3_gap) s3.coalesce_gap = *o.s3_gap;
  if (o.s3_parallelism) s3.parallelism = *o.s3_parallelism;
  std::string rest = uri.substr(uri.find("://") + 3);
  auto store = Check(lancet::io::NewS3Store(rest.substr(0, rest.find('/')), s3), "S3 store");
  return Check(Dataset::Open(store, where.root), "open " + uri);
}

// What one GET costs and how far ReadMany overlaps them: 200 reads of 4 KiB, 1 MiB
// apart, of the largest data file under `uri`, one at a time and as one ReadMany.
int Probe(const std::string& uri) {
  auto where = Check(lancet::io::ResolveUri(uri), "resolve " + uri);
  std::string biggest;
  uint64_t size = 0;
  for (const auto& e : Check(where.store->List(where.root + "/data"), "list")) {
    if (!e.is_dir && e.size > size) biggest = where.root + "/data/" + e.path, size = e.size;
  }
  auto file = Check(where.store->OpenRead(biggest), "open " + biggest);
  std::vector<lancet::io::ByteRange> ranges;
  for (uint64_t off = 0; ranges.size() < 200 && off + 4096 <= size; off += 1 << 20) ranges.push_back({off, 4096});
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = Clock::now();
    for (const auto& r : ranges) (void)Check(file->ReadAt(r.offset, r.length), "get");
    const double serial = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    t0 = Clock::now();
    lancet::io::ReadOptions ro;
    ro.coalesce_gap = 0;
    (void)Check(file->ReadMany(ranges, ro), "read many");
    const double many = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::printf("%zu GETs of 4 KiB: one at a time %.1f ms (%.2f ms each), one ReadMany %.1f ms (%.1fx overlap)\n",
                ranges.size(), serial, serial / ranges.size(), many, serial / many);
  }
  return 0;
}

int Copy(const std::string& src, const std::string& dst) {
  auto where = Check(lancet::io::ResolveUri(dst), "resolve " + dst);
  lancet::bench::RemoveTree(*where.store, where.root);
  const auto t0 = Clock::now();
  const uint64_t bytes = lancet::bench::CopyTree(src, *where.store, where.root);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::fprintf(stderr, "s3_compare_bench: copied %s to %s in %.1f s\n", Size(bytes).c_str(), dst.c_str(), s);
  return 0;
}

int Remove(const std::string& uri) {
  auto where = Check(lancet::io::ResolveUri(uri), "resolve " + uri);
  lancet::bench::RemoveTree(*where.store, where.root);
  return 0;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) Die(k + " needs a value");
    const std::string v = argv[++i];
    if (k == "--mixed") {
      o.mixed = v;
    } else if (k == "--mixed-s3") {
      o.mixed_s3 = v;
    } else if (k == "--blobs") {
      o.blobs = v;
    } else if (k == "--blobs-s3") {
      o.blobs_s3 = v;
    } else if (k == "--ref") {
      o.refs.push_back(v);
    } else if (k == "--reps") {
      o.reps = std::max(1, std::stoi(v));
    } else if (k == "--warmup") {
      o.warmup = std::max(0, std::stoi(v));
    } else if (k == "--count") {
      o.count = std::stoul(v);
    } else if (k == "--seed") {
      o.seed = std::stoull(v);
    } else if (k == "--s3-gap") {
      o.s3_gap = std::stoull(v);
    } else if (k == "--s3-parallelism") {
      o.s3_parallelism = std::stoi(v);
    } else if (k == "--only") {
      o.only = v;
    } else {
      Die("unknown option " + k + " (see the comment at the top of bench/s3_compare_bench.cc)");
    }
  }
  if (o.mixed.empty() || o.mixed_s3.empty() || o.blobs.empty() || o.blobs_s3.empty()) {
    Die("usage: s3_compare_bench --mixed DIR --mixed-s3 URI --blobs DIR --blobs-s3 URI [--ref FILE]...");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "copy") return Copy(argv[2], argv[3]);
  if (argc == 3 && std::string(argv[1]) == "rm") return Remove(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "probe") return Probe(argv[2]);
  const Options o = ParseArgs(argc, argv);
  const auto refs = LoadRefs(o.refs);

  struct Row {
    std::string op, store;
    Result r;
  };
  std::vector<Row> rows;
  for (const auto& [store, mixed_uri, blobs_uri] :
       {std::tuple{std::string("local"), o.mixed, o.blobs}, std::tuple{std::string("s3"), o.mixed_s3, o.blobs_s3}}) {
    auto mixed = Open(o, mixed_uri);
    const std::vector<uint64_t> addrs = TakeAddresses(*mixed, o);
    if (o.only.empty() || o.only == "take") {
      rows.push_back({"take", store, Time(o, *mixed, [&](Result* r) {
                        auto got = Check(mixed->TakeRowAddresses(addrs), "take");
                        r->rows = static_cast<uint64_t>(got.num_rows);
                      })});
    }
    if (o.only.empty() || o.only == "scan") {
      rows.push_back({"scan", store, Time(o, *mixed, [&](Result* r) {
                        uint64_t n = 0;
                        for (const auto& b : Check(mixed->Scan(), "scan")) n += static_cast<uint64_t>(b.num_rows);
                        r->rows = n;
                      })});
    }
    if (!o.only.empty() && o.only != "blobs") continue;
    auto blobs = Open(o, blobs_uri);
    const std::string column = BlobColumn(*blobs);
    for (const auto& [set, ids] : BlobSets(*blobs, column)) {
      rows.push_back({"fetch-blobs " + set, store, Time(o, *blobs, [&](Result* r) {
                        auto got = Check(blobs->TakeBlobs(column, ids), "TakeBlobs");
                        uint64_t acc = 0, bytes = 0;
                        for (const auto& b : got) {
                          if (!b) Die("a null blob in the " + set + " set");
                          acc ^= Consume(**b);
                          bytes += (*b)->size();
                        }
                        g_sink = acc;
                        r->rows = got.size();
                        r->payload = bytes;
                      })});
    }
  }

  std::printf("Lancet on local disk and S3, same datasets (median of %d; requests and bytes of the last run)\n",
              o.reps);
  std::printf("%-18s %-6s %8s %11s %9s %11s %12s %10s\n", "operation", "store", "rows", "lancet", "requests", "bytes",
              "reference", "ratio");
  std::vector<std::string> ratios;
  for (const Row& row : rows) {
    auto it = refs.find(row.op + " " + row.store);
    char ref[32] = "n/a", ratio[32] = "n/a";
    if (it != refs.end() && row.r.ms > 0) {
      std::snprintf(ref, sizeof(ref), "%.1f ms", it->second);
      std::snprintf(ratio, sizeof(ratio), "%.2fx", it->second / row.r.ms);
      char line[160];
      std::snprintf(line, sizeof(line), "ratio %s %s: %.2fx (reference %.1f ms, lancet %.1f ms%s%s)", row.op.c_str(),
                    row.store.c_str(), it->second / row.r.ms, it->second, row.r.ms, row.r.payload ? ", " : "",
                    row.r.payload ? Size(row.r.payload).c_str() : "");
      ratios.push_back(line);
    }
    std::printf("%-18s %-6s %8llu %8.1f ms %9llu %11s %12s %10s\n", row.op.c_str(), row.store.c_str(),
                static_cast<unsigned long long>(row.r.rows), row.r.ms, static_cast<unsigned long long>(row.r.requests),
                Size(row.r.bytes).c_str(), ref, ratio);
  }
  for (const std::string& l : ratios) std::printf("%s\n", l.c_str());
  return 0;
}
