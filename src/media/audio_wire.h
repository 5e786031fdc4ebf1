// The audio plugin's request and decode-result layouts (lancet/media_audio.h) as C++.
// Internal to the media layer; tests use it directly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/media/audio.h"

namespace lancet::media::audio_wire {

/// The request bytes for `window` in `format`. InvalidArgument unless 0 <= t0 < t1 (both
/// finite), the rate is at most 2^20 and the channels at most 64.
Result<std::vector<uint8_t>> EncodeAudioRequest(AudioWindow window, const AudioFormat& format);

/// \brief Parses decode's metadata and checks it against `data_size`: the data holds
/// exactly samples x channels x sample bytes. Corruption describing the violation.
Result<AudioSegment> ParseSegment(std::span<const uint8_t> metadata, uint64_t data_size);

}  // namespace lancet::media::audio_wire
