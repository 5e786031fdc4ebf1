#include "lancet/blob/blob_ranges.h"

#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "util/thread_pool.h"

namespace lancet::blob {
namespace {

std::string RowText(table::RowKey key, uint64_t row) {
  return (key == table::RowKey::kRowId ? "row id " : "row address ") + std::to_string(row);
}

std::string RangeText(const BlobRange& r) {
  return "[" + std::to_string(r.offset) + ", " + std::to_string(r.offset) + "+" + std::to_string(r.length) + ")";
}

// The ranges of one object and the outputs they fill.
struct ObjectReads {
  std::vector<io::ByteRange> ranges;
  std::vector<size_t> outputs;
};

}  // namespace

Result<std::vector<BufferPtr>> ReadBlobRanges(const table::Dataset& dataset, const std::string& column,
                                              std::span<const BlobRange> ranges, const BlobReadOptions& options) {
  if (options.parallel_objects < 1) {
    return Status::InvalidArgument("ReadBlobRanges: parallel_objects must be at least 1, got " +
                                   std::to_string(options.parallel_objects));
  }
  std::vector<uint64_t> rows;
  std::unordered_map<uint64_t, size_t> row_index;
  for (const BlobRange& r : ranges) {
    if (row_index.emplace(r.row, rows.size()).second) rows.push_back(r.row);
  }
  ASSIGN_OR_RETURN(auto locations, dataset.LocateBlobs(column, rows, options.key));

  std::vector<BufferPtr> out(ranges.size());
  std::map<std::string, ObjectReads> by_object;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const BlobRange& r = ranges[i];
    const std::optional<table::BlobLocation>& loc = locations[row_index.at(r.row)];
    std::string where = dataset.uri() + ": blob column '" + column + "' at " + RowText(options.key, r.row);
    if (!loc) return Status::InvalidArgument(where + " is null, so range " + RangeText(r) + " cannot be read");
    if (r.length > std::numeric_limits<uint64_t>::max() - r.offset)
      return Status::InvalidArgument(where + ": range " + RangeText(r) + " overflows");
    if (r.offset + r.length > loc->length) {
      return Status::InvalidArgument(where + ": range " + RangeText(r) + " ends past the blob's " +
                                     std::to_string(loc->length) + " bytes");
    }
    if (r.length == 0) {
      out[i] = Buffer::Empty();
      continue;
    }
    ObjectReads& reads = by_object[loc->object];
    reads.ranges.push_back({loc->offset + r.offset, r.length});
    reads.outputs.push_back(i);
  }

  std::vector<std::pair<const std::string*, ObjectReads*>> work;
  for (auto& [object, reads] : by_object) work.emplace_back(&object, &reads);
  std::vector<Status> statuses(work.size());
  ParallelFor(ThreadPool::Io(), work.size(), static_cast<size_t>(options.parallel_objects), [&](size_t w) {
    statuses[w] = [&]() -> Status {
      const ObjectReads& reads = *work[w].second;
      auto file = dataset.OpenBlobObject(*work[w].first);
      if (!file.ok()) return file.status().WithContext(dataset.uri() + ": blob column '" + column + "'");
      ASSIGN_OR_RETURN(std::vector<BufferPtr> bufs, (*file)->ReadMany(reads.ranges, options.io));
      // Each task fills only its own outputs.
      for (size_t k = 0; k < reads.outputs.size(); ++k) out[reads.outputs[k]] = std::move(bufs[k]);
      return Status::OK();
    }();
  });
  for (const Status& st : statuses) RETURN_IF_ERROR(st);
  return out;
}

}  // namespace lancet::blob
