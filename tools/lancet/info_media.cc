#include "lancet/info_media.h"

#include <utility>

#include "lancet/info_audio.h"
#include "lancet/info_video.h"
#include "lancet/media/write_blob_info.h"

namespace lancet::cli {
namespace {

const Array* Child(const Array& s, const std::string& name) {
  for (size_t i = 0; i < s.type.children.size() && i < s.children.size(); ++i) {
    if (s.type.children[i].name == name) return &s.children[i];
  }
  return nullptr;
}

}  // namespace

Result<std::vector<StreamInfoRow>> StreamInfoRows(const table::Dataset& ds, const std::string& column) {
  table::ScanOptions scan;
  scan.columns = {column};
  scan.with_row_id = true;
  ASSIGN_OR_RETURN(auto batches, ds.Scan(scan));
  std::vector<StreamInfoRow> rows;
  for (const RecordBatch& b : batches) {
    if (b.columns.size() < 2) continue;
    const Array& desc = b.columns[0];
    const Array& ids = b.columns.back();
    const Array* info = Child(desc, "blob_info");
    if (info == nullptr || ids.type.id != TypeId::kUInt64) continue;
    const Array* type = Child(*info, "blob_type");
    const Array* stream = Child(*info, "stream_info");
    if (type == nullptr || stream == nullptr || type->type.id != TypeId::kUInt8) continue;
    if (stream->type.id != TypeId::kBinary && stream->type.id != TypeId::kLargeBinary) continue;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      // Struct children are indexed with the parents' offsets added (Arrow's rule).
      const int64_t d = desc.offset + i;
      if (!desc.IsValid(i) || !info->IsValid(d)) continue;
      const int64_t m = info->offset + d;
      if (!type->IsValid(m) || type->values<uint8_t>()[m] == 0 || !stream->IsValid(m)) continue;
      rows.push_back({ids.values<uint64_t>()[i], std::string(stream->GetView(m))});
    }
  }
  return rows;
}

Status AppendMediaRows(std::string& out, const table::Dataset& ds, uint64_t list_limit) {
  std::vector<std::pair<std::string, std::vector<StreamInfoRow>>> columns;
  for (const Field& f : ds.schema().fields) {
    if (!IsBlobV2Field(f) || f.metadata.count(media::kMediaPluginKey) == 0) continue;
    auto rows = StreamInfoRows(ds, f.name);
    if (!rows.ok()) return rows.status().WithContext(ds.uri());
    columns.emplace_back(f.name, std::move(*rows));
  }
  for (const auto& [column, rows] : columns) {
    if (Status st = AppendVideoRows(out, column, rows, list_limit); !st.ok()) return st.WithContext(ds.uri());
  }
  for (const auto& [column, rows] : columns) {
    if (Status st = AppendAudioRows(out, column, rows, list_limit); !st.ok()) return st.WithContext(ds.uri());
  }
  return Status::OK();
}

}  // namespace lancet::cli
