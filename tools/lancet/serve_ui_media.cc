// The UI's blob routes: image bytes, a video row's stream_info and single frames as PNG.
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>

#include "lancet/column_plugin.h"
#include "lancet/json_writer.h"
#include "lancet/media/video.h"
#include "lancet/media/video_stream_info.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/png_write.h"
#include "lancet/serve_ui.h"
#include "lancet/serve_ui_http.h"

namespace lancet::cli {
namespace {

constexpr size_t kMaxColumnBytes = 1024;
// Past this a frame request gives up rather than holding the connection's thread.
constexpr auto kFrameWait = std::chrono::seconds(20);
// Latest timestamp accepted: far past any video, small enough to stay exact in a double.
constexpr double kMaxSeconds = 1e7;

// Only the image types browsers show are served: bytes served as anything else (text/html
// above all) could run as this origin's page.
const char* SniffImageType(std::string_view b) {
  auto starts = [&](std::string_view magic, size_t at = 0) {
    return b.size() >= at + magic.size() && b.substr(at, magic.size()) == magic;
  };
  if (starts("\x89PNG\r\n\x1a\n")) return "image/png";
  if (starts("\xFF\xD8\xFF")) return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a")) return "image/gif";
  if (starts("RIFF") && starts("WEBP", 8)) return "image/webp";
  return nullptr;
}

// The top-level blob column `query` names, checked against the dataset's schema.
Result<std::string> BlobColumn(const table::Dataset& ds, const UiQuery& query) {
  ASSIGN_OR_RETURN(std::string column, UiQueryText(query, "column", kMaxColumnBytes));
  const int index = ds.schema().FieldIndex(column);
  if (index < 0) return Status::NotFound("no column '" + column + "'");
  if (!IsBlobV2Field(ds.schema().fields[static_cast<size_t>(index)])) {
    return Status::InvalidArgument("column '" + column + "' is not a blob column");
  }
  return column;
}

Result<uint64_t> QueryRowId(const UiQuery& query) {
  if (auto it = query.find("row"); it == query.end() || it->second.empty()) {
    return Status::InvalidArgument("'row' is required");
  }
  return UiQueryU64(query, "row", 0, UINT64_MAX);
}

Result<double> Seconds(const UiQuery& query) {
  auto it = query.find("t");
  if (it == query.end()) return 0.0;
  double t = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(t) || t < 0 || t > kMaxSeconds) {
    return Status::InvalidArgument("'t' must be a time in seconds, 0 or more");
  }
  return t;
}

// The row's blob_info when it holds a video plugin's stream_info.
Result<media::VideoStreamInfo> RowVideoInfo(const table::Dataset& ds, const std::string& column, uint64_t row) {
  const uint64_t rows[] = {row};
  ASSIGN_OR_RETURN(auto located, ds.LocateBlobsWithInfo(column, rows));
  if (located.size() != 1 || !located[0]) return Status::NotFound("row " + std::to_string(row) + " holds no blob");
  const auto& info = located[0]->info;
  if (!info || !info->stream_info) {
    return Status::NotSupported("row " + std::to_string(row) + " of '" + column + "' was not ingested as a video");
  }
  const std::span<const uint8_t> bytes = info->stream_info->span();
  if (!media::IsVideoStreamInfo(bytes)) {
    return Status::NotSupported("row " + std::to_string(row) + " of '" + column + "' is not a video");
  }
  return media::ParseVideoStreamInfo(bytes);
}

// Releases a frame slot however the request ends.
class SlotGuard {
 public:
  explicit SlotGuard(std::counting_semaphore<>& slots) : slots_(slots) {}
  ~SlotGuard() { slots_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  std::counting_semaphore<>& slots_;
};

}  // namespace

Result<catalog::RestResponse> UiRoutes::Blob(const Query& query) const {
  ASSIGN_OR_RETURN(auto ds, OpenTable(query));
  ASSIGN_OR_RETURN(std::string column, BlobColumn(*ds, query));
  ASSIGN_OR_RETURN(uint64_t row, QueryRowId(query));
  const uint64_t rows[] = {row};
  // Located first so an oversized blob is refused before a byte of it is read.
  ASSIGN_OR_RETURN(auto located, ds->LocateBlobsWithInfo(column, rows));
  if (located.size() != 1 || !located[0]) return Status::NotFound("row " + std::to_string(row) + " holds no blob");
  if (located[0]->info) {
    return Status::NotSupported("row " + std::to_string(row) + " of '" + column +
                                "' holds a media plugin's stream, not the original file");
  }
  if (located[0]->location.length > options_.max_blob_bytes) {
    return UiError(413, "the blob is larger than " + std::to_string(options_.max_blob_bytes) + " bytes");
  }
  ASSIGN_OR_RETURN(auto taken, ds->TakeBlobs(column, rows));
  if (taken.size() != 1 || !taken[0] || !*taken[0]) {
    return Status::NotFound("row " + std::to_string(row) + " holds no blob");
  }
  const std::string_view bytes = (*taken[0])->view();
  const char* type = SniffImageType(bytes);
  if (type == nullptr) return Status::NotSupported("the blob is not an image (PNG, JPEG, GIF or WebP)");
  catalog::RestResponse r = UiJson(std::string(bytes));
  r.content_type = type;
  return r;
}

Result<catalog::RestResponse> UiRoutes::Video(const Query& query) const {
  ASSIGN_OR_RETURN(auto ds, OpenTable(query));
  ASSIGN_OR_RETURN(std::string column, BlobColumn(*ds, query));
  ASSIGN_OR_RETURN(uint64_t row, QueryRowId(query));
  ASSIGN_OR_RETURN(media::VideoStreamInfo v, RowVideoInfo(*ds, column, row));
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("duration_s");
  w.Double(v.duration_s);
  w.Key("fps");
  w.Double(v.fps);
  w.Key("width");
  w.UInt(v.width);
  w.Key("height");
  w.UInt(v.height);
  w.Key("codec");
  w.String(v.codec);
  w.Key("frames");
  w.UInt(v.frame_count);
  w.Key("gops");
  w.UInt(v.gop_count);
  w.EndObject();
  return UiJson(std::move(body));
}

Result<catalog::RestResponse> UiRoutes::Frame(const Query& query) const {
  ASSIGN_OR_RETURN(auto ds, OpenTable(query));
  ASSIGN_OR_RETURN(std::string column, BlobColumn(*ds, query));
  ASSIGN_OR_RETURN(uint64_t row, QueryRowId(query));
  ASSIGN_OR_RETURN(double t, Seconds(query));
  ASSIGN_OR_RETURN(uint64_t width, UiQueryU64(query, "width", 320, options_.max_frame_width));
  if (width < 16) return Status::InvalidArgument("'width' must be at least 16");
  // A request past the end would select no frame: clamp to the video's last instant.
  ASSIGN_OR_RETURN(media::VideoStreamInfo info, RowVideoInfo(*ds, column, row));
  if (info.duration_s > 0 && t >= info.duration_s) t = std::max(0.0, info.duration_s - 1e-3);
  ASSIGN_OR_RETURN(auto plugin, Plugin(*ds, column));

  media::FrameRequest request = media::FrameRequest::Timestamps({t});
  request.width = static_cast<uint32_t>(width);
  request.threads = 1;  // frames of a strip are decoded in parallel already
  if (!frame_slots_.try_acquire_for(kFrameWait)) return UiError(503, "too many frames are being decoded");
  SlotGuard slot(frame_slots_);
  const uint64_t rows[] = {row};
  ASSIGN_OR_RETURN(auto got, media::ExtractFrames(*ds, column, rows, request, *plugin));
  if (got.size() != 1 || !got[0] || got[0]->empty()) {
    return Status::NotFound("no frame of row " + std::to_string(row) + " at " + std::to_string(t) + " s");
  }
  const media::Frame& f = got[0]->front();
  if (f.format != media::PixelFormat::kRgb24 || !f.bytes) return Status::Internal("the plugin returned no RGB frame");
  ASSIGN_OR_RETURN(std::vector<uint8_t> png, EncodePng(f.bytes->span(), f.width, f.height, 3));
  catalog::RestResponse r = UiJson(std::string(png.begin(), png.end()));
  r.content_type = "image/png";
  return r;
}

Result<std::shared_ptr<media::MediaPlugin>> UiRoutes::Plugin(const table::Dataset& ds,
                                                             const std::string& column) const {
  const Field& field = ds.schema().fields[static_cast<size_t>(ds.schema().FieldIndex(column))];
  auto name = field.metadata.find(media::kMediaPluginKey);
  if (name == field.metadata.end()) return Status::NotSupported("column '" + column + "' records no media plugin");
  // Only from the install's own plugin directories: the name comes from the table.
  ASSIGN_OR_RETURN(std::string library, FindInstalledPlugin(options_.plugin_dirs, name->second));
  std::lock_guard lock(plugins_mutex_);
  auto& slot = plugins_[library];
  if (!slot) {
    media::PluginSpec spec;
    spec.library = library;
    ASSIGN_OR_RETURN(slot, media::MediaPlugin::Load(spec));
  }
  return slot;
}

}  // namespace lancet::cli
