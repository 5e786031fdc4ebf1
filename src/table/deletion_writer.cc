#include "table/deletion_writer.h"

#include <vector>

#include "format/ipc_writer.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/manifest.h"

namespace lancet::table {

Result<BufferPtr> EncodeDeletionArrow(const Roaring& deleted) {
  std::vector<uint32_t> values(deleted.cardinality());
  deleted.toUint32Array(values.data());
  std::vector<uint8_t> bytes(values.size() * sizeof(uint32_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  Array column;
  column.type = MakeType(TypeId::kUInt32);
  column.length = static_cast<int64_t>(values.size());
  column.buffers = {nullptr, Buffer::FromVector(std::move(bytes))};
  Schema schema;
  Field field;
  field.name = "row_id";
  field.type = column.type;
  field.nullable = false;
  schema.fields.push_back(field);
  RecordBatch batch{schema, column.length, {column}};
  // Uncompressed: the reference reads it (notes §13.4) and readers need no codec.
  return format::WriteIpcFile(schema, {batch});
}

std::vector<uint8_t> EncodeDeletionBitmap(const Roaring& deleted) {
  const roaring_bitmap_t* r = &deleted.roaring;
  std::vector<uint8_t> out(roaring_bitmap_portable_size_in_bytes(r));
  size_t n = roaring_bitmap_portable_serialize(r, reinterpret_cast<char*>(out.data()));
  out.resize(n);
  return out;
}

Result<lance::table::DeletionFile> WriteDeletionFile(io::ObjectStore& store, const std::string& root,
                                                     uint64_t fragment_id, uint64_t read_version,
                                                     const Roaring& deleted, std::string* written_path) {
  lance::table::DeletionFile file;
  uint64_t count = deleted.cardinality();
  file.set_read_version(read_version);
  file.set_id(RandomU64());
  file.set_num_deleted_rows(count);
  std::string path;
  if (count > kDeletionBitmapThreshold) {
    file.set_file_type(lance::table::DeletionFile::BITMAP);
    path = JoinPath(root, DeletionFileName(fragment_id, file));
    std::vector<uint8_t> bytes = EncodeDeletionBitmap(deleted);
    RETURN_IF_ERROR(store.PutIfAbsent(path, bytes));
  } else {
    file.set_file_type(lance::table::DeletionFile::ARROW_ARRAY);
    path = JoinPath(root, DeletionFileName(fragment_id, file));
    ASSIGN_OR_RETURN(BufferPtr bytes, EncodeDeletionArrow(deleted));
    RETURN_IF_ERROR(store.PutIfAbsent(path, bytes->span()));
  }
  if (written_path != nullptr) *written_path = path;
  return file;
}

}  // namespace lancet::table
