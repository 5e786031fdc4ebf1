#include "audio/audio_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "lancet/media/write_blob_info.h"
#include "lancet/table/blob_write.h"
#include "util/array_builder.h"

namespace lancet::audio_test {
namespace {

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t U64(const uint8_t* p) { return U32(p) | (static_cast<uint64_t>(U32(p + 4)) << 32); }

void Put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutF(std::vector<uint8_t>& out, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  Put(out, bits, 8);
}

std::string MediaDir() {
  std::string dir = LANCET_AUDIO_MEDIA_DIR;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

std::string PluginPath() { return LANCET_AUDIO_PLUGIN; }
media::PluginSpec PluginSpec() { return {PluginPath(), {}}; }

std::shared_ptr<media::MediaPlugin> LoadPlugin() {
  auto loaded = media::MediaPlugin::Load(PluginSpec());
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status().ToString();
    return nullptr;
  }
  return *loaded;
}

int RunCommand(const std::string& command) { return std::system(command.c_str()); }

bool HasEncoder(const std::string& name) {
  return RunCommand("ffmpeg -hide_banner -encoders 2>/dev/null | grep -q ' " + name + " '") == 0;
}

std::string MakeMedia(const std::string& inputs, const std::string& args, const std::string& ext) {
  const std::string key = std::to_string(std::hash<std::string>{}(inputs + "|" + args + "|" + ext));
  const std::string path = MediaDir() + "/a-" + key + "." + ext;
  if (std::filesystem::exists(path)) return path;
  // Tests run in parallel processes: each encodes to its own name, then renames atomically.
  const std::string tmp = MediaDir() + "/tmp-" + key + "-" + std::to_string(getpid()) + "." + ext;
  const std::string command =
      "ffmpeg -nostdin -hide_banner -loglevel error -y " + inputs + " " + args + " '" + tmp + "' > /dev/null 2>&1";
  if (RunCommand(command) != 0) {
    std::filesystem::remove(tmp);
    return "";
  }
  std::filesystem::rename(tmp, path);
  return path;
}

std::string MakeAudio(double seconds, int rate, int channels, const std::string& args, const std::string& ext) {
  // A sweep per channel (200 Hz up to 4 kHz, and a slower one), so a sample off shows.
  std::string expr = "0.5*sin(2*PI*(200+3800*t/" + std::to_string(seconds) + "/2)*t)";
  for (int c = 1; c < channels; ++c) {
    expr += "|0.4*sin(2*PI*(" + std::to_string(300 + 100 * c) + "+900*t/" + std::to_string(seconds) + "/2)*t)";
  }
  const std::string input =
      "-f lavfi -i 'aevalsrc=" + expr + ":s=" + std::to_string(rate) + ":d=" + std::to_string(seconds) + "'";
  return MakeMedia(input, args, ext);
}

std::vector<uint8_t> DecodeWithFfmpeg(const std::string& path, const std::string& format, const std::string& extra) {
  const std::string out = MediaDir() + "/ref-" + std::to_string(std::hash<std::string>{}(path + format + extra)) + "-" +
                          std::to_string(getpid()) + ".raw";
  const std::string command = "ffmpeg -nostdin -hide_banner -loglevel error -y -i '" + path + "' -vn " + extra +
                              " -f " + format + " '" + out + "' > /dev/null 2>&1";
  if (RunCommand(command) != 0) {
    ADD_FAILURE() << "ffmpeg failed: " << command;
    return {};
  }
  std::vector<uint8_t> bytes = ReadFile(out);
  std::filesystem::remove(out);
  return bytes;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string ScratchDir() {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("lancet_audio_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  return dir;
}

Result<Blob> Ingest(const media::MediaPlugin& plugin, const std::vector<uint8_t>& source, size_t chunk) {
  ASSIGN_OR_RETURN(auto session, plugin.StartIngest());
  Blob blob;
  media::ByteSink sink = [&](std::span<const uint8_t> bytes) {
    blob.stored.insert(blob.stored.end(), bytes.begin(), bytes.end());
    return Status::OK();
  };
  for (size_t at = 0; at < source.size(); at += chunk) {
    RETURN_IF_ERROR(session->Push({source.data() + at, std::min(chunk, source.size() - at)}, sink));
  }
  ASSIGN_OR_RETURN(auto result, session->Finish(sink));
  blob.stream_info.assign(result.stream_info->data(), result.stream_info->data() + result.stream_info->size());
  blob.entries.assign(result.entries->data(), result.entries->data() + result.entries->size());
  if (result.stored_bytes != blob.stored.size()) return Status::Internal("stored byte count mismatch");
  return blob;
}

std::vector<uint8_t> WindowRequest(double t0, double t1, uint8_t format, uint32_t rate, uint32_t channels) {
  std::vector<uint8_t> out;
  Put(out, LANCET_AUDIO_REQUEST_MAGIC, 4);
  Put(out, 1, 2);
  out.push_back(LANCET_AUDIO_REQ_WINDOW);
  out.push_back(format);
  Put(out, rate, 4);
  Put(out, channels, 4);
  PutF(out, t0);
  PutF(out, t1);
  return out;
}

bool ParseSegment(const std::string& metadata, uint64_t data_size, Segment* out) {
  const auto* m = reinterpret_cast<const uint8_t*>(metadata.data());
  if (metadata.size() != LANCET_AUDIO_PCM_HEADER_SIZE || U32(m) != LANCET_AUDIO_PCM_MAGIC || U16(m + 4) != 1 ||
      U16(m + 6) != LANCET_AUDIO_PCM_HEADER_SIZE) {
    ADD_FAILURE() << "bad LAPC header (" << metadata.size() << " bytes)";
    return false;
  }
  out->format = m[8];
  out->rate = U32(m + 12);
  out->channels = U32(m + 16);
  out->first = U64(m + 24);
  out->samples = U64(m + 32);
  const uint64_t bits = U64(m + 40);
  std::memcpy(&out->start, &bits, 8);
  const uint64_t want = out->samples * out->channels * (out->format == LANCET_AUDIO_FMT_S16 ? 2 : 4);
  if (want != data_size) {
    ADD_FAILURE() << "LAPC says " << want << " bytes, data has " << data_size;
    return false;
  }
  return true;
}

StreamInfoFields ParseStreamInfo(const std::vector<uint8_t>& b) {
  StreamInfoFields f;
  if (b.size() < LANCET_AUDIO_STREAM_INFO_HEADER_SIZE || U32(b.data()) != LANCET_AUDIO_STREAM_INFO_MAGIC) {
    ADD_FAILURE() << "not an audio stream_info";
    return f;
  }
  const uint8_t* p = b.data();
  f.codec_id = U32(p + 8);
  f.rate = U32(p + 16);
  f.channels = U32(p + 20);
  f.samples = U64(p + 56);
  f.packets = U64(p + 64);
  f.flags = U32(p + 100);
  f.codec = std::string(reinterpret_cast<const char*>(p + 112), strnlen(reinterpret_cast<const char*>(p + 112), 16));
  return f;
}

Result<Extracted> Extract(const media::MediaPlugin& plugin, const Blob& blob, const std::vector<uint8_t>& request) {
  Extracted e;
  ASSIGN_OR_RETURN(e.ranges, plugin.Plan(blob.stream_info, blob.entries, request, blob.stored.size()));
  std::vector<BufferPtr> bytes;
  for (const auto& r : e.ranges) {
    if (r.end() > blob.stored.size()) return Status::Internal("range past the stored bytes");
    bytes.push_back(Buffer::Copy(std::span<const uint8_t>(blob.stored.data() + r.offset, r.length)));
  }
  ASSIGN_OR_RETURN(e.out, plugin.Decode(request, blob.stream_info, blob.entries, e.ranges, bytes));
  return e;
}

Status WriteAudioDataset(const std::string& root, const std::vector<std::string>& files, uint64_t dedicated_bytes,
                         table::WriteMode mode) {
  Schema schema{{table::MakeBlobField("audio", true, table::BlobThresholds{1024, dedicated_bytes, 1ULL << 30})}, {}};
  std::vector<std::optional<std::string>> values;
  std::vector<bool> valid;
  for (const std::string& f : files) {
    valid.push_back(!f.empty());
    if (f.empty()) {
      values.emplace_back();
      continue;
    }
    std::vector<uint8_t> bytes = ReadFile(f);
    if (bytes.empty()) return Status::IOError(f + ": empty or unreadable");
    values.emplace_back(std::string(bytes.begin(), bytes.end()));
  }
  const auto n = static_cast<int64_t>(files.size());
  ASSIGN_OR_RETURN(Array data, MakeBinaryArray(MakeType(TypeId::kLargeBinary), values));
  ASSIGN_OR_RETURN(Array uri, MakeNullArray(MakeType(TypeId::kUtf8), n));
  ASSIGN_OR_RETURN(Array col, MakeStructArray(schema.fields[0].type, n, {data, uri}, valid));
  table::WriteParams params;
  params.mode = mode;
  return media::WriteDatasetWithBlobInfo(root, schema, {RecordBatch{schema, n, {col}}}, params,
                                         {{"audio", PluginSpec()}})
      .status();
}

std::vector<float> AsFloats(const uint8_t* data, size_t bytes) {
  std::vector<float> out(bytes / 4);
  if (!out.empty()) std::memcpy(out.data(), data, out.size() * 4);
  return out;
}

double SnrDb(const std::vector<float>& ref, const std::vector<float>& got) {
  if (ref.size() != got.size() || ref.empty()) return -std::numeric_limits<double>::infinity();
  double signal = 0, noise = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    signal += static_cast<double>(ref[i]) * ref[i];
    const double d = static_cast<double>(ref[i]) - got[i];
    noise += d * d;
  }
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

}  // namespace lancet::audio_test
