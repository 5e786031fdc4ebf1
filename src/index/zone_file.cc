#include "index/zone_file.h"

#include "lancet/format/file_writer.h"

namespace lancet::index {
namespace {

// Columns of `field` in the file: one per leaf, pre-order.
size_t LeafColumns(const Field& field) {
  if (format::IsLeafField(field)) return 1;
  size_t n = 0;
  for (const Field& child : field.type.children) n += LeafColumns(child);
  return n;
}

}  // namespace

Result<ZoneFile> ZoneFile::Open(const io::ObjectStore& store, const std::string& path, std::string what) {
  ASSIGN_OR_RETURN(auto file, store.OpenRead(path));
  ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::shared_ptr<io::RandomAccessFile> shared(std::move(file));
  ASSIGN_OR_RETURN(auto reader, format::FileReader::Open(shared, size));
  return ZoneFile(path, std::move(what), std::move(reader));
}

Status ZoneFile::Corrupt(const std::string& message) const {
  return Status::Corruption(path_ + ": " + what_ + ": " + message);
}

Result<Array> ZoneFile::Column(const std::string& name, const DataType& type, bool nullable) const {
  const Schema& schema = reader_->file_schema();
  const int index = schema.FieldIndex(name);
  if (index < 0) return Corrupt("missing '" + name + "' column");
  const Field& field = schema.fields[index];
  if (field.type != type) {
    return Corrupt("'" + name + "' column is " + field.type.ToString() + ", not " + type.ToString());
  }
  size_t column = 0;
  for (int i = 0; i < index; ++i) column += LeafColumns(schema.fields[i]);
  if (column >= reader_->num_columns()) return Corrupt("'" + name + "' column has no data");
  const int leaf = static_cast<int>(column);
  ASSIGN_OR_RETURN(Array values, reader_->ReadRange(field, std::span<const int>(&leaf, 1), 0, reader_->num_rows()));
  if (values.length != static_cast<int64_t>(reader_->num_rows())) return Corrupt("'" + name + "' column is short");
  if (!nullable && values.null_count != 0) return Corrupt("'" + name + "' column has nulls");
  return values;
}

Result<std::vector<ZoneBound>> ZoneFile::Bounds() const {
  const DataType u64 = MakeType(TypeId::kUInt64);
  ASSIGN_OR_RETURN(Array fragments, Column("fragment_id", u64, false));
  ASSIGN_OR_RETURN(Array starts, Column("zone_start", u64, false));
  ASSIGN_OR_RETURN(Array lengths, Column("zone_length", u64, false));
  std::vector<ZoneBound> bounds(num_rows());
  constexpr uint64_t kOffsets = uint64_t{1} << 32;
  for (size_t z = 0; z < bounds.size(); ++z) {
    ZoneBound& b = bounds[z];
    b = {fragments.values<uint64_t>()[z], starts.values<uint64_t>()[z], lengths.values<uint64_t>()[z]};
    if (b.fragment_id >= kOffsets || b.start >= kOffsets || b.length == 0 || b.length > kOffsets - b.start) {
      return Corrupt("zone " + std::to_string(z) + " (fragment " + std::to_string(b.fragment_id) + ", start " +
                     std::to_string(b.start) + ", length " + std::to_string(b.length) +
                     ") is not a span of one fragment");
    }
  }
  return bounds;
}

Result<uint64_t> WriteZoneFile(std::shared_ptr<io::ObjectStore> store, const std::string& path, const Schema& schema,
                               std::vector<Array> columns) {
  ASSIGN_OR_RETURN(auto writer, format::FileWriter::Open(std::move(store), path, schema));
  RecordBatch batch{writer->schema(), columns.empty() ? 0 : columns[0].length, std::move(columns)};
  if (batch.num_rows > 0) RETURN_IF_ERROR(writer->Write(batch));
  ASSIGN_OR_RETURN(format::FileStats stats, writer->Finish());
  return stats.file_size;
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace lancet::index
