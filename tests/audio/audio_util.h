// Helpers for the audio plugin tests: sine sweeps the ffmpeg CLI encodes at test time
// (cached on disk, since every test runs in its own process), the CLI's own decode of
// them as the reference, ingest through the media host and request builders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lancet/io/object_store.h"
#include "lancet/media/plugin_host.h"
#include "lancet/media_audio.h"
#include "lancet/result.h"
#include "lancet/table/write.h"

namespace lancet::audio_test {

/// The plugin library path (build/plugins/liblancet_audio_ffmpeg.so).
std::string PluginPath();
std::shared_ptr<media::MediaPlugin> LoadPlugin();
media::PluginSpec PluginSpec();

bool HasEncoder(const std::string& name);
/// A sine sweep of `seconds` at `rate` Hz with `channels` channels, encoded by the ffmpeg
/// CLI with `args` into a file of extension `ext`; made once and cached. "" when ffmpeg
/// fails (e.g. a missing encoder).
std::string MakeAudio(double seconds, int rate, int channels, const std::string& args, const std::string& ext);
/// A file the ffmpeg CLI makes from `inputs` (lavfi sources) and `args`; cached.
std::string MakeMedia(const std::string& inputs, const std::string& args, const std::string& ext);
/// The ffmpeg CLI's decode of the whole file to interleaved `format` ("f32le", "s16le"),
/// with `extra` output options (e.g. "-ar 16000 -ac 1").
std::vector<uint8_t> DecodeWithFfmpeg(const std::string& path, const std::string& format,
                                      const std::string& extra = "");
int RunCommand(const std::string& command);
std::vector<uint8_t> ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);
std::string ScratchDir();

struct Blob {
  std::vector<uint8_t> stored, stream_info, entries;
};
/// Ingests `source` in pushes of `chunk` bytes.
Result<Blob> Ingest(const media::MediaPlugin& plugin, const std::vector<uint8_t>& source, size_t chunk = 7919);

std::vector<uint8_t> WindowRequest(double t0, double t1, uint8_t format = LANCET_AUDIO_FMT_F32, uint32_t rate = 0,
                                   uint32_t channels = 0);

struct Segment {
  uint8_t format = 0;
  uint32_t rate = 0, channels = 0;
  uint64_t first = 0, samples = 0;
  double start = 0;
};
/// Parses LAPC metadata; false (with a gtest failure) when malformed.
bool ParseSegment(const std::string& metadata, uint64_t data_size, Segment* out);

struct StreamInfoFields {
  uint32_t codec_id = 0, rate = 0, channels = 0, flags = 0;
  uint64_t samples = 0, packets = 0;
  std::string codec;
};
StreamInfoFields ParseStreamInfo(const std::vector<uint8_t>& bytes);

struct Extracted {
  std::vector<io::ByteRange> ranges;
  media::DecodedOutput out;
};
/// Plans `request`, reads the planned ranges from blob.stored and decodes them.
Result<Extracted> Extract(const media::MediaPlugin& plugin, const Blob& blob, const std::vector<uint8_t>& request);

/// Writes a dataset at `root` with one row per file (column "audio", nulls where a path
/// is empty) through the audio plugin. `dedicated_bytes`: values above go to their own
/// sidecar, others are packed together.
Status WriteAudioDataset(const std::string& root, const std::vector<std::string>& files, uint64_t dedicated_bytes,
                         table::WriteMode mode = table::WriteMode::kCreate);

/// Signal-to-noise ratio in dB of `got` against `ref` (f32 samples); infinity when equal.
double SnrDb(const std::vector<float>& ref, const std::vector<float>& got);
std::vector<float> AsFloats(const uint8_t* data, size_t bytes);

}  // namespace lancet::audio_test
