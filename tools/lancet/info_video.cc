#include "lancet/info_video.h"

#include <cstdio>
#include <map>

#include "lancet/media/video_stream_info.h"

namespace lancet::cli {
namespace {

struct VideoRow {
  uint64_t row_id = 0;
  media::VideoStreamInfo info;
};

// The rows of `rows` (one blob column's) that hold video stream_info, parsed.
Result<std::vector<VideoRow>> VideoRows(const std::string& column, std::span<const StreamInfoRow> rows) {
  std::vector<VideoRow> out;
  for (const StreamInfoRow& r : rows) {
    std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(r.stream_info.data()), r.stream_info.size());
    if (!media::IsVideoStreamInfo(span)) continue;
    auto parsed = media::ParseVideoStreamInfo(span);
    if (!parsed.ok()) {
      return Status::Corruption("column '" + column + "' row id " + std::to_string(r.row_id) + ": " +
                                parsed.status().message());
    }
    out.push_back({r.row_id, std::move(*parsed)});
  }
  return out;
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

Status AppendVideoRows(std::string& out, const std::string& column, std::span<const StreamInfoRow> rows,
                       uint64_t list_limit) {
  ASSIGN_OR_RETURN(std::vector<VideoRow> video, VideoRows(column, rows));
  if (video.empty()) return Status::OK();
  out += "\nVideo rows of '" + column + "' (" + std::to_string(video.size()) + "):\n";
  if (video.size() <= list_limit) {
    for (const VideoRow& r : video) out += RowLine(r);
  } else {
    out += Summary(video);
  }
  return Status::OK();
}

}  // namespace lancet::cli
