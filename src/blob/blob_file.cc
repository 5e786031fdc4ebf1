#include "lancet/blob/blob_file.h"

#include <algorithm>
#include <vector>

namespace lancet::blob {
namespace {

std::string RowText(table::RowKey key, uint64_t row) {
  return (key == table::RowKey::kRowId ? "row id " : "row address ") + std::to_string(row);
}

}  // namespace

Result<std::unique_ptr<BlobFile>> BlobFile::Open(const table::Dataset& dataset, const std::string& column, uint64_t row,
                                                 table::RowKey key, const BlobFileOptions& options) {
  std::vector<uint64_t> rows = {row};
  ASSIGN_OR_RETURN(auto locations, dataset.LocateBlobs(column, rows, key));
  if (!locations[0]) {
    return Status::NotFound(dataset.uri() + ": blob column '" + column + "' is null at " + RowText(key, row));
  }
  table::BlobLocation location = std::move(*locations[0]);
  std::unique_ptr<io::RandomAccessFile> file;
  if (location.length > 0) {
    auto opened = dataset.OpenBlobObject(location.object);
    if (!opened.ok()) return opened.status().WithContext(dataset.uri() + ": blob column '" + column + "'");
    file = opened.MoveValue();
  }
  return std::unique_ptr<BlobFile>(new BlobFile(std::move(location), std::move(file), options));
}

Result<std::unique_ptr<BlobFile>> BlobFile::Open(table::BlobLocation location,
                                                 std::shared_ptr<io::RandomAccessFile> file,
                                                 const BlobFileOptions& options) {
  if (location.length > 0 && !file) {
    return Status::InvalidArgument(location.object + ": BlobFile needs the open object of a non-empty blob");
  }
  return std::unique_ptr<BlobFile>(new BlobFile(std::move(location), std::move(file), options));
}

Status BlobFile::seek(uint64_t position) {
  if (position > size()) {
    return Status::InvalidArgument(location_.object + ": cannot seek to " + std::to_string(position) +
                                   ", past the end of the " + std::to_string(size()) + "-byte blob");
  }
  position_ = position;
  return Status::OK();
}

Result<BufferPtr> BlobFile::read(uint64_t n) {
  uint64_t end = position_ + std::min(n, size() - position_);
  ASSIGN_OR_RETURN(BufferPtr bytes, Fetch(position_, end));
  position_ = end;
  return bytes;
}

Result<BufferPtr> BlobFile::read_range(uint64_t start, uint64_t end) {
  if (start > end || end > size()) {
    return Status::InvalidArgument(location_.object + ": blob range [" + std::to_string(start) + ", " +
                                   std::to_string(end) + ") is not inside the " + std::to_string(size()) +
                                   "-byte blob");
  }
  return Fetch(start, end);
}

Result<BufferPtr> BlobFile::Fetch(uint64_t start, uint64_t end) {
  if (start == end) return BufferPtr(Buffer::Empty());
  if (window_ && start >= window_start_ && end - window_start_ <= window_->size()) {
    return BufferPtr(Buffer::Slice(window_, start - window_start_, end - start));
  }
  uint64_t want = std::min(std::max(end - start, options_.read_ahead), size() - start);
  ASSIGN_OR_RETURN(window_, file_->ReadAt(location_.offset + start, want));
  window_start_ = start;
  return BufferPtr(Buffer::Slice(window_, 0, end - start));
}

}  // namespace lancet::blob
