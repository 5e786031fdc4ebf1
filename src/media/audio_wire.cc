#include "media/audio_wire.h"

#include <cmath>
#include <cstring>
#include <string>

#include "lancet/media_audio.h"
#include "media/video_wire.h"

namespace lancet::media::audio_wire {
namespace {

using video_wire::F64;
using video_wire::U16;
using video_wire::U32;
using video_wire::U64;

template <typename T>
void Store(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

constexpr uint32_t kMaxRate = 1u << 20;
constexpr uint32_t kMaxChannels = 64;

}  // namespace

Result<std::vector<uint8_t>> EncodeAudioRequest(AudioWindow w, const AudioFormat& format) {
  if (!std::isfinite(w.t0) || !std::isfinite(w.t1) || w.t0 < 0 || w.t1 <= w.t0) {
    return Status::InvalidArgument("audio window [" + std::to_string(w.t0) + ", " + std::to_string(w.t1) +
                                   ") is not a time range (need 0 <= t0 < t1, both finite)");
  }
  if (static_cast<uint8_t>(format.sample_format) > LANCET_AUDIO_FMT_F32) {
    return Status::InvalidArgument("unknown sample format " + std::to_string(static_cast<int>(format.sample_format)));
  }
  if (format.sample_rate > kMaxRate) {
    return Status::InvalidArgument("sample rate " + std::to_string(format.sample_rate) + " is over 2^20");
  }
  if (format.channels > kMaxChannels) {
    return Status::InvalidArgument(std::to_string(format.channels) + " channels asked; at most 64");
  }
  std::vector<uint8_t> out;
  Store<uint32_t>(out, LANCET_AUDIO_REQUEST_MAGIC);
  Store<uint16_t>(out, 1);
  out.push_back(LANCET_AUDIO_REQ_WINDOW);
  out.push_back(static_cast<uint8_t>(format.sample_format));
  Store<uint32_t>(out, format.sample_rate);
  Store<uint32_t>(out, format.channels);
  Store<double>(out, w.t0);
  Store<double>(out, w.t1);
  return out;
}

Result<AudioSegment> ParseSegment(std::span<const uint8_t> m, uint64_t data_size) {
  if (m.size() < LANCET_AUDIO_PCM_HEADER_SIZE || U32(m, 0) != LANCET_AUDIO_PCM_MAGIC) {
    return Status::Corruption("decode metadata of " + std::to_string(m.size()) +
                              " bytes is not a decoded-audio header (magic LAPC)");
  }
  if (U16(m, 4) != 1) return Status::Corruption("decoded audio version " + std::to_string(U16(m, 4)) + ", not 1");
  if (U16(m, 6) < LANCET_AUDIO_PCM_HEADER_SIZE || U16(m, 6) > m.size()) {
    return Status::Corruption("decoded audio header size " + std::to_string(U16(m, 6)) + " does not fit its " +
                              std::to_string(m.size()) + " bytes");
  }
  AudioSegment s;
  if (m[8] > LANCET_AUDIO_FMT_F32) return Status::Corruption("decoded audio has sample format " + std::to_string(m[8]));
  s.format = static_cast<SampleFormat>(m[8]);
  s.sample_rate = U32(m, 12);
  s.channels = U32(m, 16);
  s.first_sample = U64(m, 24);
  s.samples = U64(m, 32);
  s.start_s = F64(m, 40);
  if (s.sample_rate == 0 || s.sample_rate > kMaxRate || s.channels == 0 || s.channels > kMaxChannels) {
    return Status::Corruption("decoded audio declares " + std::to_string(s.sample_rate) + " Hz, " +
                              std::to_string(s.channels) + " channels");
  }
  const uint64_t frame = uint64_t{s.channels} * SampleBytes(s.format);
  if (s.samples > data_size / frame || s.samples * frame != data_size) {
    return Status::Corruption("decoded audio declares " + std::to_string(s.samples) + " samples of " +
                              std::to_string(frame) + " bytes but holds " + std::to_string(data_size) + " bytes");
  }
  if (!std::isfinite(s.start_s)) return Status::Corruption("decoded audio has a non-finite start time");
  return s;
}

}  // namespace lancet::media::audio_wire
