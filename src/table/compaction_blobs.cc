#include "table/compaction_blobs.h"

#include <optional>
#include <vector>

#include "table/blob.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

constexpr uint64_t kMaxBytesPerRead = 64ULL << 20;

}  // namespace

Result<Array> InlineBlobs(const Dataset& dataset, const std::string& column, const Array& descriptors,
                          std::span<const uint64_t> row_ids, format::FileWriter* writer) {
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
    ASSIGN_OR_RETURN(auto bytes, dataset.TakeBlobs(column, pending_ids));
    for (size_t k = 0; k < pending.size(); ++k) {
      size_t row = static_cast<size_t>(pending[k]);
      uint64_t len = bytes[k] && *bytes[k] ? (*bytes[k])->size() : 0;
      sizes[row] = len;
      if (len > 0) {
        ASSIGN_OR_RETURN(positions[row], writer->WriteRawBuffer((*bytes[k])->span()));
      }
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
  return MakeStructArray(type, n, {kind_out, position_out, size_out, id_out, uri_out}, valid);
}

}  // namespace lancet::table
