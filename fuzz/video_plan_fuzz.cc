// The video plugin's plan and decode on hostile stream_info, entries and requests: the
// fixture ingests a small real H.264 video (made with the ffmpeg CLI at start-up), and
// each input replaces or patches those bytes. Whatever they are, plan returns ranges inside
// the blob or an error, and decode of what plan returned never crashes.
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

struct Fixture {
  std::shared_ptr<MediaPlugin> plugin;
  std::vector<uint8_t> stored, stream_info, entries;
  bool ok = false;

  Fixture() {
#ifdef LANCET_VIDEO_PLUGIN
    auto loaded = MediaPlugin::Load({LANCET_VIDEO_PLUGIN, {}});
    if (!loaded.ok()) __builtin_trap();
    plugin = *loaded;
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/lancet-video-fuzz-" + std::to_string(getpid()) + ".mp4";
    std::string command =
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=64x48:rate=10:duration=2 "
        "-c:v libx264 -g 5 -pix_fmt yuv420p '" +
        path + "' > /dev/null 2>&1";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "video_plan_fuzz: the ffmpeg CLI could not make the fixture video; fuzzing nothing\n");
      return;
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

std::vector<uint8_t> Take(const uint8_t*& data, size_t& size, size_t n) {
  n = n < size ? n : size;
  std::vector<uint8_t> out(data, data + n);
  data += n;
  size -= n;
  return out;
}

// Applies (u16 position, u8 xor) triples to `bytes`: deep fields stay reachable, which
// replacing the whole input rarely gets past the header checks to.
void Patch(std::vector<uint8_t>& bytes, const std::vector<uint8_t>& patches) {
  if (bytes.empty()) return;
  for (size_t i = 0; i + 3 <= patches.size(); i += 3) {
    const size_t at = (patches[i] | (patches[i + 1] << 8)) % bytes.size();
    bytes[at] ^= patches[i + 2];
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fx;
  if (!fx.ok || size < 2) return 0;
  // Byte 0 picks what is hostile (bit 0/1 replace stream_info/entries, bit 2/3 patch
  // them, bit 4 decodes too, bit 5 patches the stored stream's first 4 KiB, where the
  // first GOPs' packet tables are); byte 1 sizes the hostile pieces; the rest is the request.
  const uint8_t mode = data[0];
  const size_t split = data[1];
  data += 2;
  size -= 2;
  std::vector<uint8_t> si = fx.stream_info, en = fx.entries;
  if (mode & 1) si = Take(data, size, split);
  if (mode & 2) en = Take(data, size, split * 4);
  if (mode & 4) Patch(si, Take(data, size, 3 * (split % 8 + 1)));
  if (mode & 8) Patch(en, Take(data, size, 3 * (split % 8 + 1)));
  std::vector<uint8_t> stored = fx.stored;
  if (mode & 32) {
    std::vector<uint8_t> head(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(stored.size(), 4096)));
    Patch(head, Take(data, size, 3 * (split % 8 + 1)));
    std::copy(head.begin(), head.end(), stored.begin());
  }
  std::vector<uint8_t> request(data, data + size);
  auto plan = fx.plugin->Plan(si, en, request, fx.stored.size());
  if (!plan.ok() || !(mode & 16)) return 0;
  // Large outputs and many threads are bounded by the plugin, but scaling 64x48 to 16384^2
  // takes seconds: decode only requests of modest size so each run stays fast.
  auto u32_at = [&](size_t at) {
    uint32_t v = 0;
    if (request.size() >= at + 4) std::memcpy(&v, request.data() + at, 4);
    return v;
  };
  if (u32_at(12) > 256 || u32_at(16) > 256 || u32_at(20) > 4) return 0;
  std::vector<lancet::BufferPtr> bytes;
  for (const auto& r : *plan) {
    if (r.offset > stored.size() || r.length > stored.size() - r.offset) __builtin_trap();  // the host's promise
    bytes.push_back(lancet::Buffer::Copy(std::span<const uint8_t>(stored.data() + r.offset, r.length)));
  }
  (void)fx.plugin->Decode(request, si, en, *plan, bytes);
  return 0;
}
