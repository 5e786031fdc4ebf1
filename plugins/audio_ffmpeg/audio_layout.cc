// The wire formats of include/lancet/media_audio.h. Readers treat every byte as hostile:
// sizes are checked before each read and counts against the bytes that hold them, so a
// bad input is ECORRUPT/EINVAL and never an allocation larger than the input itself.
#include <cmath>
#include <cstring>

#include "audio_internal.h"

namespace lancet_audio {
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

uint16_t CheckHeader(const uint8_t* data, uint64_t size, uint32_t magic, uint16_t base, const char* what) {
  if (data == nullptr || size < 8) Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " is shorter than its header");
  if (U32(data) != magic) Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " has the wrong magic");
  if (U16(data + 4) != 1) {
    Fail(LANCET_MEDIA_ECORRUPT, std::string(what) + " version " + std::to_string(U16(data + 4)) +
                                    " not supported (this plugin reads version 1)");
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
  constexpr uint32_t h = LANCET_AUDIO_STREAM_INFO_HEADER_SIZE;
  std::vector<uint8_t> out(h + 4 + si.extradata.size(), 0);
  uint8_t* p = out.data();
  PutU32(p, LANCET_AUDIO_STREAM_INFO_MAGIC);
  PutU16(p + 4, 1);
  PutU16(p + 6, h);
  PutU32(p + 8, si.codec_id);
  PutI32(p + 12, si.profile);
  PutU32(p + 16, si.sample_rate);
  PutU32(p + 20, si.channels);
  PutU64(p + 24, si.layout_mask);
  PutI32(p + 32, si.sample_format);
  PutI32(p + 36, si.time_base_num);
  PutI32(p + 40, si.time_base_den);
  PutU32(p + 44, si.block_align);
  PutI64(p + 48, si.start_pts);
  PutU64(p + 56, si.sample_count);
  PutU64(p + 64, si.packet_count);
  PutI64(p + 72, si.bit_rate);
  PutU32(p + 80, si.frame_size);
  PutU32(p + 84, si.initial_padding);
  PutU32(p + 88, si.trailing_padding);
  PutU32(p + 92, si.bits_per_coded_sample);
  PutU32(p + 96, si.bits_per_raw_sample);
  PutU32(p + 100, si.flags);
  PutU32(p + 104, si.preroll_samples);
  PutU32(p + 108, si.seek_preroll);
  PutName(p + 112, si.codec_name);
  PutName(p + 128, si.sample_format_name);
  PutU32(p + 144, si.preroll_packets);
  PutU32(p + 148, si.preroll_bytes);
  PutU64(p + 152, si.group_count);
  PutU32(p + h, static_cast<uint32_t>(si.extradata.size()));
  if (!si.extradata.empty()) std::memcpy(p + h + 4, si.extradata.data(), si.extradata.size());
  return out;
}

StreamInfo ReadStreamInfo(const uint8_t* data, uint64_t size) {
  uint16_t h =
      CheckHeader(data, size, LANCET_AUDIO_STREAM_INFO_MAGIC, LANCET_AUDIO_STREAM_INFO_HEADER_SIZE, "stream_info");
  if (size - h < 4) Fail(LANCET_MEDIA_ECORRUPT, "stream_info ends before its extradata size");
  const uint32_t extra = U32(data + h);
  if (extra > (1u << 26)) Fail(LANCET_MEDIA_ECORRUPT, "stream_info extradata is over 64 MiB");
  if (extra != size - h - 4) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info declares " + std::to_string(extra) + " extradata bytes but holds " +
                                    std::to_string(size - h - 4));
  }
  const uint8_t* p = data;
  StreamInfo si;
  si.codec_id = U32(p + 8);
  si.profile = I32(p + 12);
  si.sample_rate = U32(p + 16);
  si.channels = U32(p + 20);
  si.layout_mask = U64(p + 24);
  si.sample_format = I32(p + 32);
  si.time_base_num = I32(p + 36);
  si.time_base_den = I32(p + 40);
  si.block_align = U32(p + 44);
  si.start_pts = I64(p + 48);
  si.sample_count = U64(p + 56);
  si.packet_count = U64(p + 64);
  si.bit_rate = I64(p + 72);
  si.frame_size = U32(p + 80);
  si.initial_padding = U32(p + 84);
  si.trailing_padding = U32(p + 88);
  si.bits_per_coded_sample = U32(p + 92);
  si.bits_per_raw_sample = U32(p + 96);
  si.flags = U32(p + 100);
  si.preroll_samples = U32(p + 104);
  si.seek_preroll = U32(p + 108);
  si.codec_name = GetName(p + 112);
  si.sample_format_name = GetName(p + 128);
  si.preroll_packets = U32(p + 144);
  si.preroll_bytes = U32(p + 148);
  si.group_count = U64(p + 152);
  si.extradata.assign(data + h + 4, data + size);
  if (si.time_base_num <= 0 || si.time_base_den <= 0) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad time base");
  // AVCodecID's enumerators stay below 2^18; a larger value is no codec at all.
  if (si.codec_id >= (1u << 18)) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has an unknown codec id");
  if (si.sample_rate == 0 || si.sample_rate > kMaxRate) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad sample rate " + std::to_string(si.sample_rate));
  }
  if (si.channels == 0 || si.channels > kMaxChannels) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad channel count " + std::to_string(si.channels));
  }
  if (si.layout_mask != 0 && static_cast<uint32_t>(__builtin_popcountll(si.layout_mask)) != si.channels) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info's channel layout does not have its channel count");
  }
  if (si.packet_count == 0 || si.packet_count > UINT32_MAX || si.sample_count > kMaxSamples || si.group_count == 0 ||
      si.group_count > si.packet_count) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has bad packet/sample counts");
  }
  if (!PtsInRange(si.start_pts)) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad start pts");
  if ((si.flags & ~LANCET_AUDIO_SI_PCM) != 0) Fail(LANCET_MEDIA_ECORRUPT, "stream_info has unknown flags");
  if (si.block_align > kMaxPacketSize || si.frame_size > kMaxPacketSamples) {
    Fail(LANCET_MEDIA_ECORRUPT, "stream_info has a bad block align or frame size");
  }
  return si;
}

std::vector<uint8_t> WriteEntries(const Index& index) {
  constexpr uint32_t h = LANCET_AUDIO_ENTRIES_HEADER_SIZE;
  std::vector<uint8_t> out(h + index.groups.size() * LANCET_AUDIO_GROUP_RECORD_SIZE, 0);
  uint8_t* p = out.data();
  PutU32(p, LANCET_AUDIO_ENTRIES_MAGIC);
  PutU16(p + 4, 1);
  PutU16(p + 6, h);
  PutU32(p + 8, static_cast<uint32_t>(index.groups.size()));
  PutU64(p + 16, index.packet_count);
  p += h;
  for (const GroupRecord& g : index.groups) {
    PutU64(p, g.offset);
    PutU64(p + 8, g.size);
    PutU64(p + 16, g.first_sample);
    PutU32(p + 24, g.first_packet);
    PutU32(p + 28, g.packet_count);
    PutU32(p + 32, g.samples);
    PutU32(p + 36, g.preroll_start);
    PutI64(p + 40, g.first_pts);
    p += LANCET_AUDIO_GROUP_RECORD_SIZE;
  }
  return out;
}

Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si) {
  const uint16_t h = CheckHeader(data, size, LANCET_AUDIO_ENTRIES_MAGIC, LANCET_AUDIO_ENTRIES_HEADER_SIZE, "entries");
  const uint64_t n = U32(data + 8);
  const uint64_t packets = U64(data + 16);
  if (U32(data + 12) != 0) Fail(LANCET_MEDIA_ECORRUPT, "entries has non-zero reserved bytes");
  const uint64_t body = size - h;
  if (n > body / LANCET_AUDIO_GROUP_RECORD_SIZE || n * LANCET_AUDIO_GROUP_RECORD_SIZE != body) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "entries declares " + std::to_string(n) + " groups, which do not fill its " + std::to_string(size) + " bytes");
  }
  if (n != si.group_count || packets != si.packet_count) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries (" + std::to_string(n) + " groups, " + std::to_string(packets) +
                                    " packets) disagree with stream_info (" + std::to_string(si.group_count) + ", " +
                                    std::to_string(si.packet_count) + ")");
  }
  Index index;
  index.packet_count = packets;
  index.groups.resize(n);
  const uint8_t* p = data + h;
  uint64_t offset = 0, sample = 0, next = 0;
  for (uint64_t i = 0; i < n; ++i, p += LANCET_AUDIO_GROUP_RECORD_SIZE) {
    GroupRecord& g = index.groups[i];
    g.offset = U64(p);
    g.size = U64(p + 8);
    g.first_sample = U64(p + 16);
    g.first_packet = U32(p + 24);
    g.packet_count = U32(p + 28);
    g.samples = U32(p + 32);
    g.preroll_start = U32(p + 36);
    g.first_pts = I64(p + 40);
    g.table_size = g.packet_count * LANCET_AUDIO_PACKET_RECORD_SIZE;
    const bool ok = g.offset == offset && g.first_sample == sample && g.first_packet == next && g.packet_count > 0 &&
                    g.packet_count <= kMaxGroupPackets && g.packet_count <= packets - next &&
                    g.size >= uint64_t{g.table_size} + g.packet_count && g.size <= (uint64_t{1} << 62) - offset &&
                    uint64_t{g.samples} <= uint64_t{g.packet_count} * kMaxPacketSamples &&
                    g.preroll_start <= g.first_packet && g.first_packet - g.preroll_start <= kMaxPreroll &&
                    PtsInRange(g.first_pts);
    if (!ok) Fail(LANCET_MEDIA_ECORRUPT, "entries: group " + std::to_string(i) + " is not the next group");
    offset += g.size;
    sample += g.samples;
    next += g.packet_count;
  }
  if (next != packets) Fail(LANCET_MEDIA_ECORRUPT, "entries: the groups do not cover every packet");
  if (sample != si.sample_count) {
    Fail(LANCET_MEDIA_ECORRUPT,
         "entries hold " + std::to_string(sample) + " samples, stream_info says " + std::to_string(si.sample_count));
  }
  return index;
}

void WritePacketTable(const std::vector<PacketRecord>& packets, std::vector<uint8_t>* out) {
  out->assign(packets.size() * LANCET_AUDIO_PACKET_RECORD_SIZE, 0);
  uint8_t* p = out->data();
  for (const PacketRecord& r : packets) {
    PutU32(p, r.size);
    PutU32(p + 4, r.flags);
    PutI64(p + 8, r.pts);
    PutU32(p + 16, r.samples);
    PutU32(p + 20, r.skip_start);
    PutU32(p + 24, r.skip_end);
    p += LANCET_AUDIO_PACKET_RECORD_SIZE;
  }
}

std::vector<PacketRecord> ReadPacketTable(const uint8_t* data, const GroupRecord& group, uint64_t g) {
  const std::string where = "stored stream: group " + std::to_string(g) + "'s packet table";
  std::vector<PacketRecord> packets(group.packet_count);
  uint64_t offset = group.offset + group.table_size, sample = group.first_sample;
  constexpr uint32_t kKnownFlags = LANCET_AUDIO_PACKET_KEY | LANCET_AUDIO_PACKET_SKIP;
  const uint8_t* p = data;
  for (uint32_t k = 0; k < group.packet_count; ++k, p += LANCET_AUDIO_PACKET_RECORD_SIZE) {
    PacketRecord& r = packets[k];
    r.size = U32(p);
    r.flags = U32(p + 4);
    r.pts = I64(p + 8);
    r.samples = U32(p + 16);
    r.skip_start = U32(p + 20);
    r.skip_end = U32(p + 24);
    r.offset = offset;
    r.first_sample = sample;
    const bool skip = (r.flags & LANCET_AUDIO_PACKET_SKIP) != 0;
    const bool ok = r.size > 0 && r.size <= kMaxPacketSize && (r.flags & ~kKnownFlags) == 0 && PtsInRange(r.pts) &&
                    r.samples <= kMaxPacketSamples && r.skip_start <= kMaxPacketSamples &&
                    r.skip_end <= kMaxPacketSamples && (skip || (r.skip_start == 0 && r.skip_end == 0)) &&
                    U32(p + 28) == 0 && (k > 0 || r.pts == group.first_pts);
    if (!ok) Fail(LANCET_MEDIA_ECORRUPT, where + ": packet " + std::to_string(k) + " does not match its group");
    offset += r.size;
    sample += r.samples;
  }
  if (offset != group.offset + group.size || sample != group.first_sample + group.samples) {
    Fail(LANCET_MEDIA_ECORRUPT, where + " disagrees with the group record");
  }
  return packets;
}

Request ReadRequest(const uint8_t* data, uint64_t size) {
  if (data == nullptr || size != LANCET_AUDIO_REQUEST_SIZE) {
    Fail(LANCET_MEDIA_EINVAL, "request has " + std::to_string(size) + " bytes, an audio request has 32");
  }
  if (U32(data) != LANCET_AUDIO_REQUEST_MAGIC) Fail(LANCET_MEDIA_EINVAL, "request has the wrong magic (not LARQ)");
  if (U16(data + 4) != 1) {
    Fail(LANCET_MEDIA_EINVAL, "request has version " + std::to_string(U16(data + 4)) + ", this plugin reads version 1");
  }
  Request r;
  r.kind = data[6];
  r.format = data[7];
  r.rate = U32(data + 8);
  r.channels = U32(data + 12);
  r.t0 = F64(data + 16);
  r.t1 = F64(data + 24);
  if (r.kind != LANCET_AUDIO_REQ_WINDOW)
    Fail(LANCET_MEDIA_EINVAL, "request kind " + std::to_string(r.kind) + " is unknown");
  if (r.format > LANCET_AUDIO_FMT_F32) {
    Fail(LANCET_MEDIA_EINVAL, "request sample format " + std::to_string(r.format) + " is unknown");
  }
  if (r.rate > kMaxRate) Fail(LANCET_MEDIA_EINVAL, "request output rate is over " + std::to_string(kMaxRate));
  if (r.channels > kMaxChannels) Fail(LANCET_MEDIA_EINVAL, "request asks for more than 64 channels");
  if (!std::isfinite(r.t0) || !std::isfinite(r.t1) || r.t0 < 0 || r.t1 < r.t0) {
    Fail(LANCET_MEDIA_EINVAL, "the window [t0, t1) needs 0 <= t0 <= t1, both finite");
  }
  return r;
}

}  // namespace lancet_audio
