// The wire formats of include/lancet/media_video.h. Readers treat every byte as hostile:
// sizes are checked before each read and counts against the bytes that hold them, so a
// bad input is ECORRUPT/EINVAL and never an allocation larger than the input itself.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "video_internal.h"

namespace lancet_video {
namespace {

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t U64(const uint8_t* p) { return U32(p) | (static_cast<uint64_t>(U32(p + 4)) << 32); }
int32_t I32(const uint8_t* p) { return static_cast<int32_t>(U32(p)); }
int64_t I64(const uint8_t* p) { return static_cast<int64_t>(U64(p)); }
double F64(const uint8_t* p) {
  uint64_t bits = U64(p);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

void PutI32(uint8_t* p, int32_t v) { PutU32(p, static_cast<uint32_t>(v)); }
void PutI64(uint8_t* p, int64_t v) { PutU64(p, static_cast<uint64_t>(v)); }

void PutName(uint8_t* p, const std::string& name) {
  std::memset(p, 0, 16);
  std::memcpy(p, name.data(), name.size() < 15 ? name.size() : 15);
}

std::string GetName(const uint8_t* p) {
  size_t n = 0;
  while (n < 16 && p[n] != 0) ++n;
  return std::string(reinterpret_cast<const char*>(p), n);
}

// Magic, `version` and a header size of at least `base` that fits in `size`.
uint16_t CheckHeader(const uint8_t* data, uint64_t size, uint32_t magic, uint16_t base, const char* what,
                     uint16_t version = 1) {
  if (data == nullptr || size < 8) Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " is shorter than its header");
  if (U32(data) != magic) Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " has the wrong magic");
  if (U16(data + 4) != version) {
    Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " version " + std::to_string(U16(data + 4)) +
                                    " not supported (this plugin reads version " + std::to_string(version) + ")");
  }
  uint16_t header = U16(data + 6);
  if (header < base || header > size) {
    Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " declares a " + std::to_string(header) + "-byte header in " +
                                    std::to_string(size) + " bytes (at least " + std::to_string(base) + ")");
  }
  return header;
}

}  // namespace

void PutU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutF64(uint8_t* p, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  PutU64(p, bits);
}

std::vector<uint8_t> WriteStreamInfo(const StreamInfo& si) {
  constexpr uint32_t h = LANCET_VIDEO_STREAM_INFO_HEADER_SIZE;
  std::vector<uint8_t> out(h + 4 + si.extradata.size(), 0);
  uint8_t* p = out.data();
  PutU32(p, LANCET_VIDEO_STREAM_INFO_MAGIC);
  PutU16(p + 4, 1);
  PutU16(p + 6, h);
  PutU32(p + 8, si.codec_id);
  PutI32(p + 12, si.profile);
  PutI32(p + 16, si.level);
  PutU32(p + 20, si.width);
  PutU32(p + 24, si.height);
  PutI32(p + 28, si.pixel_format);
  PutI32(p + 32, si.time_base_num);
  PutI32(p + 36, si.time_base_den);
  PutI32(p + 40, si.frame_rate_num);
  PutI32(p + 44, si.frame_rate_den);
  PutI64(p + 48, si.start_pts);
  PutI64(p + 56, si.duration);
  PutU64(p + 64, si.frame_count);
  PutU64(p + 72, si.gop_count);
  PutI32(p + 80, si.sar_num);
  PutI32(p + 84, si.sar_den);
  PutU32(p + 88, si.video_delay);
  PutU32(p + 92, si.flags);
  PutI32(p + 96, si.color_range);
  PutI32(p + 100, si.color_primaries);
  PutI32(p + 104, si.color_trc);
  PutI32(p + 108, si.colorspace);
  PutI32(p + 112, si.chroma_location);
  PutI32(p + 116, si.field_order);
  PutI64(p + 120, si.bit_rate);
  PutName(p + 128, si.codec_name);
  PutName(p + 144, si.pixel_format_name);
  PutU32(p + h, static_cast<uint32_t>(si.extradata.size()));
  if (!si.extradata.empty()) std::memcpy(p + h + 4, si.extradata.data(), si.extradata.size());
  return out;
}

StreamInfo ReadStreamInfo(const uint8_t* data, uint64_t size) {
  uint16_t h =
      CheckHeader(data, size, LANCET_VIDEO_STREAM_INFO_MAGIC, LANCET_VIDEO_STREAM_INFO_HEADER_SIZE, "stream_info");
  if (size - h < 4) Fail(LANCET_MEDIA_ECORRUPT, "stream_info ends before its extradata size");
  uint32_t extra = U32(data + h);
  if (extra > (1u << 26)) Fail(LANCET_MEDIA_ECORRUPT, "stream_info extradata is over 64 MiB");
  if (extra != size - h - 4) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info declares " + std::to_string(extra) + " extradata bytes but holds " +
                                    std::to_string(size - h - 4));
  }
  const uint8_t* p = data;
  StreamInfo si;
  si.codec_id = U32(p + 8);
  si.profile = I32(p + 12);
  si.level = I32(p + 16);
  si.width = U32(p + 20);
  si.height = U32(p + 24);
  si.pixel_format = I32(p + 28);
  si.time_base_num = I32(p + 32);
  si.time_base_den = I32(p + 36);
  si.frame_rate_num = I32(p + 40);
  si.frame_rate_den = I32(p + 44);
  si.start_pts = I64(p + 48);
  si.duration = I64(p + 56);
  si.frame_count = U64(p + 64);
  si.gop_count = U64(p + 72);
  si.sar_num = I32(p + 80);
  si.sar_den = I32(p + 84);
  si.video_delay = U32(p + 88);
  si.flags = U32(p + 92);
  si.color_range = I32(p + 96);
  si.color_primaries = I32(p + 100);
  si.color_trc = I32(p + 104);
  si.colorspace = I32(p + 108);
  si.chroma_location = I32(p + 112);
  si.field_order = I32(p + 116);
  si.bit_rate = I64(p + 120);
  si.codec_name = GetName(p + 128);
  si.pixel_format_name = GetName(p + 144);
  si.extradata.assign(data + h + 4, data + size);
  if (si.time_base_num <= 0 || si.time_base_den <= 0) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad time base");
  // AVCodecID's enumerators stay below 2^18; a larger value is no codec at all (and would
  // be an out-of-range enum in C++).
  if (si.codec_id >= (1u << 18)) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has an unknown codec id");
  if (si.width == 0 || si.height == 0 || si.width > kMaxDimension || si.height > kMaxDimension) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "stream_info has a bad size " + std::to_string(si.width) + "x" + std::to_string(si.height));
  }
  if (si.frame_count == 0 || si.gop_count == 0 || si.gop_count > si.frame_count) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has bad frame/GOP counts");
  }
  if (!PtsInRange(si.start_pts) || si.duration < 0 || si.duration > kMaxDuration) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad start or duration");
  }
  return si;
}

int64_t TimeCheckpoint(int64_t first, int64_t last, uint32_t c) {
  // ceil((c + 1) * span / 16) without overflowing: span is below 2^61.
  const uint64_t span = static_cast<uint64_t>(last - first) + 1, k = c + 1;
  const uint64_t q = span / kCheckpoints, rem = span % kCheckpoints;
  return first + static_cast<int64_t>(k * q + (k * rem + kCheckpoints - 1) / kCheckpoints);
}

uint32_t RankCheckpoint(uint64_t rank, uint64_t frames) {
  return static_cast<uint32_t>(std::min<uint64_t>(rank * kCheckpoints / frames, kCheckpoints - 1));
}

void ComputePrefixes(const std::vector<PacketRecord>& packets, GopRecord* g) {
  const size_t n = packets.size();
  // end[k]: bytes from the GOP's offset through packet k, which showing packet k's frame
  // needs, since every packet it references comes before it in decode order.
  std::vector<uint64_t> end(n);
  uint64_t at = g->table_size;
  for (size_t k = 0; k < n; ++k) end[k] = at += packets[k].size;
  std::vector<size_t> by_pts(n);
  for (size_t k = 0; k < n; ++k) by_pts[k] = k;
  std::sort(by_pts.begin(), by_pts.end(), [&](size_t a, size_t b) { return packets[a].pts < packets[b].pts; });
  const uint64_t key = uint64_t{g->table_size} + g->key_size;
  for (uint32_t c = 0; c < kCheckpoints; ++c) {
    const uint64_t ranks = (uint64_t{c + 1} * n + kCheckpoints - 1) / kCheckpoints;
    const int64_t below = TimeCheckpoint(g->first_pts, g->last_pts, c);
    uint64_t by_rank = key, by_time = key;
    for (uint64_t r = 0; r < n; ++r) {
      const size_t k = by_pts[r];
      if (r < ranks) by_rank = std::max(by_rank, end[k]);
      if (packets[k].pts < below) by_time = std::max(by_time, end[k]);
    }
    g->rank_prefix[c] = by_rank;
    g->time_prefix[c] = by_time;
  }
}

std::vector<uint8_t> WriteEntries(const Index& index) {
  constexpr uint32_t h = LANCET_VIDEO_ENTRIES_HEADER_SIZE;
  const uint64_t g = index.gops.size();
  std::vector<uint8_t> out(h + g * LANCET_VIDEO_GOP_RECORD_SIZE, 0);
  uint8_t* p = out.data();
  PutU32(p, LANCET_VIDEO_ENTRIES_MAGIC);
  PutU16(p + 4, LANCET_VIDEO_ENTRIES_VERSION);
  PutU16(p + 6, h);
  PutU32(p + 8, static_cast<uint32_t>(g));
  PutU64(p + 16, index.packet_count);
  p += h;
  for (const GopRecord& r : index.gops) {
    PutU64(p, r.offset);
    PutU64(p + 8, r.size);
    PutI64(p + 16, r.first_pts);
    PutI64(p + 24, r.last_pts);
    PutI64(p + 32, r.key_pts);
    PutI64(p + 40, r.key_dts);
    PutU32(p + 48, r.first_packet);
    PutU32(p + 52, r.packet_count);
    PutU32(p + 56, r.frame_count);
    PutU32(p + 60, r.flags);
    PutU32(p + 64, r.table_size);
    PutU32(p + 68, r.key_size);
    PutU32(p + 72, r.leading_count);
    for (uint32_t c = 0; c < kCheckpoints; ++c) {
      if (r.rank_prefix[c] > UINT32_MAX || r.time_prefix[c] > UINT32_MAX) {
        Fail(LANCET_MEDIA_ENOTSUP, "a GOP of " + std::to_string(r.size) + " bytes: at most 4 GiB per GOP");
      }
      PutU32(p + 80 + 4 * c, static_cast<uint32_t>(r.rank_prefix[c]));
      PutU32(p + 144 + 4 * c, static_cast<uint32_t>(r.time_prefix[c]));
    }
    p += LANCET_VIDEO_GOP_RECORD_SIZE;
  }
  return out;
}

Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si) {
  // Version 2 (no checkpoints) is still read: its GOPs are only ever read whole.
  const bool v2 = data != nullptr && size >= 8 && U32(data) == LANCET_VIDEO_ENTRIES_MAGIC && U16(data + 4) == 2;
  uint16_t h = CheckHeader(data, size, LANCET_VIDEO_ENTRIES_MAGIC, LANCET_VIDEO_ENTRIES_HEADER_SIZE, "entries",
                           v2 ? 2 : LANCET_VIDEO_ENTRIES_VERSION);
  const uint64_t record = v2 ? LANCET_VIDEO_GOP_RECORD_SIZE_V2 : LANCET_VIDEO_GOP_RECORD_SIZE;
  const uint64_t g = U32(data + 8);
  const uint64_t n = U64(data + 16);
  if (U32(data + 12) != 0) Fail(LANCET_MEDIA_ECORRUPT, "entries has non-zero reserved bytes");
  const uint64_t body = size - h;
  if (g > body / record || g * record != body) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "entries declares " + std::to_string(g) + " GOPs, which do not fill its " + std::to_string(size) + " bytes");
  }
  if (g != si.gop_count || n != si.frame_count) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries (" + std::to_string(g) + " GOPs, " + std::to_string(n) +
                                    " packets) disagree with stream_info (" + std::to_string(si.gop_count) + ", " +
                                    std::to_string(si.frame_count) + ")");
  }
  if (n > UINT32_MAX) Fail(LANCET_MEDIA_ECORRUPT, "entries has more than 2^32 packets");
  Index index;
  index.packet_count = n;
  index.gops.resize(g);
  const uint8_t* p = data + h;
  uint64_t next = 0, offset = 0;
  for (uint64_t i = 0; i < g; ++i, p += record) {
    GopRecord& r = index.gops[i];
    r.offset = U64(p);
    r.size = U64(p + 8);
    r.first_pts = I64(p + 16);
    r.last_pts = I64(p + 24);
    r.key_pts = I64(p + 32);
    r.key_dts = I64(p + 40);
    r.first_packet = U32(p + 48);
    r.packet_count = U32(p + 52);
    r.frame_count = U32(p + 56);
    r.flags = U32(p + 60);
    r.table_size = U32(p + 64);
    r.key_size = U32(p + 68);
    r.leading_count = U32(p + 72);
    bool ok = U32(p + 76) == 0 && r.first_packet == next && r.packet_count > 0 && r.packet_count <= n - next &&
              r.frame_count == r.packet_count && (r.flags & ~LANCET_VIDEO_GOP_OPEN) == 0 &&
              uint64_t{r.table_size} == uint64_t{r.packet_count} * LANCET_VIDEO_PACKET_RECORD_SIZE &&
              r.offset == offset && r.size <= (uint64_t{1} << 62) - offset &&
              r.size >= uint64_t{r.table_size} + r.key_size && r.key_size > 0 && r.key_size <= kMaxPacketSize &&
              PtsInRange(r.first_pts) && PtsInRange(r.last_pts) && PtsInRange(r.key_pts) &&
              (r.key_dts == kNoPts || PtsInRange(r.key_dts)) && r.first_pts <= r.key_pts && r.key_pts <= r.last_pts &&
              r.leading_count < r.packet_count && (r.leading_count == 0) == (r.first_pts == r.key_pts) &&
              (r.leading_count == 0 || (r.flags & LANCET_VIDEO_GOP_OPEN) != 0) &&
              uint64_t{r.packet_count} - 1 <= static_cast<uint64_t>(r.last_pts - r.first_pts) &&
              (i == 0 || r.first_pts > index.gops[i - 1].last_pts);
    if (!ok) Fail(LANCET_MEDIA_ECORRUPT, "entries: GOP " + std::to_string(i) + " is not the next GOP of the stream");
    const uint64_t key = uint64_t{r.table_size} + r.key_size;
    for (uint32_t c = 0; c < kCheckpoints; ++c) {
      r.rank_prefix[c] = v2 ? r.size : U32(p + 80 + 4 * c);
      r.time_prefix[c] = v2 ? r.size : U32(p + 144 + 4 * c);
      const bool rising = c == 0 ? r.rank_prefix[0] >= key && r.time_prefix[0] >= key
                                 : r.rank_prefix[c] >= r.rank_prefix[c - 1] && r.time_prefix[c] >= r.time_prefix[c - 1];
      if (!rising || r.rank_prefix[c] > r.size || r.time_prefix[c] > r.size) {
        Fail(LANCET_MEDIA_ECORRUPT, "entries: GOP " + std::to_string(i) + "'s checkpoint " + std::to_string(c) +
                                        " is not a prefix of the GOP after the one before");
      }
    }
    if (r.rank_prefix[kCheckpoints - 1] != r.size || r.time_prefix[kCheckpoints - 1] != r.size) {
      Fail(LANCET_MEDIA_ECORRUPT, "entries: GOP " + std::to_string(i) + "'s last checkpoints are not the whole GOP");
    }
    next += r.packet_count;
    offset += r.size;
  }
  if (next != n) Fail(LANCET_MEDIA_ECORRUPT, "entries: the GOPs do not cover every packet");
  return index;
}

void WritePacketTable(const std::vector<PacketRecord>& packets, std::vector<uint8_t>* out) {
  out->assign(packets.size() * LANCET_VIDEO_PACKET_RECORD_SIZE, 0);
  uint8_t* p = out->data();
  uint64_t offset = 0;
  for (const PacketRecord& r : packets) {
    PutU64(p, offset);
    PutU32(p + 8, r.size);
    PutU32(p + 12, r.flags);
    PutI64(p + 16, r.pts);
    PutI64(p + 24, r.dts);
    offset += r.size;
    p += LANCET_VIDEO_PACKET_RECORD_SIZE;
  }
}

std::vector<PacketRecord> ReadPacketTable(const uint8_t* data, uint64_t size, const GopRecord& gop, uint32_t g) {
  if (size < gop.table_size) Fail(LANCET_MEDIA_EINVAL, "GOP " + std::to_string(g) + "'s packet table is cut short");
  const std::string where = "stored stream: GOP " + std::to_string(g) + "'s packet table";
  std::vector<PacketRecord> packets(gop.packet_count);
  const uint64_t base = gop.offset + gop.table_size;
  uint64_t offset = 0;
  int64_t min_pts = INT64_MAX, max_pts = INT64_MIN;
  uint32_t leading = 0;
  const uint8_t* p = data;
  for (uint32_t k = 0; k < gop.packet_count; ++k, p += LANCET_VIDEO_PACKET_RECORD_SIZE) {
    PacketRecord& r = packets[k];
    r.offset = U64(p);
    r.size = U32(p + 8);
    r.flags = U32(p + 12);
    r.pts = I64(p + 16);
    r.dts = I64(p + 24);
    const bool key = k == 0;
    if (r.offset != offset || r.size == 0 || r.size > kMaxPacketSize ||
        r.flags != (key ? LANCET_VIDEO_PACKET_KEY : 0u) || !PtsInRange(r.pts) ||
        (r.dts != kNoPts && !PtsInRange(r.dts)) ||
        (key && (r.size != gop.key_size || r.pts != gop.key_pts || r.dts != gop.key_dts))) {
      Fail(LANCET_MEDIA_ECORRUPT, where + ": packet " + std::to_string(k) + " does not match its GOP");
    }
    offset += r.size;
    r.offset += base;
    min_pts = std::min(min_pts, r.pts);
    max_pts = std::max(max_pts, r.pts);
    if (r.pts < gop.key_pts) ++leading;
  }
  if (offset != gop.size - gop.table_size || min_pts != gop.first_pts || max_pts != gop.last_pts ||
      leading != gop.leading_count) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " disagrees with the GOP record");
  }
  return packets;
}

Request ReadRequest(const uint8_t* data, uint64_t size) {
  constexpr uint64_t h = LANCET_VIDEO_REQUEST_HEADER_SIZE;
  if (data == nullptr || size < h) Fail(LANCET_MEDIA_EINVAL, "request is shorter than its 24-byte header");
  if (U32(data) != LANCET_VIDEO_REQUEST_MAGIC) Fail(LANCET_MEDIA_EINVAL, "request has the wrong magic");
  if (U16(data + 4) != 1) {
    Fail(LANCET_MEDIA_EINVAL, "request has version " + std::to_string(U16(data + 4)) + ", this plugin reads version 1");
  }
  Request r;
  r.kind = data[6];
  r.flags = data[7];
  r.pixel_format = data[8];
  r.width = U32(data + 12);
  r.height = U32(data + 16);
  r.threads = U32(data + 20);
  if (r.kind < LANCET_VIDEO_REQ_WINDOW || r.kind > LANCET_VIDEO_REQ_CLIP) {
    Fail(LANCET_MEDIA_EINVAL, "request kind " + std::to_string(r.kind) + " is unknown");
  }
  if ((r.flags & ~(LANCET_VIDEO_FLAG_KEYFRAMES_ONLY | LANCET_VIDEO_FLAG_FAST_CONVERT)) != 0) {
    Fail(LANCET_MEDIA_EINVAL, "request has unknown flags");
  }
  if ((r.flags & LANCET_VIDEO_FLAG_FAST_CONVERT) && r.kind == LANCET_VIDEO_REQ_CLIP) {
    Fail(LANCET_MEDIA_EINVAL, "the fast-convert flag applies to decoded frames, not to clips");
  }
  if ((r.flags & LANCET_VIDEO_FLAG_KEYFRAMES_ONLY) && r.kind != LANCET_VIDEO_REQ_WINDOW &&
      r.kind != LANCET_VIDEO_REQ_TIMESTAMPS) {
    Fail(LANCET_MEDIA_EINVAL, "the keyframes-only flag applies to window and timestamps requests only");
  }
  if (r.pixel_format > LANCET_VIDEO_PIX_YUV420P) {
    Fail(LANCET_MEDIA_EINVAL, "request pixel format " + std::to_string(r.pixel_format) + " is unknown");
  }
  if (data[9] != 0 || data[10] != 0 || data[11] != 0) Fail(LANCET_MEDIA_EINVAL, "request has non-zero reserved bytes");
  if (r.width > kMaxDimension || r.height > kMaxDimension) {
    Fail(LANCET_MEDIA_EINVAL, "request output size is over " + std::to_string(kMaxDimension));
  }
  if (r.threads > kMaxThreads) Fail(LANCET_MEDIA_EINVAL, "request asks for more than 64 decoder threads");
  const uint8_t* p = data + h;
  const uint64_t body = size - h;
  if (r.kind == LANCET_VIDEO_REQ_WINDOW || r.kind == LANCET_VIDEO_REQ_CLIP) {
    if (body != 16) Fail(LANCET_MEDIA_EINVAL, "a window request has 16 payload bytes, got " + std::to_string(body));
    r.t0 = F64(p);
    r.t1 = F64(p + 8);
    if (std::isnan(r.t0) || std::isnan(r.t1) || r.t1 < r.t0) {
      Fail(LANCET_MEDIA_EINVAL, "the window [t0, t1) needs t0 <= t1, neither NaN");
    }
    return r;
  }
  if (body < 8) Fail(LANCET_MEDIA_EINVAL, "request payload is shorter than its count");
  const uint64_t count = U32(p);
  if (U32(p + 4) != 0) Fail(LANCET_MEDIA_EINVAL, "request has non-zero reserved bytes");
  if (count > kMaxRequestItems || body - 8 != count * 8) {
    Fail(LANCET_MEDIA_EINVAL,
         "request declares " + std::to_string(count) + " items in " + std::to_string(body - 8) + " bytes");
  }
  p += 8;
  for (uint64_t i = 0; i < count; ++i, p += 8) {
    if (r.kind == LANCET_VIDEO_REQ_FRAMES) {
      r.frames.push_back(U64(p));
    } else {
      double t = F64(p);
      if (std::isnan(t)) Fail(LANCET_MEDIA_EINVAL, "request timestamp " + std::to_string(i) + " is NaN");
      r.times.push_back(t);
    }
  }
  return r;
}

}  // namespace lancet_video
