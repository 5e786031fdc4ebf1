// Shared declarations of the FFmpeg audio plugin. Everything has hidden visibility; only
// lancet_media_plugin_init leaves the .so.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "lancet/media_audio.h"
#include "lancet/media_plugin.h"

struct AVCodecContext;
struct AVCodecParameters;
struct AVFrame;
struct AVPacket;

namespace lancet_audio {

// Thrown inside the plugin and turned into a return code at each ABI entry point.
struct Error {
  int code;
  std::string message;
};
[[noreturn]] void Fail(int code, std::string message);
int Report(LancetMediaError* error, const Error& e) noexcept;

template <typename F>
int Guard(LancetMediaError* error, F&& body) noexcept {
  try {
    body();
    return LANCET_MEDIA_OK;
  } catch (const Error& e) {
    return Report(error, e);
  } catch (const std::bad_alloc&) {
    return Report(error, {LANCET_MEDIA_ENOMEM, "out of memory"});
  } catch (const std::exception& e) {
    return Report(error, {LANCET_MEDIA_EINTERNAL, e.what()});
  } catch (...) {
    return Report(error, {LANCET_MEDIA_EINTERNAL, "unknown failure"});
  }
}

void GiveBuffer(LancetMediaBuffer* out, std::vector<uint8_t>&& bytes);

constexpr int64_t kNoPts = INT64_MIN;
// Timestamps and sample positions stay within 2^60 so sums of a few never overflow.
constexpr int64_t kMaxPts = int64_t{1} << 60;
inline bool PtsInRange(int64_t pts) { return pts > -kMaxPts && pts < kMaxPts; }
constexpr uint64_t kMaxSamples = uint64_t{1} << 60;
// Caps that keep hostile inputs from turning into huge allocations or endless work.
constexpr uint32_t kMaxRate = 1u << 20;
constexpr uint32_t kMaxChannels = 64;
constexpr uint32_t kMaxPacketSize = 1u << 30;
constexpr uint32_t kMaxPacketSamples = 1u << 20;
constexpr uint32_t kMaxPreroll = 4096;  // packets
constexpr uint64_t kMaxOutputBytes = 1ull << 30;

struct Config {
  int stream = -1;  // -1: av_find_best_stream picks
};
Config ParseConfig(const uint8_t* data, uint64_t size);

struct StreamInfo {
  uint32_t codec_id = 0;
  int32_t profile = 0;
  uint32_t sample_rate = 0, channels = 0;
  uint64_t layout_mask = 0;
  int32_t sample_format = -1;
  int32_t time_base_num = 0, time_base_den = 0;
  uint32_t block_align = 0;
  int64_t start_pts = 0;
  uint64_t sample_count = 0, packet_count = 0;
  int64_t bit_rate = 0;
  uint32_t frame_size = 0, initial_padding = 0, trailing_padding = 0;
  uint32_t bits_per_coded_sample = 0, bits_per_raw_sample = 0;
  uint32_t flags = 0, preroll_samples = 0, seek_preroll = 0;
  uint32_t preroll_packets = 0, preroll_bytes = 0;
  uint64_t group_count = 0;
  std::string codec_name, sample_format_name;
  std::vector<uint8_t> extradata;
};

// One packet of a group's packet table; offset and first sample are absolute once parsed.
struct PacketRecord {
  uint64_t offset = 0;
  uint32_t size = 0, flags = 0;
  int64_t pts = kNoPts;
  uint64_t first_sample = 0;
  uint32_t samples = 0, skip_start = 0, skip_end = 0;
};

struct GroupRecord {
  uint64_t offset = 0, size = 0, first_sample = 0;
  uint32_t first_packet = 0, packet_count = 0, samples = 0, preroll_start = 0, table_size = 0;
  int64_t first_pts = kNoPts;
};

struct Index {
  std::vector<GroupRecord> groups;
  uint64_t packet_count = 0;
};

// Groups close at this many packets or packet bytes, whichever comes first: plan reads
// whole groups, entries hold one record per group.
constexpr uint32_t kGroupPackets = 64;
constexpr uint64_t kGroupBytes = 32 * 1024;
constexpr uint32_t kMaxGroupPackets = 65536;

// How much a decoder starting cold decodes before its output equals a full decode's: at
// least `packets` packets, `samples` samples and `bytes` bytes (capped at kMaxPreroll).
struct PrerollRule {
  uint32_t packets = 0, samples = 0, bytes = 0;
};
// The packet a decoder wanting packet k starts at; sizes/samples of packets [0, k) are
// reached through `at(i)` for i from `lowest` on. Returns UINT64_MAX when the walk would
// go below `lowest` (the caller lacks those packets).
template <typename At>
uint64_t PrerollStart(const PrerollRule& rule, uint64_t k, uint64_t lowest, At at) {
  uint64_t p = 0, samples = 0, bytes = 0;
  while (p < k && p < kMaxPreroll && (p < rule.packets || samples < rule.samples || bytes < rule.bytes)) {
    ++p;
    if (k - p < lowest) return UINT64_MAX;
    const PacketRecord& r = at(k - p);
    samples += r.samples;
    bytes += r.size;
  }
  return k - p;
}

struct Request {
  uint8_t kind = LANCET_AUDIO_REQ_WINDOW, format = LANCET_AUDIO_FMT_F32;
  uint32_t rate = 0, channels = 0;
  double t0 = 0, t1 = 0;
};

// audio_layout.cc: the wire formats of media_audio.h, every read bounds-checked.
std::vector<uint8_t> WriteStreamInfo(const StreamInfo& si);
StreamInfo ReadStreamInfo(const uint8_t* data, uint64_t size);
std::vector<uint8_t> WriteEntries(const Index& index);
// Checks the records against each other and stream_info (contiguity, sample positions).
Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si);
void WritePacketTable(const std::vector<PacketRecord>& packets, std::vector<uint8_t>* out);
// Parses and checks the table at `data` (at least group.table_size bytes) against its
// group; packets get absolute stored offsets and sample positions.
std::vector<PacketRecord> ReadPacketTable(const uint8_t* data, const GroupRecord& group, uint64_t g);
Request ReadRequest(const uint8_t* data, uint64_t size);
void PutU16(uint8_t* p, uint16_t v);
void PutU32(uint8_t* p, uint32_t v);
void PutU64(uint8_t* p, uint64_t v);
void PutF64(uint8_t* p, double v);

PrerollRule RuleOf(const StreamInfo& si);

// audio_select.cc: which groups a window needs (plan sees group records only; decode
// refines to packets once it has the groups' tables).
struct Selection {
  uint64_t s0 = 0, s1 = 0;      // source samples [s0, s1)
  uint64_t out0 = 0, out1 = 0;  // output samples at the output rate
  uint32_t out_rate = 0, out_channels = 0;
  bool empty = true;
  uint32_t start = 0, first = 0, last = 0;  // groups: decode start (pre-roll), first needed, last
};
Selection Select(const StreamInfo& si, const Index& index, const Request& r);

// audio_codec.cc: FFmpeg glue shared by ingest and decode.
std::string AvErrorText(int code);
AVCodecParameters* MakeCodecParameters(const StreamInfo& si);  // caller frees
bool IsPcm(uint32_t codec_id);
// The decoder both ingest and decode use, opened from stream_info alone, so the sample
// counts ingest records are the ones decode sees.
class Decoder {
 public:
  explicit Decoder(const StreamInfo& si);
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  // Sends one packet (with its skip side data); returns the libavcodec code (< 0 failed).
  int Send(const uint8_t* data, const PacketRecord& p);
  int SendFlush();
  // The next decoded frame, or nullptr when the decoder wants input (or is drained).
  // Fails on a decoder error.
  const AVFrame* Receive();
  AVCodecContext* context() { return ctx_; }

 private:
  void Free();
  AVCodecContext* ctx_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
};

// A temporary file unlinked on close.
class TempFile {
 public:
  TempFile();
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// audio_ingest.cc
int StartIngest(const Config& config, LancetMediaIngest* out, LancetMediaError* error);

// audio_decode.cc
struct Decoded {
  std::vector<uint8_t> data, metadata;
};
Decoded DecodeWindow(const StreamInfo& si, const Index& index, const Request& r, const Selection& s,
                     const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count);

}  // namespace lancet_audio
