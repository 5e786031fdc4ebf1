// S3 against local disk in one run: what a range GET costs on the configured server
// (the numbers behind ReadMany's S3 merge settings), then a 1,000-row take and a blob
// fetch on the same dataset written to both stores: requests, bytes and time.
//
//   eval "$(scripts/s3-server.sh start)"; build/bin/s3_bench [--reps 5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "lancet/io/s3_store.h"
#include "lancet/io/uri.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace {

using namespace lancet;
using Clock = std::chrono::steady_clock;

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) {
    std::fprintf(stderr, "s3_bench: %s: %s\n", what.c_str(), r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}
void Check(const Status& st, const std::string& what) {
  if (!st.ok()) {
    std::fprintf(stderr, "s3_bench: %s: %s\n", what.c_str(), st.ToString().c_str());
    std::exit(1);
  }
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string Bytes(size_t n, uint32_t seed) {
  std::string s(n, 0);
  uint32_t x = seed * 2654435761u + 7;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

// Median time of a range GET of each size: the per-request cost and the transfer rate.
void GetCostCurve(io::ObjectStore& store, const std::string& root, int reps) {
  const size_t kObject = 32 << 20;
  const std::string data = Bytes(kObject, 1);
  Check(store.Put(root + "/curve.bin", {reinterpret_cast<const uint8_t*>(data.data()), data.size()}), "put");
  auto file = Check(store.OpenRead(root + "/curve.bin"), "open");
  std::printf("range GET on S3 (median of %d):\n", reps * 4);
  std::vector<std::pair<size_t, double>> points;
  for (size_t size :
       {size_t{4} << 10, size_t{64} << 10, size_t{256} << 10, size_t{1} << 20, size_t{4} << 20, size_t{16} << 20}) {
    std::vector<double> t;
    for (int i = 0; i < reps * 4; ++i) {
      auto start = Clock::now();
      (void)Check(file->ReadAt(static_cast<uint64_t>(i) * 4096 % (kObject - size), size), "get");
      t.push_back(Ms(Clock::now() - start));
    }
    points.emplace_back(size, Median(t));
    std::printf("  %8zu KiB  %8.2f ms  %8.1f MB/s\n", size >> 10, Median(t), size / 1e3 / Median(t));
  }
  // Fit between the 64 KiB and 16 MiB points.
  const double rate = (points.back().first - points[1].first) / (points.back().second - points[1].second) / 1e3;
  const double overhead = points[1].second - points[1].first / 1e3 / rate;
  std::printf("  per-request cost ~%.2f ms, transfer ~%.0f MB/s: a request costs as much as ~%.0f KiB\n", overhead,
              rate, overhead * rate * 1e3 / 1024);
}

struct Corpus {
  Schema rows_schema, blob_schema;
  std::vector<RecordBatch> rows, blobs;
};

Corpus MakeCorpus() {
  Corpus c;
  const int64_t n = 20000;
  std::vector<int64_t> ids(n);
  std::vector<double> xs(n);
  std::vector<std::optional<std::string>> names(n);
  for (int64_t i = 0; i < n; ++i) {
    ids[i] = i;
    xs[i] = i * 0.5;
    names[i] = "row-" + std::to_string(i * 7919 % 100003);
  }
  RecordBatch b =
      Check(MakeRecordBatch({"id", "name", "x"},
                            {Check(ArrayFromVector(MakeType(TypeId::kInt64), ids), "ids"), StringArray(names),
                             Check(ArrayFromVector(MakeType(TypeId::kFloat64), xs), "xs")}),
            "batch");
  c.rows_schema = b.schema;
  c.rows = {b};

  // 200 blobs of 16-256 KiB: packed below 1 MiB, so a fetch reads ranges of shared packs.
  table::BlobThresholds th;
  th.inline_max = 1024;
  th.dedicated_min = 1 << 20;
  Field field = table::MakeBlobField("b", true, th);
  const int64_t m = 200;
  std::vector<std::optional<std::string>> data;
  for (int64_t i = 0; i < m; ++i)
    data.push_back(Bytes((16 << 10) + static_cast<size_t>(i * 1200), static_cast<uint32_t>(i)));
  Array d = Check(MakeBinaryArray(field.type.children[0].type, data), "blob data");
  Array u = Check(MakeBinaryArray(field.type.children[1].type, std::vector<std::optional<std::string>>(m)), "uri");
  Array col = Check(MakeStructArray(field.type, m, {d, u}), "blob struct");
  c.blob_schema.fields = {field};
  c.blobs = {RecordBatch{c.blob_schema, m, {col}}};
  return c;
}

std::vector<uint64_t> FetchRows() {
  std::vector<uint64_t> fetch;
  for (uint64_t r = 0; r < 200; r += 4) fetch.push_back(r);  // 50 blobs, every 4th row
  return fetch;
}

template <typename Op>
void Measure(const std::string& name, const char* what, Op&& op, io::ObjectStore& store, int reps) {
  std::vector<double> t;
  io::IoCounters counters;
  for (int i = 0; i < reps; ++i) {
    store.stats().Reset();
    auto s = Clock::now();
    op();
    t.push_back(Ms(Clock::now() - s));
    counters = store.stats().Snapshot();
  }
  std::printf("  %-6s %-28s %9.2f ms  %6llu requests  %10llu bytes\n", name.c_str(), what, Median(t),
              static_cast<unsigned long long>(counters.read_requests),
              static_cast<unsigned long long>(counters.read_bytes));
}

void RunCase(const std::string& name, const std::string& uri, const Corpus& corpus, int reps) {
  table::WriteParams p;
  p.max_rows_per_file = 5000;
  auto start = Clock::now();
  Check(table::WriteDataset(uri + "/rows.lance", corpus.rows_schema, corpus.rows, p), "write rows");
  Check(table::WriteDataset(uri + "/blobs.lance", corpus.blob_schema, corpus.blobs, {}), "write blobs");
  const double write_ms = Ms(Clock::now() - start);
  auto rows = Check(table::Dataset::Open(uri + "/rows.lance"), "open rows");
  auto blobs = Check(table::Dataset::Open(uri + "/blobs.lance"), "open blobs");

  std::mt19937_64 rng(42);
  std::vector<uint64_t> take(1000);
  // Row ids are row addresses here (no stable row ids): fragment << 32 | offset.
  for (auto& r : take) {
    const uint64_t row = rng() % 20000;
    r = (row / 5000) << 32 | (row % 5000);
  }
  const std::vector<uint64_t> fetch = FetchRows();
  Measure(
      name, "take 1000 rows (3 cols)", [&] { (void)Check(rows->TakeRowIds(take), "take"); }, *rows->store(), reps);
  uint64_t fetched = 0;
  Measure(
      name, "fetch 50 blobs",
      [&] {
        auto got = Check(blobs->TakeBlobs("b", fetch), "take blobs");
        fetched = 0;
        for (const auto& g : got) fetched += (*g)->size();
      },
      *blobs->store(), reps);
  std::printf("  %-6s write both datasets          %9.2f ms  (%llu blob bytes per fetch)\n", name.c_str(), write_ms,
              static_cast<unsigned long long>(fetched));
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
  }
  const char* bucket = std::getenv("LANCET_TEST_BUCKET");
  if (bucket == nullptr || std::getenv("AWS_ENDPOINT_URL") == nullptr) {
    std::fprintf(stderr, "s3_bench: set AWS_ENDPOINT_URL and LANCET_TEST_BUCKET (scripts/s3-server.sh start)\n");
    return 2;
  }
  const std::string run = "bench-" + std::to_string(std::random_device{}() & 0xffffff);
  const std::string s3_uri = std::string("s3://") + bucket + "/" + run;
  auto s3 = Check(io::ResolveUri(s3_uri), "resolve");
  GetCostCurve(*s3.store, s3.root, reps);

  const std::string local = (std::filesystem::temp_directory_path() / ("lancet_" + run)).string();
  Corpus corpus = MakeCorpus();
  std::printf("\nsame datasets, same run (median of %d; requests and bytes of the last rep):\n", reps);
  RunCase("local", local, corpus, reps);
  RunCase("s3", s3_uri, corpus, reps);
  // The blob fetch again under other merge gaps (S3Options::coalesce_gap).
  for (uint64_t gap : {uint64_t{0}, uint64_t{64} << 10, uint64_t{256} << 10, uint64_t{1} << 20}) {
    io::S3Options o = Check(io::S3OptionsFrom({}), "options");
    o.coalesce_gap = gap;
    auto store = Check(io::NewS3Store(bucket, o), "store");
    auto ds = Check(table::Dataset::Open(store, s3.root + "/blobs.lance"), "open blobs");
    const std::vector<uint64_t> fetch = FetchRows();
    const std::string label = "fetch 50 blobs, gap " + std::to_string(gap >> 10) + "K";
    Measure(
        "s3", label.c_str(), [&] { (void)Check(ds->TakeBlobs("b", fetch), "take blobs"); }, *store, reps);
  }
  std::filesystem::remove_all(local);
  return 0;
}
