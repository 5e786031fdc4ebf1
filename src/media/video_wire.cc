#include "media/video_wire.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "lancet/media_video.h"

namespace lancet::media::video_wire {
namespace {

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t offset) {
  static_assert(std::endian::native == std::endian::little, "the wire formats are little-endian");
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

template <typename T>
void Store(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

std::vector<uint8_t> Header(uint8_t kind, const FrameRequest& r) {
  std::vector<uint8_t> out;
  Store<uint32_t>(out, LANCET_VIDEO_REQUEST_MAGIC);
  Store<uint16_t>(out, 1);
  out.push_back(kind);
  out.push_back(static_cast<uint8_t>((r.keyframes_only ? LANCET_VIDEO_FLAG_KEYFRAMES_ONLY : 0) |
                                     (r.exact ? 0 : LANCET_VIDEO_FLAG_FAST_CONVERT)));
  out.push_back(static_cast<uint8_t>(r.format));
  out.insert(out.end(), 3, 0);
  Store<uint32_t>(out, r.width);
  Store<uint32_t>(out, r.height);
  Store<uint32_t>(out, r.threads);
  return out;
}

Status CheckWindow(double t0, double t1, bool allow_empty) {
  if (!std::isfinite(t0) || !std::isfinite(t1) || t0 < 0 || t1 < t0 || (!allow_empty && t1 == t0)) {
    return Status::InvalidArgument("window [" + std::to_string(t0) + ", " + std::to_string(t1) +
                                   ") is not a time range (need 0 <= t0 " + (allow_empty ? "<=" : "<") +
                                   " t1, both finite)");
  }
  return Status::OK();
}

std::string Describe(size_t i, const Frame& f) {
  return "frame record " + std::to_string(i) + " (frame " + std::to_string(f.index) + ")";
}

}  // namespace

uint16_t U16(std::span<const uint8_t> bytes, size_t offset) { return Load<uint16_t>(bytes, offset); }
uint32_t U32(std::span<const uint8_t> bytes, size_t offset) { return Load<uint32_t>(bytes, offset); }
uint64_t U64(std::span<const uint8_t> bytes, size_t offset) { return Load<uint64_t>(bytes, offset); }
double F64(std::span<const uint8_t> bytes, size_t offset) { return Load<double>(bytes, offset); }

Result<std::vector<uint8_t>> EncodeFrameRequest(const FrameRequest& request) {
  if (static_cast<uint8_t>(request.format) > LANCET_VIDEO_PIX_YUV420P) {
    return Status::InvalidArgument("unknown pixel format " + std::to_string(static_cast<int>(request.format)));
  }
  // The counts are u32 on the wire; far fewer frames than that fit any output limit.
  constexpr size_t kMaxSelected = 1u << 20;
  switch (request.kind) {
    case FrameRequest::Kind::kWindow: {
      RETURN_IF_ERROR(CheckWindow(request.t0, request.t1, true));
      std::vector<uint8_t> out = Header(LANCET_VIDEO_REQ_WINDOW, request);
      Store<double>(out, request.t0);
      Store<double>(out, request.t1);
      return out;
    }
    case FrameRequest::Kind::kFrames: {
      if (request.frames.empty()) return Status::InvalidArgument("frame request names no frame index");
      if (request.frames.size() > kMaxSelected) {
        return Status::InvalidArgument("frame request names " + std::to_string(request.frames.size()) +
                                       " frames; at most " + std::to_string(kMaxSelected));
      }
      std::vector<uint8_t> out = Header(LANCET_VIDEO_REQ_FRAMES, request);
      Store<uint32_t>(out, static_cast<uint32_t>(request.frames.size()));
      Store<uint32_t>(out, 0);
      for (uint64_t f : request.frames) Store<uint64_t>(out, f);
      return out;
    }
    case FrameRequest::Kind::kTimestamps: {
      if (request.timestamps.empty()) return Status::InvalidArgument("timestamp request names no time");
      if (request.timestamps.size() > kMaxSelected) {
        return Status::InvalidArgument("timestamp request names " + std::to_string(request.timestamps.size()) +
                                       " times; at most " + std::to_string(kMaxSelected));
      }
      std::vector<uint8_t> out = Header(LANCET_VIDEO_REQ_TIMESTAMPS, request);
      Store<uint32_t>(out, static_cast<uint32_t>(request.timestamps.size()));
      Store<uint32_t>(out, 0);
      for (double t : request.timestamps) {
        if (!std::isfinite(t) || t < 0) {
          return Status::InvalidArgument("timestamp " + std::to_string(t) + " is not a time (need finite, >= 0)");
        }
        Store<double>(out, t);
      }
      return out;
    }
  }
  return Status::InvalidArgument("unknown frame request kind " + std::to_string(static_cast<int>(request.kind)));
}

Result<std::vector<uint8_t>> EncodeClipRequest(double t0, double t1) {
  RETURN_IF_ERROR(CheckWindow(t0, t1, false));
  std::vector<uint8_t> out = Header(LANCET_VIDEO_REQ_CLIP, FrameRequest{});
  Store<double>(out, t0);
  Store<double>(out, t1);
  return out;
}

Result<std::vector<FrameRecord>> ParseFrameRecords(std::span<const uint8_t> m, uint64_t data_size) {
  if (m.size() < LANCET_VIDEO_FRAMES_HEADER_SIZE || U32(m, 0) != LANCET_VIDEO_FRAMES_MAGIC) {
    return Status::Corruption("decode metadata of " + std::to_string(m.size()) +
                              " bytes is not a decoded-frames header (magic LVFM)");
  }
  if (U16(m, 4) != 1) return Status::Corruption("decoded frames version " + std::to_string(U16(m, 4)) + ", not 1");
  const uint64_t header = U16(m, 6);
  const uint64_t count = U32(m, 8);
  if (header < LANCET_VIDEO_FRAMES_HEADER_SIZE || header > m.size() ||
      count > (m.size() - header) / LANCET_VIDEO_FRAME_RECORD_SIZE) {
    return Status::Corruption("decoded frames header (size " + std::to_string(header) + ", " + std::to_string(count) +
                              " records) does not fit its " + std::to_string(m.size()) + " bytes");
  }
  std::vector<FrameRecord> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const auto r = m.subspan(header + i * LANCET_VIDEO_FRAME_RECORD_SIZE, LANCET_VIDEO_FRAME_RECORD_SIZE);
    FrameRecord rec;
    Frame& f = rec.frame;
    f.index = U64(r, 0);
    f.pts = static_cast<int64_t>(U64(r, 8));
    f.time_s = F64(r, 16);
    f.width = U32(r, 24);
    f.height = U32(r, 28);
    rec.offset = U64(r, 40);
    rec.size = U64(r, 48);
    if (r[32] > LANCET_VIDEO_PIX_YUV420P) {
      return Status::Corruption(Describe(i, f) + " has pixel format " + std::to_string(r[32]));
    }
    f.format = static_cast<PixelFormat>(r[32]);
    if (f.width == 0 || f.height == 0 || f.width > 65536 || f.height > 65536) {
      return Status::Corruption(Describe(i, f) + " is " + std::to_string(f.width) + "x" + std::to_string(f.height));
    }
    const uint64_t need = FrameBytes(f.format, f.width, f.height);
    if (rec.size != need) {
      return Status::Corruption(Describe(i, f) + " has " + std::to_string(rec.size) + " bytes; " +
                                std::to_string(f.width) + "x" + std::to_string(f.height) + " " +
                                PixelFormatName(f.format) + " needs " + std::to_string(need));
    }
    if (rec.offset > data_size || rec.size > data_size - rec.offset) {
      return Status::Corruption(Describe(i, f) + " pixels [" + std::to_string(rec.offset) + ", +" +
                                std::to_string(rec.size) + ") lie past the " + std::to_string(data_size) +
                                "-byte output");
    }
    if (!std::isfinite(f.time_s)) return Status::Corruption(Describe(i, f) + " has a non-finite time");
    if (!out.empty() && f.index <= out.back().frame.index) {
      return Status::Corruption(Describe(i, f) + " does not follow frame " + std::to_string(out.back().frame.index) +
                                " (indices must ascend)");
    }
    out.push_back(std::move(rec));
  }
  return out;
}

Result<std::vector<Frame>> ParseFrames(std::span<const uint8_t> metadata, const BufferPtr& data) {
  const uint64_t size = data ? data->size() : 0;
  ASSIGN_OR_RETURN(std::vector<FrameRecord> records, ParseFrameRecords(metadata, size));
  std::vector<Frame> frames;
  frames.reserve(records.size());
  for (FrameRecord& r : records) {
    r.frame.bytes = Buffer::Slice(data, r.offset, r.size);
    frames.push_back(std::move(r.frame));
  }
  return frames;
}

Result<ClipRecord> ParseClipRecord(std::span<const uint8_t> m) {
  if (m.size() < LANCET_VIDEO_CLIP_HEADER_SIZE || U32(m, 0) != LANCET_VIDEO_CLIP_MAGIC) {
    return Status::Corruption("decode metadata of " + std::to_string(m.size()) +
                              " bytes is not a clip header (magic LVCL)");
  }
  if (U16(m, 4) != 1) return Status::Corruption("clip metadata version " + std::to_string(U16(m, 4)) + ", not 1");
  if (U16(m, 6) < LANCET_VIDEO_CLIP_HEADER_SIZE || U16(m, 6) > m.size()) {
    return Status::Corruption("clip header size " + std::to_string(U16(m, 6)) + " does not fit its " +
                              std::to_string(m.size()) + " bytes");
  }
  ClipRecord c{U64(m, 8), F64(m, 16), F64(m, 24)};
  if (!std::isfinite(c.start_s) || !std::isfinite(c.end_s)) return Status::Corruption("clip times are not finite");
  return c;
}

}  // namespace lancet::media::video_wire
