// ExtractAudio: audio windows through Extract, results checked; WAV bytes for a segment.
#include <cstring>

#include "lancet/media/audio.h"
#include "media/audio_wire.h"
#include "media/extract_steps.h"

namespace lancet::media {
namespace {

// The WAV header is written at fixed offsets into a buffer sized up front.
void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

const char* SampleFormatName(SampleFormat format) { return format == SampleFormat::kS16 ? "s16" : "f32"; }
uint32_t SampleBytes(SampleFormat format) { return format == SampleFormat::kS16 ? 2 : 4; }

namespace {

// ExtractAudio after resolve; adds to `st` (the callers reset it).
Result<std::vector<std::optional<AudioSegment>>> SegmentsOf(const ResolvedBlobs& resolved, AudioWindow window,
                                                            AudioFormat format, const MediaPlugin& plugin,
                                                            const ExtractOptions& options, ExtractAudioStats& st) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> req, audio_wire::EncodeAudioRequest(window, format));
  ExtractStats extract;
  ASSIGN_OR_RETURN(auto outputs, Extract(resolved, req, plugin, options, &extract));
  extract.resolve_ns = st.extract.resolve_ns;
  st.extract = extract;
  StepTimer timer(&st.extract.decode_ns);
  ExtractOptions named = options;
  named.key = resolved.key;
  std::vector<std::optional<AudioSegment>> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) continue;
    const std::string& m = outputs[i]->metadata;
    const BufferPtr& data = outputs[i]->data;
    auto segment =
        audio_wire::ParseSegment({reinterpret_cast<const uint8_t*>(m.data()), m.size()}, data ? data->size() : 0);
    if (!segment.ok()) {
      return Status::Corruption(resolved.where + " " + RowName(named, resolved.rows[i]) + ": plugin '" + plugin.name() +
                                "' (" + plugin.library() + ") returned bad audio: " + segment.status().message());
    }
    segment->pcm = data ? data : Buffer::Empty();
    st.samples += segment->samples;
    st.pcm_bytes += segment->pcm->size();
    out[i] = std::move(*segment);
  }
  return out;
}

}  // namespace

Result<std::vector<std::optional<AudioSegment>>> ExtractAudio(const ResolvedBlobs& resolved, AudioWindow window,
                                                              AudioFormat format, const MediaPlugin& plugin,
                                                              const ExtractOptions& options, ExtractAudioStats* stats) {
  ExtractAudioStats local;
  ExtractAudioStats& st = stats ? *stats : local;
  st = {};
  return SegmentsOf(resolved, window, format, plugin, options, st);
}

Result<std::vector<std::optional<AudioSegment>>> ExtractAudio(const table::Dataset& dataset, const std::string& column,
                                                              std::span<const uint64_t> rows, AudioWindow window,
                                                              AudioFormat format, const MediaPlugin& plugin,
                                                              const ExtractOptions& options, ExtractAudioStats* stats) {
  ExtractAudioStats local;
  ExtractAudioStats& st = stats ? *stats : local;
  st = {};
  ResolvedBlobs resolved;
  {
    StepTimer timer(&st.extract.resolve_ns);
    ASSIGN_OR_RETURN(resolved, Resolve(dataset, column, rows, options));
  }
  return SegmentsOf(resolved, window, format, plugin, options, st);
}

std::vector<uint8_t> WavBytes(const AudioSegment& s) {
  const bool f32 = s.format == SampleFormat::kF32;
  const uint32_t bytes = SampleBytes(s.format);
  const uint64_t data = s.pcm ? s.pcm->size() : 0;
  std::vector<uint8_t> out(static_cast<size_t>(44 + data));
  uint8_t* p = out.data();
  std::memcpy(p, "RIFF", 4);
  // RIFF sizes are u32; decode caps a segment at 1 GiB, well inside.
  Put32(p + 4, static_cast<uint32_t>(36 + data));
  std::memcpy(p + 8, "WAVEfmt ", 8);
  Put32(p + 16, 16);
  Put16(p + 20, f32 ? 3 : 1);  // WAVE_FORMAT_IEEE_FLOAT or WAVE_FORMAT_PCM
  Put16(p + 22, static_cast<uint16_t>(s.channels));
  Put32(p + 24, s.sample_rate);
  Put32(p + 28, s.sample_rate * s.channels * bytes);
  Put16(p + 32, static_cast<uint16_t>(s.channels * bytes));
  Put16(p + 34, static_cast<uint16_t>(bytes * 8));
  std::memcpy(p + 36, "data", 4);
  Put32(p + 40, static_cast<uint32_t>(data));
  if (data > 0) std::memcpy(p + 44, s.pcm->data(), static_cast<size_t>(data));
  return out;
}

}  // namespace lancet::media
