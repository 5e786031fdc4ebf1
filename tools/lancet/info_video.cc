#include "lancet/info_video.h"

#include <cstdio>
#include <map>

#include "lancet/media/video_stream_info.h"
#include "lancet/media/write_blob_info.h"

namespace lancet::cli {
namespace {

const Array* Child(const Array& s, const std::string& name) {
  for (size_t i = 0; i < s.type.children.size() && i < s.children.size(); ++i) {
    if (s.type.children[i].name == name) return &s.children[i];
  }
  return nullptr;
}

struct VideoRow {
  uint64_t row_id = 0;
  media::VideoStreamInfo info;
};

// The video rows of blob column `column`, in row order.
Result<std::vector<VideoRow>> VideoRows(const table::Dataset& ds, const std::string& column) {
  table::ScanOptions scan;
  scan.columns = {column};
  scan.with_row_id = true;
  ASSIGN_OR_RETURN(auto batches, ds.Scan(scan));
  std::vector<VideoRow> rows;
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
      const std::string_view bytes = stream->GetView(m);
      std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      if (!media::IsVideoStreamInfo(span)) continue;
      const uint64_t id = ids.values<uint64_t>()[i];
      auto parsed = media::ParseVideoStreamInfo(span);
      if (!parsed.ok()) {
        return Status::Corruption("column '" + column + "' row id " + std::to_string(id) + ": " +
                                  parsed.status().message());
      }
      rows.push_back({id, std::move(*parsed)});
    }
  }
  return rows;
}

std::string Resolution(const media::VideoStreamInfo& v) {
  return std::to_string(v.width) + "x" + std::to_string(v.height);
}

std::string RowLine(const VideoRow& r) {
  const auto& v = r.info;
  char line[256];
  std::snprintf(line, sizeof(line), "    row %llu: %.3f s, %.3f fps, %s, %s, %llu frames, %llu GOPs%s\n",
                static_cast<unsigned long long>(r.row_id), v.duration_s, v.fps, Resolution(v).c_str(),
                v.codec.empty() ? "?" : v.codec.c_str(), static_cast<unsigned long long>(v.frame_count),
                static_cast<unsigned long long>(v.gop_count), v.b_frames ? ", B-frames" : "");
  return line;
}

std::string Summary(const std::vector<VideoRow>& rows) {
  double total = 0;
  uint64_t frames = 0, gops = 0;
  std::map<std::string, uint64_t> sizes, codecs;
  for (const VideoRow& r : rows) {
    total += r.info.duration_s;
    frames += r.info.frame_count;
    gops += r.info.gop_count;
    ++sizes[Resolution(r.info)];
    ++codecs[r.info.codec.empty() ? "?" : r.info.codec];
  }
  auto list = [](const std::map<std::string, uint64_t>& m) {
    std::string s;
    for (const auto& [k, n] : m) s += (s.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    return s;
  };
  char line[160];
  std::snprintf(line, sizeof(line), "    %zu rows, %.3f s in total, %llu frames, %llu GOPs\n", rows.size(), total,
                static_cast<unsigned long long>(frames), static_cast<unsigned long long>(gops));
  return line + ("    resolutions: " + list(sizes) + "\n    codecs: " + list(codecs) + "\n");
}

}  // namespace

Status AppendVideoRows(std::string& out, const table::Dataset& ds, uint64_t list_limit) {
  for (const Field& f : ds.schema().fields) {
    if (!IsBlobV2Field(f) || f.metadata.count(media::kMediaPluginKey) == 0) continue;
    auto rows = VideoRows(ds, f.name);
    if (!rows.ok()) return rows.status().WithContext(ds.uri());
    if (rows->empty()) continue;
    out += "\nVideo rows of '" + f.name + "' (" + std::to_string(rows->size()) + "):\n";
    if (rows->size() <= list_limit) {
      for (const VideoRow& r : *rows) out += RowLine(r);
    } else {
      out += Summary(*rows);
    }
  }
  return Status::OK();
}

}  // namespace lancet::cli
