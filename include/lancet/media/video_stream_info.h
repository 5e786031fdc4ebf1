// The video plugin's stream_info (blob_info.stream_info, layout in lancet/media_video.h)
// read without loading the plugin, for `lancet info` and callers that plan themselves.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/result.h"

namespace lancet::media {

struct VideoStreamInfo {
  std::string codec;         // e.g. "h264"
  std::string pixel_format;  // the source's, e.g. "yuv420p"
  uint32_t codec_id = 0;     // FFmpeg AVCodecID
  uint32_t width = 0;
  uint32_t height = 0;
  int32_t time_base_num = 0;
  int32_t time_base_den = 0;
  int32_t frame_rate_num = 0;
  int32_t frame_rate_den = 0;
  double fps = 0;         // 0 when the stream has no frame rate
  double duration_s = 0;  // 0 when unknown
  int64_t start_pts = 0;
  uint64_t frame_count = 0;
  uint64_t gop_count = 0;
  int64_t bit_rate = 0;  // bit/s, 0 = unknown
  bool open_gop = false;
  bool b_frames = false;
};

/// True when `bytes` start with the stream_info magic (a row the video plugin ingested).
bool IsVideoStreamInfo(std::span<const uint8_t> bytes);

/// \brief Parses version 1 of the layout (later versions with a larger header too).
/// Corruption for a wrong magic, another version, a header size below 160 or past the
/// bytes, a time base with a zero or negative term, or names that are not NUL-padded.
Result<VideoStreamInfo> ParseVideoStreamInfo(std::span<const uint8_t> bytes);

}  // namespace lancet::media
