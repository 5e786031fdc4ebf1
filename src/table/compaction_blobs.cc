#include "table/compaction_blobs.h"

#include <map>
#include <optional>
#include <vector>

#include "table/blob.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

constexpr uint64_t kMaxBytesPerRead = 64ULL << 20;

// The stored bytes of each row, blob_info rows included: compaction moves a plugin's
// stream as it is and never re-ingests it.
Result<std::vector<BufferPtr>> StoredBytes(const Dataset& dataset, const std::string& column,
                                           std::span<const uint64_t> row_ids, std::vector<bool>* has_info) {
  ASSIGN_OR_RETURN(auto located, dataset.LocateBlobsWithInfo(column, row_ids));
  std::vector<BufferPtr> out(located.size(), Buffer::Empty());
  has_info->assign(located.size(), false);
  std::map<std::string, std::vector<size_t>> by_object;
  for (size_t k = 0; k < located.size(); ++k) {
    if (!located[k]) continue;
    (*has_info)[k] = located[k]->info.has_value();
    if (located[k]->location.length > 0) by_object[located[k]->location.object].push_back(k);
  }
  for (const auto& [object, rows] : by_object) {
    ASSIGN_OR_RETURN(auto file, dataset.store()->OpenRead(object));
    std::vector<io::ByteRange> ranges;
    for (size_t k : rows) ranges.push_back({located[k]->location.offset, located[k]->location.length});
    ASSIGN_OR_RETURN(std::vector<BufferPtr> bytes, file->ReadMany(ranges));
    for (size_t i = 0; i < rows.size(); ++i) out[rows[i]] = std::move(bytes[i]);
  }
  return out;
}

}  // namespace

Result<Array> ReplaceBlobs(const Dataset& dataset, const std::string& column, const Array& descriptors,
                           std::span<const uint64_t> row_ids, const BlobThresholds& thresholds, size_t sink_column,
                           BlobSink* sink) {
  const int64_t n = descriptors.length;
  const Array& kind = descriptors.children[0];
  const Array& position = descriptors.children[1];
  const Array& size = descriptors.children[2];
  const Array& blob_id = descriptors.children[3];
  const Array& uri = descriptors.children[4];
  std::vector<uint8_t> kinds(static_cast<size_t>(n), 0);
  std::vector<uint64_t> positions(static_cast<size_t>(n), 0), sizes(static_cast<size_t>(n), 0);
  std::vector<uint32_t> ids(static_cast<size_t>(n), 0);
  std::vector<std::optional<std::string>> uris(static_cast<size_t>(n), std::string());
  std::vector<bool> valid(static_cast<size_t>(n), true);
  // Rows whose bytes are copied, gathered until kMaxBytesPerRead, then read at once.
  std::vector<int64_t> pending;
  std::vector<uint64_t> pending_ids;
  uint64_t pending_bytes = 0;
  auto flush = [&]() -> Status {
    if (pending.empty()) return Status::OK();
    std::vector<bool> has_info;
    ASSIGN_OR_RETURN(auto bytes, StoredBytes(dataset, column, pending_ids, &has_info));
    // A value with blob_info stays in a sidecar, where extraction expects it.
    BlobThresholds sidecar_only = thresholds;
    sidecar_only.inline_max = 0;
    for (size_t k = 0; k < pending.size(); ++k) {
      size_t row = static_cast<size_t>(pending[k]);
      ASSIGN_OR_RETURN(StoredBlob stored,
                       sink->Put(sink_column, has_info[k] ? sidecar_only : thresholds, bytes[k]->span()));
      kinds[row] = static_cast<uint8_t>(stored.kind);
      positions[row] = stored.position;
      sizes[row] = stored.size;
      ids[row] = stored.blob_id;
    }
    pending.clear();
    pending_ids.clear();
    pending_bytes = 0;
    return Status::OK();
  };
  for (int64_t i = 0; i < n; ++i) {
    size_t row = static_cast<size_t>(i);
    if (descriptors.IsNull(i)) {
      valid[row] = false;
      continue;
    }
    uint8_t k = kind.values<uint8_t>()[i];
    if (k == static_cast<uint8_t>(BlobKind::kExternal)) {
      kinds[row] = k;
      positions[row] = position.values<uint64_t>()[i];
      sizes[row] = size.values<uint64_t>()[i];
      ids[row] = blob_id.values<uint32_t>()[i];
      uris[row] = std::string(uri.GetView(i));
      continue;
    }
    pending.push_back(i);
    pending_ids.push_back(row_ids[row]);
    pending_bytes += size.values<uint64_t>()[i];
    if (pending_bytes >= kMaxBytesPerRead) RETURN_IF_ERROR(flush());
  }
  RETURN_IF_ERROR(flush());
  const DataType& type = descriptors.type;
  std::vector<Array> children;
  ASSIGN_OR_RETURN(Array kind_out, ArrayFromVector(type.children[0].type, kinds));
  ASSIGN_OR_RETURN(Array position_out, ArrayFromVector(type.children[1].type, positions));
  ASSIGN_OR_RETURN(Array size_out, ArrayFromVector(type.children[2].type, sizes));
  ASSIGN_OR_RETURN(Array id_out, ArrayFromVector(type.children[3].type, ids));
  ASSIGN_OR_RETURN(Array uri_out, MakeBinaryArray(type.children[4].type, uris));
  std::vector<Array> members = {kind_out, position_out, size_out, id_out, uri_out};
  // Format 2.3: blob_info moves with its row, byte for byte.
  if (descriptors.children.size() > 5) {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = descriptors.offset + i;
    ASSIGN_OR_RETURN(Array info, TakeRows(descriptors.children[5], rows));
    members.push_back(std::move(info));
  }
  return MakeStructArray(type, n, std::move(members), valid);
}

}  // namespace lancet::table
