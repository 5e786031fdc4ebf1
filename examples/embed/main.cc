// Writes a small Lance dataset with Lancet's public C++ API, appends to it, then reads it
// back through a filtered scan and prints the rows: what a program embedding Lancet does.
//
//   lancet_embed DATASET_DIR   (DATASET_DIR must not exist yet)
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/buffer.h"
#include "lancet/data_type.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace {

// Arrow layout by hand, as a program that has no Arrow library of its own builds it:
// [validity, values] for int64, [validity, int32 offsets, bytes] for utf8 (no nulls here,
// so no validity buffer).
template <typename T>
lancet::BufferPtr CopyOf(const std::vector<T>& values) {
  return lancet::Buffer::Copy(std::span(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)));
}

lancet::Array Int64Column(const std::vector<int64_t>& values) {
  lancet::Array a;
  a.type = lancet::MakeType(lancet::TypeId::kInt64);
  a.length = static_cast<int64_t>(values.size());
  a.buffers = {nullptr, CopyOf(values)};
  return a;
}

lancet::Array Utf8Column(const std::vector<std::string>& values) {
  std::vector<int32_t> offsets{0};
  std::string bytes;
  for (const auto& v : values) {
    bytes += v;
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
  lancet::Array a;
  a.type = lancet::MakeType(lancet::TypeId::kUtf8);
  a.length = static_cast<int64_t>(values.size());
  a.buffers = {nullptr, CopyOf(offsets), lancet::Buffer::Copy(std::string_view(bytes))};
  return a;
}

lancet::RecordBatch People(const lancet::Schema& schema, std::vector<int64_t> ids, std::vector<std::string> names) {
  lancet::RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = static_cast<int64_t>(ids.size());
  batch.columns = {Int64Column(ids), Utf8Column(names)};
  return batch;
}

int Fail(const char* what, const lancet::Status& status) {
  std::fprintf(stderr, "lancet_embed: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lancet_embed DATASET_DIR\n");
    return 64;
  }
  const std::string uri = argv[1];
  lancet::Schema schema;
  schema.fields = {lancet::MakeField("id", lancet::MakeType(lancet::TypeId::kInt64), false),
                   lancet::MakeField("name", lancet::MakeType(lancet::TypeId::kUtf8))};

  // Two rows per data file, so the scan below crosses fragments.
  lancet::table::WriteParams params;
  params.max_rows_per_file = 2;
  auto v1 = lancet::table::WriteDataset(uri, schema, {People(schema, {1, 2, 3}, {"ada", "grace", "edsger"})}, params);
  if (!v1.ok()) return Fail("create", v1.status());
  params.mode = lancet::table::WriteMode::kAppend;
  auto v2 = lancet::table::WriteDataset(uri, schema, {People(schema, {4, 5}, {"barbara", "donald"})}, params);
  if (!v2.ok()) return Fail("append", v2.status());

  auto dataset = lancet::table::Dataset::Open(uri);
  if (!dataset.ok()) return Fail("open", dataset.status());
  std::printf("version %llu, %llu rows in %zu fragments\n", static_cast<unsigned long long>((*dataset)->version()),
              static_cast<unsigned long long>((*dataset)->CountRows()), (*dataset)->fragments().size());

  lancet::table::ScanOptions scan;
  scan.filter = "id >= 2";
  scan.columns = {"name", "id"};
  auto batches = (*dataset)->Scan(scan);
  if (!batches.ok()) return Fail("scan", batches.status());
  for (const auto& batch : *batches) {
    const lancet::Array& names = batch.columns[0];
    const int64_t* ids = batch.columns[1].values<int64_t>();
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      std::printf("%lld %.*s\n", static_cast<long long>(ids[i]), static_cast<int>(names.GetView(i).size()),
                  names.GetView(i).data());
    }
  }
  return 0;
}
