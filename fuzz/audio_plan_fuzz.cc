// The audio plugin's plan and decode on hostile stream_info, entries, requests and stored
// bytes: the fixture ingests a short real MP3 (made with the ffmpeg CLI at start-up; a WAV
// when there is no MP3 encoder), and each input replaces or patches those bytes. Whatever
// they are, plan returns ranges inside the blob or an error, and decode never crashes.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"

namespace {

using lancet::media::MediaPlugin;

struct AudioFixture {
  std::shared_ptr<MediaPlugin> plugin;
  std::vector<uint8_t> stored, stream_info, entries;
  bool ok = false;

  AudioFixture() {
#ifdef LANCET_AUDIO_PLUGIN
    auto loaded = MediaPlugin::Load({LANCET_AUDIO_PLUGIN, {}});
    if (!loaded.ok()) __builtin_trap();
    plugin = *loaded;
    const char* tmp = std::getenv("TMPDIR");
    const std::string base =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/lancet-audio-fuzz-" + std::to_string(getpid());
    const std::string input =
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i "
        "'aevalsrc=sin(2*PI*(300+400*t)*t)|0.5*sin(2*PI*500*t):s=44100:d=1.5' ";
    std::string path = base + ".mp3";
    if (std::system((input + "-c:a libmp3lame '" + path + "' > /dev/null 2>&1").c_str()) != 0) {
      path = base + ".wav";
      if (std::system((input + "'" + path + "' > /dev/null 2>&1").c_str()) != 0) {
        std::fprintf(stderr, "audio_plan_fuzz: the ffmpeg CLI could not make the fixture; fuzzing nothing\n");
        return;
      }
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(path.c_str());
    auto session = plugin->StartIngest();
    if (!session.ok()) __builtin_trap();
    auto sink = [&](std::span<const uint8_t> b) {
      stored.insert(stored.end(), b.begin(), b.end());
      return lancet::Status::OK();
    };
    if (!(*session)->Push(source, sink).ok()) __builtin_trap();
    auto result = (*session)->Finish(sink);
    if (!result.ok()) __builtin_trap();
    stream_info.assign(result->stream_info->data(), result->stream_info->data() + result->stream_info->size());
    entries.assign(result->entries->data(), result->entries->data() + result->entries->size());
    ok = true;
#endif
  }
};

std::vector<uint8_t> TakeBytes(const uint8_t*& data, size_t& size, size_t n) {
  n = n < size ? n : size;
  std::vector<uint8_t> out(data, data + n);
  data += n;
  size -= n;
  return out;
}

// Applies (u16 position, u8 xor) triples to `bytes`, reaching deep fields.
void PatchBytes(std::vector<uint8_t>& bytes, const std::vector<uint8_t>& patches) {
  if (bytes.empty()) return;
  for (size_t i = 0; i + 3 <= patches.size(); i += 3) {
    const size_t at = (patches[i] | (patches[i + 1] << 8)) % bytes.size();
    bytes[at] ^= patches[i + 2];
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static AudioFixture fx;
  if (!fx.ok || size < 2) return 0;
  // Byte 0 picks what is hostile (bit 0/1 replace stream_info/entries, bit 2/3 patch
  // them, bit 4 decodes too, bit 5 patches the stored stream); byte 1 sizes the hostile
  // pieces; the rest is the request.
  const uint8_t mode = data[0];
  const size_t split = data[1];
  data += 2;
  size -= 2;
  std::vector<uint8_t> si = fx.stream_info, en = fx.entries;
  if (mode & 1) si = TakeBytes(data, size, split);
  if (mode & 2) en = TakeBytes(data, size, split * 4);
  if (mode & 4) PatchBytes(si, TakeBytes(data, size, 3 * (split % 8 + 1)));
  if (mode & 8) PatchBytes(en, TakeBytes(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> stored = fx.stored;
  if (mode & 32) PatchBytes(stored, TakeBytes(data, size, 3 * (split % 16 + 1)));
  std::vector<uint8_t> request(data, data + size);
  auto plan = fx.plugin->Plan(si, en, request, fx.stored.size());
  if (!plan.ok() || !(mode & 16)) return 0;
  // Outputs are bounded by the plugin (1 GiB), but filling that takes seconds: decode only
  // requests of modest rate and channel count so each run stays fast.
  auto u32_at = [&](size_t at) {
    uint32_t v = 0;
    if (request.size() >= at + 4) std::memcpy(&v, request.data() + at, 4);
    return v;
  };
  if (u32_at(8) > 96000 || u32_at(12) > 8) return 0;
  std::vector<lancet::BufferPtr> bytes;
  for (const auto& r : *plan) {
    if (r.offset > stored.size() || r.length > stored.size() - r.offset) __builtin_trap();  // the host's promise
    bytes.push_back(lancet::Buffer::Copy(std::span<const uint8_t>(stored.data() + r.offset, r.length)));
  }
  (void)fx.plugin->Decode(request, si, en, *plan, bytes);
  return 0;
}
