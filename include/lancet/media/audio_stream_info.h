// The audio plugin's stream_info (blob_info.stream_info, layout in lancet/media_audio.h)
// read without loading the plugin, for `lancet info` and callers that plan themselves.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/result.h"

namespace lancet::media {

struct AudioStreamInfo {
  std::string codec;          // e.g. "aac"
  std::string sample_format;  // the decoder's, e.g. "fltp"
  uint32_t codec_id = 0;      // FFmpeg AVCodecID
  uint32_t sample_rate = 0;
  uint32_t channels = 0;
  uint64_t layout_mask = 0;  // FFmpeg channel mask, 0 = unspecified
  uint64_t samples = 0;      // decoded samples per channel
  uint64_t packets = 0;
  double duration_s = 0;
  int64_t bit_rate = 0;  // bit/s, 0 = unknown
  bool pcm = false;
};

/// True when `bytes` start with the audio stream_info magic (a row the audio plugin ingested).
bool IsAudioStreamInfo(std::span<const uint8_t> bytes);

/// \brief Parses version 1 of the layout (later versions with a larger header too).
/// Corruption for a wrong magic, another version, a header size below 144 or past the
/// bytes, a sample rate or channel count of 0, or names that are not NUL-padded.
Result<AudioStreamInfo> ParseAudioStreamInfo(std::span<const uint8_t> bytes);

}  // namespace lancet::media
