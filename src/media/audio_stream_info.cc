#include "lancet/media/audio_stream_info.h"

#include "lancet/media_audio.h"
#include "media/video_wire.h"

namespace lancet::media {
namespace {

using video_wire::U16;
using video_wire::U32;
using video_wire::U64;

// A NUL-padded name of 16 bytes: printable text before the first NUL, NULs after it.
Result<std::string> PaddedName(std::span<const uint8_t> b, size_t at, const char* what) {
  auto field = b.subspan(at, 16);
  size_t n = 0;
  while (n < field.size() && field[n] != 0) ++n;
  for (size_t i = 0; i < field.size(); ++i) {
    const bool ok = i < n ? field[i] >= 0x20 && field[i] <= 0x7e : field[i] == 0;
    if (!ok) return Status::Corruption(std::string("audio stream_info: ") + what + " is not NUL-padded ASCII");
  }
  return std::string(reinterpret_cast<const char*>(field.data()), n);
}

}  // namespace

bool IsAudioStreamInfo(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && U32(bytes, 0) == LANCET_AUDIO_STREAM_INFO_MAGIC;
}

Result<AudioStreamInfo> ParseAudioStreamInfo(std::span<const uint8_t> b) {
  if (!IsAudioStreamInfo(b)) {
    return Status::Corruption("audio stream_info of " + std::to_string(b.size()) + " bytes lacks the magic LASI");
  }
  if (b.size() < 8) return Status::Corruption("audio stream_info is truncated");
  if (U16(b, 4) != 1) return Status::Corruption("audio stream_info version " + std::to_string(U16(b, 4)) + ", not 1");
  const uint64_t header = U16(b, 6);
  if (header < LANCET_AUDIO_STREAM_INFO_HEADER_SIZE || header > b.size()) {
    return Status::Corruption("audio stream_info header size " + std::to_string(header) + " does not fit its " +
                              std::to_string(b.size()) + " bytes (version 1 needs 144)");
  }
  AudioStreamInfo si;
  si.codec_id = U32(b, 8);
  si.sample_rate = U32(b, 16);
  si.channels = U32(b, 20);
  si.layout_mask = U64(b, 24);
  si.samples = U64(b, 56);
  si.packets = U64(b, 64);
  si.bit_rate = static_cast<int64_t>(U64(b, 72));
  si.pcm = (U32(b, 100) & LANCET_AUDIO_SI_PCM) != 0;
  ASSIGN_OR_RETURN(si.codec, PaddedName(b, 112, "codec name"));
  ASSIGN_OR_RETURN(si.sample_format, PaddedName(b, 128, "sample format name"));
  if (si.sample_rate == 0 || si.channels == 0) {
    return Status::Corruption("audio stream_info declares " + std::to_string(si.sample_rate) + " Hz and " +
                              std::to_string(si.channels) + " channels");
  }
  si.duration_s = static_cast<double>(si.samples) / si.sample_rate;
  return si;
}

}  // namespace lancet::media
