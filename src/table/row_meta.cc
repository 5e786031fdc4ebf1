#include "table/row_meta.h"

#include <algorithm>
#include <cstring>

#include "lance_proto/rowids.pb.h"
#include "table/row_id_sequence.h"

namespace lancet::table {

std::optional<RowMeta> RowMetaFromName(std::string_view name) {
  if (name == "_rowid") return RowMeta::kRowId;
  if (name == "_rowaddr") return RowMeta::kRowAddr;
  if (name == "_row_created_at_version") return RowMeta::kCreatedAt;
  if (name == "_row_last_updated_at_version") return RowMeta::kLastUpdated;
  return std::nullopt;
}

const char* RowMetaName(RowMeta meta) {
  switch (meta) {
    case RowMeta::kRowId:
      return "_rowid";
    case RowMeta::kRowAddr:
      return "_rowaddr";
    case RowMeta::kCreatedAt:
      return "_row_created_at_version";
    case RowMeta::kLastUpdated:
      return "_row_last_updated_at_version";
  }
  return "";
}

Field RowMetaField(RowMeta meta) { return MakeField(RowMetaName(meta), MakeType(TypeId::kUInt64), false); }

Status NoLineageError(const std::string& dataset, RowMeta meta) {
  return Status::InvalidArgument(dataset + " has no stable row ids; " + RowMetaName(meta) +
                                 " is only tracked when the table is created with stable row ids");
}

Array UInt64Array(const std::vector<uint64_t>& values) {
  Array a;
  a.type = MakeType(TypeId::kUInt64);
  a.length = static_cast<int64_t>(values.size());
  a.buffers = {nullptr, Buffer::Copy(std::string_view(reinterpret_cast<const char*>(values.data()),
                                                      values.size() * sizeof(uint64_t)))};
  return a;
}

RowVersions RowVersions::Constant(uint64_t rows, uint64_t version) {
  RowVersions v;
  if (rows > 0) {
    v.ends_.push_back(rows);
    v.versions_.push_back(version);
  }
  return v;
}

Result<RowVersions> RowVersions::Parse(const std::string& bytes, uint64_t physical_rows, const std::string& context) {
  lance::table::RowDatasetVersionSequence pb;
  if (!pb.ParseFromString(bytes)) {
    return Status::Corruption(context + ": row version sequence is not a valid protobuf");
  }
  RowVersions out;
  uint64_t covered = 0;
  for (const auto& run : pb.runs()) {
    // Only a span's length counts (lineage-notes §0.8); the row id parser knows the
    // length of every U64Segment kind and checks its shape.
    lance::table::RowIdSequence one;
    *one.add_segments() = run.span();
    std::string span = one.SerializeAsString();
    ASSIGN_OR_RETURN(RowIdSequence parsed,
                     RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(span.data()), span.size()}, context));
    if (parsed.size() > physical_rows - covered) {
      return Status::Corruption(context + ": row version runs cover more than the fragment's " +
                                std::to_string(physical_rows) + " rows");
    }
    if (parsed.size() == 0) continue;
    covered += parsed.size();
    out.ends_.push_back(covered);
    out.versions_.push_back(run.version());
  }
  if (covered != physical_rows) {
    return Status::Corruption(context + ": row version runs cover " + std::to_string(covered) + " of the fragment's " +
                              std::to_string(physical_rows) + " rows");
  }
  return out;
}

uint64_t RowVersions::Get(uint64_t offset) const {
  size_t run = static_cast<size_t>(std::upper_bound(ends_.begin(), ends_.end(), offset) - ends_.begin());
  return versions_[run];
}

void RowVersions::AppendRange(uint64_t begin, uint64_t end, std::vector<uint64_t>* out) const {
  size_t run = static_cast<size_t>(std::upper_bound(ends_.begin(), ends_.end(), begin) - ends_.begin());
  for (uint64_t o = begin; o < end; ++run) {
    uint64_t stop = std::min(end, ends_[run]);
    out->insert(out->end(), stop - o, versions_[run]);
    o = stop;
  }
}

}  // namespace lancet::table
