#include "blob_info/media_test_util.h"

#include <dlfcn.h>

#include <random>

namespace lancet::media::testing {

PluginSpec ChunksSpec(std::string_view config) {
  return PluginSpec{LANCET_CHUNKS_PLUGIN, std::vector<uint8_t>(config.begin(), config.end())};
}

int64_t ChunksLiveObjects() {
  // Never closed: the plugin's counter must survive every host unloading it.
  static void* handle = dlopen(LANCET_CHUNKS_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return -1000000;
  auto live = reinterpret_cast<int64_t (*)()>(dlsym(handle, "lancet_chunks_live_objects"));
  return live == nullptr ? -1000000 : live();
}

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::vector<uint8_t> Payload(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

Result<Ingested> IngestAll(const MediaPlugin& plugin, std::span<const uint8_t> source,
                           std::span<const size_t> push_sizes) {
  Ingested out;
  auto sink = [&out](std::span<const uint8_t> bytes) {
    out.stored.insert(out.stored.end(), bytes.begin(), bytes.end());
    return Status::OK();
  };
  ASSIGN_OR_RETURN(auto session, plugin.StartIngest());
  size_t pos = 0;
  for (size_t i = 0; pos < source.size(); ++i) {
    size_t n = std::min(push_sizes[i % push_sizes.size()], source.size() - pos);
    RETURN_IF_ERROR(session->Push(source.subspan(pos, n), sink));
    pos += n;
  }
  ASSIGN_OR_RETURN(out.result, session->Finish(sink));
  return out;
}

std::vector<BufferPtr> ReadRanges(std::span<const uint8_t> stored, std::span<const io::ByteRange> ranges) {
  std::vector<BufferPtr> bytes;
  for (const io::ByteRange& r : ranges) bytes.push_back(Buffer::Copy(stored.subspan(r.offset, r.length)));
  return bytes;
}

Result<DecodedOutput> Extract(const MediaPlugin& plugin, const Ingested& blob, std::string_view request) {
  ASSIGN_OR_RETURN(auto ranges, plugin.Plan(blob.result.stream_info->span(), blob.result.entries->span(),
                                            Bytes(request), blob.stored.size()));
  std::vector<BufferPtr> bytes = ReadRanges(blob.stored, ranges);
  return plugin.Decode(Bytes(request), blob.result.stream_info->span(), blob.result.entries->span(), ranges, bytes);
}

}  // namespace lancet::media::testing
