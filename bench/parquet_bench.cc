// parquet_bench [--rows N] [--reps R] [--codec snappy|gzip|zstd|lz4|none] [--out FILE]
//               [--ref DUCKDB.jsonl]
//
// ParquetWriter throughput on a mixed table held in memory (id int64, x float64,
// name utf8 with 10k distinct values, flag bool, score int32 with 10% nulls,
// tags list<int32> of 0-3 items), written to FILE (default: a temp file). Prints rows,
// Arrow bytes in, Parquet bytes out and MB/s of Arrow bytes per second (best of R).
// With --ref (parquet_bench.sh writes it: DuckDB's COPY ... TO of the same rows, one
// JSON line per thread setting, {"op":"duckdb_write","threads":T,"seconds":S,"bytes":B})
// it prints the ratio of DuckDB's time to ours for each (above 1: Lancet is faster).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_stats.h"
#include "lancet/format/parquet.h"
#include "lancet/io/object_store.h"

namespace lancet::bench {
namespace {

constexpr int64_t kBatchRows = 65536;
// The same rows as the DuckDB query in parquet_bench.sh.
constexpr int64_t kNames = 10000;

template <typename T>
BufferPtr VectorBuffer(const std::vector<T>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return Buffer::FromVector(std::move(bytes));
}

Schema MixedSchema() {
  return Schema{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("x", MakeType(TypeId::kFloat64)),
                 MakeField("name", MakeType(TypeId::kUtf8)), MakeField("flag", MakeType(TypeId::kBool)),
                 MakeField("score", MakeType(TypeId::kInt32)),
                 MakeField("tags", ListOf(MakeField("item", MakeType(TypeId::kInt32))))},
                {}};
}

RecordBatch MixedBatch(const Schema& schema, int64_t begin, int64_t rows, uint64_t* arrow_bytes) {
  std::vector<int64_t> id(rows);
  std::vector<double> x(rows);
  std::vector<int32_t> name_offsets(rows + 1), score(rows), tag_offsets(rows + 1), tags;
  std::string names;
  std::vector<uint8_t> flags((rows + 7) / 8), score_valid((rows + 7) / 8);
  int64_t score_nulls = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = begin + r;
    id[r] = i;
    x[r] = static_cast<double>(i) * 0.5;
    names += "name-" + std::to_string(i % kNames);
    name_offsets[r + 1] = static_cast<int32_t>(names.size());
    if (i % 3 == 0) flags[r / 8] |= static_cast<uint8_t>(1u << (r % 8));
    if (i % 10 == 0) {
      ++score_nulls;
    } else {
      score_valid[r / 8] |= static_cast<uint8_t>(1u << (r % 8));
      score[r] = static_cast<int32_t>(i * 7 % 1000);
    }
    for (int64_t j = 0; j < i % 4; ++j) tags.push_back(static_cast<int32_t>(i + j));
    tag_offsets[r + 1] = static_cast<int32_t>(tags.size());
  }
  const int64_t num_tags = static_cast<int64_t>(tags.size());
  *arrow_bytes += rows * (8 + 8 + 4 + 4 + 4) + names.size() + 2 * flags.size() + tags.size() * 4;
  RecordBatch b{schema, rows, {}};
  auto col = [&](int k, std::vector<BufferPtr> buffers, int64_t nulls = 0) {
    Array a;
    a.type = schema.fields[k].type;
    a.length = rows;
    a.null_count = nulls;
    a.buffers = std::move(buffers);
    return a;
  };
  b.columns.push_back(col(0, {nullptr, VectorBuffer(id)}));
  b.columns.push_back(col(1, {nullptr, VectorBuffer(x)}));
  b.columns.push_back(col(2, {nullptr, VectorBuffer(name_offsets), Buffer::Copy(names)}));
  b.columns.push_back(col(3, {nullptr, VectorBuffer(flags)}));
  b.columns.push_back(col(4, {VectorBuffer(score_valid), VectorBuffer(score)}, score_nulls));
  Array list = col(5, {nullptr, VectorBuffer(tag_offsets)});
  Array child;
  child.type = MakeType(TypeId::kInt32);
  child.length = num_tags;
  child.buffers = {nullptr, VectorBuffer(tags)};
  list.children.push_back(std::move(child));
  b.columns.push_back(std::move(list));
  return b;
}

// Reads every row of `path` through OpenParquetReader (best of `reps`) and prints the
// rate against DuckDB's read of the same file from `ref` (op duckdb_read).
int ReadMode(const std::string& path, int reps, const std::string& ref) {
  double best = 1e30;
  int64_t rows = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    auto file = io::LocalFileSystem(false)->OpenRead(path);
    if (!file.ok()) {
      std::fprintf(stderr, "parquet_bench: %s\n", file.status().ToString().c_str());
      return 1;
    }
    auto reader = format::OpenParquetReader(std::move(*file));
    Status st = reader.status();
    rows = 0;
    while (st.ok()) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) st = batch.status();
      if (!st.ok() || !*batch) break;
      rows += (*batch)->num_rows;
    }
    if (!st.ok()) {
      std::fprintf(stderr, "parquet_bench: %s\n", st.ToString().c_str());
      return 1;
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::printf("lancet   read: %lld rows, %.1f MB Parquet, %.3f s, %.1f MB/s\n", static_cast<long long>(rows), mb, best,
              mb / best);
  std::ifstream in(ref);
  std::string line;
  while (!ref.empty() && std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("op", "") != "duckdb_read") continue;
    const double s = j.value("seconds", 0.0);
    std::printf("duckdb   read, %d thread(s): %.3f s, %.1f MB/s of the same file; ratio %.2f\n", j.value("threads", 0),
                s, mb / s, s / best);
  }
  return 0;
}

int Run(int argc, char** argv) {
  int64_t rows = 1000000;
  int reps = 3;
  std::string codec = "snappy", out, ref, read;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--rows") rows = std::atoll(v.c_str());
    if (k == "--reps") reps = std::atoi(v.c_str());
    if (k == "--codec") codec = v;
    if (k == "--out") out = v;
    if (k == "--ref") ref = v;
    if (k == "--read") read = v;
  }
  if (!read.empty()) return ReadMode(read, reps, ref);
  // A file the caller named is kept (iceberg_sync_bench.sh uses it as its source rows).
  const bool keep = !out.empty();
  if (!keep) out = (std::filesystem::temp_directory_path() / "lancet_parquet_bench.parquet").string();
  const Schema schema = MixedSchema();
  uint64_t arrow_bytes = 0;
  std::vector<RecordBatch> batches;
  for (int64_t b = 0; b < rows; b += kBatchRows) {
    batches.push_back(MixedBatch(schema, b, std::min(kBatchRows, rows - b), &arrow_bytes));
  }
  format::ParquetWriteOptions options;
  options.compression = codec == "none"   ? format::ParquetCompression::kNone
                        : codec == "gzip" ? format::ParquetCompression::kGzip
                        : codec == "zstd" ? format::ParquetCompression::kZstd
                        : codec == "lz4"  ? format::ParquetCompression::kLz4Raw
                                          : format::ParquetCompression::kSnappy;
  double best = 1e30;
  uint64_t file_bytes = 0;
  for (int rep = 0; rep < reps; ++rep) {
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    const auto t0 = std::chrono::steady_clock::now();
    auto writer = format::ParquetWriter::Open(
        [&file](std::span<const uint8_t> bytes) {
          file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
          return file ? Status::OK() : Status::IOError("write failed");
        },
        schema, options);
    Status st = writer.status();
    for (size_t b = 0; st.ok() && b < batches.size(); ++b) st = (*writer)->Write(batches[b]);
    if (st.ok()) st = (*writer)->Finish();
    file.close();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st.ok()) {
      std::fprintf(stderr, "parquet_bench: %s\n", st.ToString().c_str());
      return 1;
    }
    best = std::min(best, s);
    file_bytes = (*writer)->bytes_written();
  }
  const double mb = static_cast<double>(arrow_bytes) / 1e6;
  std::printf("lancet   %s: %lld rows, %.1f MB Arrow in, %.1f MB Parquet out, %.3f s, %.1f MB/s\n", codec.c_str(),
              static_cast<long long>(rows), mb, static_cast<double>(file_bytes) / 1e6, best, mb / best);
  std::ifstream in(ref);
  std::string line;
  while (!ref.empty() && std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("op", "") != "duckdb_write") continue;
    const double s = j.value("seconds", 0.0);
    std::printf("duckdb   %s, %d thread(s): %.1f MB Parquet out, %.3f s, %.1f MB/s of the same rows; ratio %.2f\n",
                codec.c_str(), j.value("threads", 0), j.value("bytes", 0.0) / 1e6, s, mb / s, s / best);
  }
  if (!keep) std::filesystem::remove(out);
  return 0;
}

}  // namespace
}  // namespace lancet::bench

int main(int argc, char** argv) { return lancet::bench::Run(argc, argv); }
