// Helpers for the media tests: the chunks plugin, payloads and whole ingests.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/media/plugin_host.h"

namespace lancet::media::testing {

/// The chunks plugin with config text `config`.
PluginSpec ChunksSpec(std::string_view config = "");

/// Objects the chunks plugin handed out and nobody released yet (negative after a double
/// release). The helper keeps the plugin library loaded, so the count spans the process.
int64_t ChunksLiveObjects();

std::span<const uint8_t> Bytes(std::string_view text);

/// `size` pseudo-random bytes.
std::vector<uint8_t> Payload(size_t size, uint32_t seed);

struct Ingested {
  std::vector<uint8_t> stored;
  IngestResult result;
};

/// Ingests `source` in pushes whose sizes cycle through `push_sizes`.
Result<Ingested> IngestAll(const MediaPlugin& plugin, std::span<const uint8_t> source,
                           std::span<const size_t> push_sizes);

/// Plans `request`, reads the planned ranges from `blob.stored` and decodes them.
Result<DecodedOutput> Extract(const MediaPlugin& plugin, const Ingested& blob, std::string_view request);

/// The bytes of `ranges` from `stored`, one buffer each.
std::vector<BufferPtr> ReadRanges(std::span<const uint8_t> stored, std::span<const io::ByteRange> ranges);

}  // namespace lancet::media::testing
