// Audio segments out of blob columns ingested by the audio plugin
// (liblancet_audio_ffmpeg.so), through Extract: one range read per row and object.
// Codec-free: the requests and results are the wire formats of lancet/media_audio.h.
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

/// Interleaved sample layouts of decoded audio (values are LANCET_AUDIO_FMT_*).
enum class SampleFormat : uint8_t { kS16 = 0, kF32 = 1 };

/// "s16", "f32".
const char* SampleFormatName(SampleFormat format);
/// Bytes of one sample of one channel.
uint32_t SampleBytes(SampleFormat format);

/// The time window [t0, t1) in seconds from the start of the audio.
struct AudioWindow {
  double t0 = 0;
  double t1 = 0;
};

/// How to deliver the samples: format, and optionally another rate or channel count
/// (0 keeps the source's; libswresample converts, downmixing or upmixing to FFmpeg's
/// default layout for the count).
struct AudioFormat {
  SampleFormat sample_format = SampleFormat::kF32;
  uint32_t sample_rate = 0;
  uint32_t channels = 0;
};

/// One decoded segment: `samples` frames of `channels` interleaved samples.
struct AudioSegment {
  SampleFormat format = SampleFormat::kF32;
  uint32_t sample_rate = 0;
  uint32_t channels = 0;
  uint64_t first_sample = 0;  // position of the first frame, at sample_rate
  uint64_t samples = 0;
  double start_s = 0;
  BufferPtr pcm;  // samples x channels x SampleBytes(format) bytes
};

/// Extract's counters and step times plus what the segments came to.
struct ExtractAudioStats {
  ExtractStats extract;
  uint64_t samples = 0;
  uint64_t pcm_bytes = 0;
};

/// \brief The samples of `window` from each row of audio column `column`: one Extract
/// for all rows (one range per row, read with one ReadMany per object).
///
/// Output: one entry per row, nullopt for a null blob; a segment of 0 samples when the
/// window lies past the end. Samples are exactly those a full FFmpeg decode of the source
/// gives at positions [round(t0 * rate), round(t1 * rate)) (docs/audio-plugin.md).
///
/// Errors: InvalidArgument for a window that is not 0 <= t0 < t1 (finite) or a format
/// with more than 64 channels; the plugin's errors; Corruption (naming the row and the
/// plugin) when its output does not match its header; everything Extract reports.
Result<std::vector<std::optional<AudioSegment>>> ExtractAudio(const table::Dataset& dataset, const std::string& column,
                                                              std::span<const uint64_t> rows, AudioWindow window,
                                                              AudioFormat format, const MediaPlugin& plugin,
                                                              const ExtractOptions& options = {},
                                                              ExtractAudioStats* stats = nullptr);

/// ExtractAudio on rows resolved once (media::Resolve): only the planned reads, no
/// descriptor read and no open per call, for many windows of the same rows. Same errors.
Result<std::vector<std::optional<AudioSegment>>> ExtractAudio(const ResolvedBlobs& resolved, AudioWindow window,
                                                              AudioFormat format, const MediaPlugin& plugin,
                                                              const ExtractOptions& options = {},
                                                              ExtractAudioStats* stats = nullptr);

/// \brief A segment as a RIFF/WAVE file (PCM 16-bit or IEEE float 32-bit).
std::vector<uint8_t> WavBytes(const AudioSegment& segment);

}  // namespace lancet::media
