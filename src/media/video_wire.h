// The video plugin's request and decode-result layouts (lancet/media_video.h) as C++:
// encoding requests and bounds-checked parsing of what the plugin returns. Internal to
// the media layer; tests use it directly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lancet/media/video.h"

namespace lancet::media::video_wire {

/// Little-endian readers over untrusted bytes. REQUIRES: offset + width <= bytes.size().
uint16_t U16(std::span<const uint8_t> bytes, size_t offset);
uint32_t U32(std::span<const uint8_t> bytes, size_t offset);
uint64_t U64(std::span<const uint8_t> bytes, size_t offset);
double F64(std::span<const uint8_t> bytes, size_t offset);

/// The request bytes of `request`. InvalidArgument for an empty or non-finite
/// selection, t1 < t0 or an unknown pixel format.
Result<std::vector<uint8_t>> EncodeFrameRequest(const FrameRequest& request);
/// A REQ_CLIP request for [t0, t1). InvalidArgument unless 0 <= t0 < t1, both finite.
Result<std::vector<uint8_t>> EncodeClipRequest(double t0, double t1);

/// A frame record of the decoded-frames metadata, before its pixels are attached.
struct FrameRecord {
  Frame frame;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// \brief Parses decode's metadata for a frames request and checks every record against
/// `data_size`: each pixel range inside the data, its size what width x height x format
/// need, indices ascending. Corruption describing the first violation.
Result<std::vector<FrameRecord>> ParseFrameRecords(std::span<const uint8_t> metadata, uint64_t data_size);

/// The frames of one decode output, each viewing `data`.
Result<std::vector<Frame>> ParseFrames(std::span<const uint8_t> metadata, const BufferPtr& data);

struct ClipRecord {
  uint64_t frames = 0;
  double start_s = 0;
  double end_s = 0;
};
/// Parses decode's metadata for a clip request. Corruption for a wrong magic, version
/// or header size.
Result<ClipRecord> ParseClipRecord(std::span<const uint8_t> metadata);

}  // namespace lancet::media::video_wire
