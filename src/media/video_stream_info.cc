#include "lancet/media/video_stream_info.h"

#include <cstring>

#include "lancet/media_video.h"
#include "media/video_wire.h"

namespace lancet::media {
namespace {

using video_wire::U16;
using video_wire::U32;
using video_wire::U64;

int32_t I32(std::span<const uint8_t> b, size_t at) { return static_cast<int32_t>(U32(b, at)); }
int64_t I64(std::span<const uint8_t> b, size_t at) { return static_cast<int64_t>(U64(b, at)); }

// A NUL-padded name of 16 bytes: the text before the first NUL, NUL padding after it.
Result<std::string> Name(std::span<const uint8_t> b, size_t at, const char* what) {
  auto field = b.subspan(at, 16);
  size_t n = 0;
  while (n < field.size() && field[n] != 0) ++n;
  for (size_t i = n; i < field.size(); ++i) {
    if (field[i] != 0) return Status::Corruption(std::string("video stream_info: ") + what + " is not NUL-padded");
  }
  for (size_t i = 0; i < n; ++i) {
    if (field[i] < 0x20 || field[i] > 0x7e) {
      return Status::Corruption(std::string("video stream_info: ") + what + " is not printable ASCII");
    }
  }
  return std::string(reinterpret_cast<const char*>(field.data()), n);
}

}  // namespace

bool IsVideoStreamInfo(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && U32(bytes, 0) == LANCET_VIDEO_STREAM_INFO_MAGIC;
}

Result<VideoStreamInfo> ParseVideoStreamInfo(std::span<const uint8_t> b) {
  if (!IsVideoStreamInfo(b)) {
    return Status::Corruption("video stream_info of " + std::to_string(b.size()) + " bytes lacks the magic LVSI");
  }
  if (b.size() < 8) return Status::Corruption("video stream_info is truncated");
  if (U16(b, 4) != 1) return Status::Corruption("video stream_info version " + std::to_string(U16(b, 4)) + ", not 1");
  const uint64_t header = U16(b, 6);
  if (header < LANCET_VIDEO_STREAM_INFO_HEADER_SIZE || header > b.size()) {
    return Status::Corruption("video stream_info header size " + std::to_string(header) + " does not fit its " +
                              std::to_string(b.size()) + " bytes (version 1 needs 160)");
  }
  VideoStreamInfo si;
  si.codec_id = U32(b, 8);
  si.width = U32(b, 20);
  si.height = U32(b, 24);
  si.time_base_num = I32(b, 32);
  si.time_base_den = I32(b, 36);
  si.frame_rate_num = I32(b, 40);
  si.frame_rate_den = I32(b, 44);
  si.start_pts = I64(b, 48);
  const int64_t duration = I64(b, 56);
  si.frame_count = U64(b, 64);
  si.gop_count = U64(b, 72);
  const uint32_t flags = U32(b, 92);
  si.open_gop = (flags & LANCET_VIDEO_SI_OPEN_GOP) != 0;
  si.b_frames = (flags & LANCET_VIDEO_SI_B_FRAMES) != 0;
  si.bit_rate = I64(b, 120);
  ASSIGN_OR_RETURN(si.codec, Name(b, 128, "codec name"));
  ASSIGN_OR_RETURN(si.pixel_format, Name(b, 144, "pixel format name"));
  if (si.time_base_num <= 0 || si.time_base_den <= 0) {
    return Status::Corruption("video stream_info time base " + std::to_string(si.time_base_num) + "/" +
                              std::to_string(si.time_base_den) + " is not positive");
  }
  if (si.frame_rate_num > 0 && si.frame_rate_den > 0) {
    si.fps = static_cast<double>(si.frame_rate_num) / si.frame_rate_den;
  }
  if (duration > 0) si.duration_s = static_cast<double>(duration) * si.time_base_num / si.time_base_den;
  return si;
}

}  // namespace lancet::media
