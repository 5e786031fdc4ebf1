// ExtractFrames and ExtractClip: video requests through Extract, results checked.
#include <chrono>
#include <cstdio>

#include "lancet/media/video.h"
#include "media/extract_steps.h"
#include "media/video_wire.h"

namespace lancet::media {
namespace {

std::string RowWhere(const table::Dataset& dataset, const std::string& column, const ExtractOptions& options,
                     uint64_t row) {
  return dataset.uri() + ": blob column '" + column + "' " + RowName(options, row);
}

std::span<const uint8_t> MetadataBytes(const DecodedOutput& out) {
  return {reinterpret_cast<const uint8_t*>(out.metadata.data()), out.metadata.size()};
}

}  // namespace

const char* PixelFormatName(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRgb24:
      return "rgb24";
    case PixelFormat::kGray8:
      return "gray8";
    case PixelFormat::kYuv420p:
      return "yuv420p";
  }
  return "unknown";
}

uint64_t FrameBytes(PixelFormat format, uint32_t width, uint32_t height) {
  const uint64_t w = width, h = height;
  switch (format) {
    case PixelFormat::kRgb24:
      return w * h * 3;
    case PixelFormat::kGray8:
      return w * h;
    case PixelFormat::kYuv420p:
      return w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2);
  }
  return 0;
}

FrameRequest FrameRequest::Window(double t0, double t1) {
  FrameRequest r;
  r.kind = Kind::kWindow;
  r.t0 = t0;
  r.t1 = t1;
  return r;
}

FrameRequest FrameRequest::Frames(std::vector<uint64_t> indices) {
  FrameRequest r;
  r.kind = Kind::kFrames;
  r.frames = std::move(indices);
  return r;
}

FrameRequest FrameRequest::Timestamps(std::vector<double> seconds) {
  FrameRequest r;
  r.kind = Kind::kTimestamps;
  r.timestamps = std::move(seconds);
  return r;
}

namespace {

// ExtractFrames after resolve; adds to `st` (the callers reset it).
Result<std::vector<std::optional<std::vector<Frame>>>> FramesOf(const ResolvedBlobs& resolved,
                                                                const FrameRequest& request, const MediaPlugin& plugin,
                                                                const ExtractOptions& options, ExtractFramesStats& st) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> req, video_wire::EncodeFrameRequest(request));
  ExtractStats extract;
  ASSIGN_OR_RETURN(auto outputs, Extract(resolved, req, plugin, options, &extract));
  extract.resolve_ns = st.extract.resolve_ns;
  st.extract = extract;
  StepTimer timer(&st.extract.decode_ns);
  ExtractOptions named = options;
  named.key = resolved.key;
  std::vector<std::optional<std::vector<Frame>>> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) continue;
    auto frames = video_wire::ParseFrames(MetadataBytes(*outputs[i]), outputs[i]->data);
    if (!frames.ok()) {
      return Status::Corruption(resolved.where + " " + RowName(named, resolved.rows[i]) + ": plugin '" +
                                plugin.name() + "' (" + plugin.library() +
                                ") returned bad frames: " + frames.status().message());
    }
    for (const Frame& f : *frames) st.frame_bytes += f.bytes->size();
    st.frames += frames->size();
    out[i] = std::move(*frames);
  }
  return out;
}

}  // namespace

Result<std::vector<std::optional<std::vector<Frame>>>> ExtractFrames(const ResolvedBlobs& resolved,
                                                                     const FrameRequest& request,
                                                                     const MediaPlugin& plugin,
                                                                     const ExtractOptions& options,
                                                                     ExtractFramesStats* stats) {
  ExtractFramesStats local;
  ExtractFramesStats& st = stats ? *stats : local;
  st = {};
  return FramesOf(resolved, request, plugin, options, st);
}

Result<std::vector<std::optional<std::vector<Frame>>>> ExtractFrames(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    const FrameRequest& request, const MediaPlugin& plugin, const ExtractOptions& options,
    ExtractFramesStats* stats) {
  ExtractFramesStats local;
  ExtractFramesStats& st = stats ? *stats : local;
  st = {};
  ResolvedBlobs resolved;
  {
    StepTimer timer(&st.extract.resolve_ns);
    ASSIGN_OR_RETURN(resolved, Resolve(dataset, column, rows, options));
  }
  return FramesOf(resolved, request, plugin, options, st);
}

Result<Clip> ExtractClip(const table::Dataset& dataset, const std::string& column, uint64_t row, double t0,
                         double t1, const MediaPlugin& plugin, const ExtractOptions& options) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> req, video_wire::EncodeClipRequest(t0, t1));
  const uint64_t rows[] = {row};
  ASSIGN_OR_RETURN(auto outputs, Extract(dataset, column, rows, req, plugin, options));
  if (outputs.size() != 1 || !outputs[0]) {
    return Status::NotFound(RowWhere(dataset, column, options, row) + " is a null blob");
  }
  auto record = video_wire::ParseClipRecord(MetadataBytes(*outputs[0]));
  if (!record.ok()) {
    return Status::Corruption(RowWhere(dataset, column, options, row) + ": plugin '" + plugin.name() + "' (" +
                              plugin.library() + ") returned a bad clip: " + record.status().message());
  }
  Clip clip;
  clip.mp4 = outputs[0]->data ? outputs[0]->data : Buffer::Empty();
  clip.frames = record->frames;
  clip.start_s = record->start_s;
  clip.end_s = record->end_s;
  return clip;
}

Result<Clip> ExtractClipToFile(const table::Dataset& dataset, const std::string& column, uint64_t row, double t0,
                               double t1, const MediaPlugin& plugin, const std::string& path,
                               const ExtractOptions& options) {
  ASSIGN_OR_RETURN(Clip clip, ExtractClip(dataset, column, row, t0, t1, plugin, options));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError(path + ": cannot create");
  const size_t n = static_cast<size_t>(clip.mp4->size());
  bool ok = n == 0 || std::fwrite(clip.mp4->data(), 1, n, f) == n;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::remove(path.c_str());  // no truncated MP4 left behind
    return Status::IOError(path + ": write failed");
  }
  return clip;
}

}  // namespace lancet::media
