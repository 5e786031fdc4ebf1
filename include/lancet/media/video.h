// Video frames and clips out of blob columns ingested by the video plugin
// (liblancet_video_ffmpeg.so), through Extract: one small range read per GOP needed.
// Codec-free: the requests and results are the wire formats of lancet/media_video.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/media/extract.h"
#include "lancet/media/plugin_host.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::media {

/// Pixel layouts of decoded frames (values are LANCET_VIDEO_PIX_*).
enum class PixelFormat : uint8_t { kRgb24 = 0, kGray8 = 1, kYuv420p = 2 };

/// "rgb24", "gray8", "yuv420p".
const char* PixelFormatName(PixelFormat format);
/// Bytes of one tightly packed frame of `width` x `height` (YUV420P: chroma planes of
/// ceil(w/2) x ceil(h/2)).
uint64_t FrameBytes(PixelFormat format, uint32_t width, uint32_t height);

/// \brief Which frames to decode, and how.
///
/// Exactly one selection: a time window [t0, t1) in seconds, frame indices (presentation
/// order from 0) or timestamps (the frame shown at each time). Build one with Window,
/// Frames or Timestamps and set the rest as needed.
struct FrameRequest {
  enum class Kind : uint8_t { kWindow = 1, kFrames = 2, kTimestamps = 3 };
  Kind kind = Kind::kWindow;
  double t0 = 0;
  double t1 = 0;
  std::vector<uint64_t> frames;
  std::vector<double> timestamps;
  bool keyframes_only = false;  // only the keyframes among the selected frames
  PixelFormat format = PixelFormat::kRgb24;
  uint32_t width = 0;  // 0 = source (both 0: source size; one 0: keep the aspect ratio)
  uint32_t height = 0;
  uint32_t threads = 0;  // decoder threads, 0 = the plugin's default
  // true: bit-exact bicubic conversion (the same pixels on every CPU, as the ffmpeg CLI's
  // bitexact flags); false: libswscale's fast path, about 3x cheaper, what PyAV and
  // torchvision use, for training loaders.
  bool exact = true;

  static FrameRequest Window(double t0, double t1);
  static FrameRequest Frames(std::vector<uint64_t> indices);
  static FrameRequest Timestamps(std::vector<double> seconds);
};

/// One decoded frame. `bytes` views the plugin's output buffer (tightly packed rows).
struct Frame {
  uint64_t index = 0;  // presentation order from 0
  int64_t pts = 0;     // stream time base; INT64_MIN when unknown
  double time_s = 0;
  uint32_t width = 0;
  uint32_t height = 0;
  PixelFormat format = PixelFormat::kRgb24;
  BufferPtr bytes;
};

/// Extract's counters and step times plus what the frames came to.
struct ExtractFramesStats {
  ExtractStats extract;
  uint64_t frames = 0;
  uint64_t frame_bytes = 0;
};

/// \brief The frames `request` selects from each row of video column `column`: one
/// Extract for all rows, so the GOPs of every row are read with one ReadMany per object.
///
/// Output: one entry per row, nullopt for a null blob; frames in ascending index; an
/// empty list when the selection holds no frame (a window past the end).
///
/// Errors: InvalidArgument for an empty, negative or non-finite selection or t1 < t0;
/// the plugin's errors (a frame index past the end names the frame count; a plugin that
/// is not the video plugin rejects the request); Corruption (naming the row and the
/// plugin) when the plugin's frame records do not fit its output; everything Extract
/// reports.
Result<std::vector<std::optional<std::vector<Frame>>>> ExtractFrames(
    const table::Dataset& dataset, const std::string& column, std::span<const uint64_t> rows,
    const FrameRequest& request, const MediaPlugin& plugin, const ExtractOptions& options = {},
    ExtractFramesStats* stats = nullptr);

/// ExtractFrames on rows resolved once (media::Resolve): only the GOP reads, no
/// descriptor read and no open per call, for many requests on the same rows. Same errors.
Result<std::vector<std::optional<std::vector<Frame>>>> ExtractFrames(const ResolvedBlobs& resolved,
                                                                     const FrameRequest& request,
                                                                     const MediaPlugin& plugin,
                                                                     const ExtractOptions& options = {},
                                                                     ExtractFramesStats* stats = nullptr);

/// A remuxed clip: a playable MP4 (no re-encode) of the GOPs covering the window.
struct Clip {
  BufferPtr mp4;
  uint64_t frames = 0;
  double start_s = 0;  // time of the clip's first frame on the source clock
  double end_s = 0;
};

/// \brief [t0, t1) of row `row` as MP4 bytes. The clip starts at the keyframe at or
/// before t0, so it may begin earlier than t0. Errors: NotFound for a null blob; as
/// ExtractFrames otherwise (an empty window is InvalidArgument).
Result<Clip> ExtractClip(const table::Dataset& dataset, const std::string& column, uint64_t row, double t0, double t1,
                         const MediaPlugin& plugin, const ExtractOptions& options = {});

/// ExtractClip writing the MP4 to `path` (created or truncated). IOError names the path.
Result<Clip> ExtractClipToFile(const table::Dataset& dataset, const std::string& column, uint64_t row, double t0,
                               double t1, const MediaPlugin& plugin, const std::string& path,
                               const ExtractOptions& options = {});

}  // namespace lancet::media
