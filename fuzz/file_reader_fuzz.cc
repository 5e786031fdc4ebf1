// libFuzzer target: any bytes opened as a Lance data file, then every column read
// in full and one row taken. Errors are fine; crashes, hangs and huge allocations
// are bugs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "lancet/format/file_reader.h"
#include "lancet/io/object_store.h"

namespace {

// Leaf columns of each top-level field, assuming the file's columns are the
// schema's leaves in pre-order (as the reference writes them).
void AssignColumns(const lancet::Field& field, int* next, std::vector<int>* out) {
  if (lancet::format::IsLeafField(field)) {
    out->push_back((*next)++);
    return;
  }
  for (const auto& child : field.type.children) AssignColumns(child, next, out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto store = lancet::io::NewMemoryStore();
  if (!store->Put("fuzz.lance", {data, size}).ok()) return 0;
  auto file = store->OpenRead("fuzz.lance");
  if (!file.ok()) return 0;
  auto reader = lancet::format::FileReader::Open(std::shared_ptr<lancet::io::RandomAccessFile>(file.MoveValue()));
  if (!reader.ok()) return 0;
  const auto& r = **reader;
  const lancet::Schema& schema = r.file_schema();
  int next = 0;
  std::vector<std::vector<int>> columns;
  for (const auto& f : schema.fields) {
    columns.emplace_back();
    AssignColumns(f, &next, &columns.back());
  }
  for (size_t c = 0; c < r.num_columns(); ++c) (void)r.DescribeColumn(static_cast<int>(c));
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    // Columns past the file's count are rejected as InvalidArgument, not read.
    (void)r.ReadRange(schema.fields[i], columns[i], 0, r.num_rows());
    if (r.num_rows() > 0) {
      const uint64_t rows[] = {r.num_rows() - 1, 0, r.num_rows() / 2};
      (void)r.Take(schema.fields[i], columns[i], rows);
    }
  }
  return 0;
}
