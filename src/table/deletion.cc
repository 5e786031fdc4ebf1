#include "table/deletion.h"

#include <roaring/roaring.h>

#include "format/ipc_reader.h"

namespace lancet::table {

std::string DeletionFileName(uint64_t fragment_id, const lance::table::DeletionFile& file) {
  const char* suffix = file.file_type() == lance::table::DeletionFile::BITMAP ? "bin" : "arrow";
  return "_deletions/" + std::to_string(fragment_id) + "-" + std::to_string(file.read_version()) + "-" +
         std::to_string(file.id()) + "." + suffix;
}

Result<Roaring> ParsePortableRoaring(std::span<const uint8_t> bytes, const std::string& what) {
  const char* data = reinterpret_cast<const char*>(bytes.data());
  // The size probe walks the headers without allocating, so garbage is rejected before
  // CRoaring allocates containers for it.
  size_t needed = roaring_bitmap_portable_deserialize_size(data, bytes.size());
  if (needed == 0) return Status::Corruption(what + " is not a portable Roaring bitmap");
  if (needed != bytes.size()) {
    return Status::Corruption(what + " has " + std::to_string(bytes.size() - needed) +
                              " bytes after its Roaring bitmap");
  }
  roaring_bitmap_t* raw = roaring_bitmap_portable_deserialize_safe(data, bytes.size());
  if (raw == nullptr) return Status::Corruption(what + " is not a portable Roaring bitmap");
  return Roaring(raw);
}

Result<Roaring> ParseDeletionBitmap(std::span<const uint8_t> bytes, const std::string& path) {
  return ParsePortableRoaring(bytes, path + ": deletion file");
}

Result<Roaring> ParseDeletionArrow(BufferPtr bytes, const std::string& path) {
  auto batches = format::ReadIpcFile(bytes);
  if (!batches.ok()) {
    return Status(batches.status().code(), path + ": deletion file is not a readable Arrow IPC file: " +
                                               batches.status().message());
  }
  if (batches->size() != 1) {
    return Status::Corruption(path + ": deletion file holds " + std::to_string(batches->size()) +
                              " record batches; exactly one is expected");
  }
  const RecordBatch& batch = (*batches)[0];
  if (batch.columns.size() != 1 || batch.columns[0].type.id != TypeId::kUInt32) {
    return Status::Corruption(path + ": deletion file must hold exactly one UInt32 column, found schema " +
                              batch.schema.ToString());
  }
  const Array& col = batch.columns[0];
  if (col.null_count != 0) return Status::Corruption(path + ": deletion file contains null offsets");
  if (col.length > 0 && (col.buffers.size() < 2 || !col.buffers[1] ||
                         col.buffers[1]->size() < static_cast<uint64_t>(col.offset + col.length) * 4)) {
    return Status::Corruption(path + ": deletion file's offset column is shorter than its length");
  }
  Roaring out;
  const uint32_t* values = col.length > 0 ? col.values<uint32_t>() : nullptr;
  for (int64_t i = 0; i < col.length; ++i) {
    if (col.IsNull(i)) return Status::Corruption(path + ": deletion file contains null offsets");
    out.add(values[i]);
  }
  return out;
}

Result<Roaring> ReadDeletionFile(const io::ObjectStore& store, const std::string& path,
                                 lance::table::DeletionFile::DeletionFileType type, uint64_t physical_rows,
                                 uint64_t expected_deleted) {
  ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, store.OpenRead(path));
  ASSIGN_OR_RETURN(uint64_t size, file->Size());
  ASSIGN_OR_RETURN(BufferPtr bytes, file->ReadAt(0, size));
  Roaring deleted;
  if (type == lance::table::DeletionFile::BITMAP) {
    ASSIGN_OR_RETURN(deleted, ParseDeletionBitmap(bytes->span(), path));
  } else if (type == lance::table::DeletionFile::ARROW_ARRAY) {
    ASSIGN_OR_RETURN(deleted, ParseDeletionArrow(bytes, path));
  } else {
    return Status::NotSupported(path + ": unknown deletion file type " + std::to_string(static_cast<int>(type)));
  }
  uint64_t count = deleted.cardinality();
  if (count > 0 && deleted.maximum() >= physical_rows) {
    return Status::Corruption(path + ": deletes row offset " + std::to_string(deleted.maximum()) +
                              " of a fragment with " + std::to_string(physical_rows) + " rows");
  }
  if (count != expected_deleted) {
    return Status::Corruption(path + ": deletes " + std::to_string(count) + " rows but the manifest says " +
                              std::to_string(expected_deleted));
  }
  return deleted;
}

}  // namespace lancet::table
