// The media plugin host's checks on hostile plan/decode inputs, through the real chunks
// plugin: whatever the bytes, Plan returns ranges inside the blob or an error, and
// Decode never reads past what it was given.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"

namespace {

using lancet::media::MediaPlugin;

struct Fixture {
  std::shared_ptr<MediaPlugin> plugin;
  std::string stream_info, entries, payload;
  Fixture() {
    std::string config = "chunk_size=97;blob_type=3";
    auto loaded = MediaPlugin::Load({LANCET_CHUNKS_PLUGIN, std::vector<uint8_t>(config.begin(), config.end())});
    if (!loaded.ok()) __builtin_trap();
    plugin = *loaded;
    payload.resize(5000);
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31 + 7);
    auto session = plugin->StartIngest();
    if (!session.ok()) __builtin_trap();
    auto sink = [](std::span<const uint8_t>) { return lancet::Status::OK(); };
    if (!(*session)->Push({reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}, sink).ok()) {
      __builtin_trap();
    }
    auto result = (*session)->Finish(sink);
    if (!result.ok()) __builtin_trap();
    stream_info = std::string(result->stream_info->view());
    entries = std::string(result->entries->view());
  }
};

// Takes `n` bytes of input (or what is left).
std::string Take(const uint8_t*& data, size_t& size, size_t n) {
  n = n < size ? n : size;
  std::string out(reinterpret_cast<const char*>(data), n);
  data += n;
  size -= n;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fx;
  if (size < 2) return 0;
  // The first byte picks which inputs are hostile; the rest feeds them.
  const uint8_t mode = data[0];
  const uint8_t split = data[1];
  data += 2;
  size -= 2;
  std::string si = fx.stream_info, en = fx.entries;
  if (mode & 1) si = Take(data, size, split);
  if (mode & 2) en = Take(data, size, split * 4u);
  uint64_t blob_size = fx.payload.size();
  if ((mode & 4) && size >= 8) {
    std::memcpy(&blob_size, data, 8);
    data += 8;
    size -= 8;
  }
  std::string request = Take(data, size, size);
  auto as_span = [](const std::string& s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  auto plan = fx.plugin->Plan(as_span(si), as_span(en), as_span(request), blob_size);
  if (!plan.ok()) return 0;
  std::vector<lancet::BufferPtr> bytes;
  for (const auto& r : *plan) {
    if (r.offset > blob_size || r.length > blob_size - r.offset) __builtin_trap();  // the host's promise
    if (r.offset + r.length > fx.payload.size()) return 0;  // a hostile blob_size: nothing to read
    bytes.push_back(lancet::Buffer::Copy(std::string_view(fx.payload).substr(r.offset, r.length)));
  }
  auto decoded = fx.plugin->Decode(as_span(request), as_span(si), as_span(en), *plan, bytes);
  (void)decoded;
  return 0;
}
