// Shared declarations of the FFmpeg video plugin. Everything here lives in an anonymous-free
// internal namespace with hidden visibility; only lancet_media_plugin_init leaves the .so.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "lancet/media_plugin.h"
#include "lancet/media_video.h"

namespace lancet_video {

// Thrown inside the plugin and turned into a return code at each ABI entry point, so the
// deep parsing and FFmpeg code can bail out from anywhere without leaking.
struct Error {
  int code;
  std::string message;
};
[[noreturn]] void Fail(int code, std::string message);
int Report(LancetMediaError* error, const Error& e) noexcept;

// Runs `body` at an ABI entry point: every exception becomes a return code and message.
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

// Hands `bytes` to the host with a release callback that frees them.
void GiveBuffer(LancetMediaBuffer* out, std::vector<uint8_t>&& bytes);

constexpr int64_t kNoPts = INT64_MIN;
// Timestamps stay within +-2^60 ticks and durations below 2^62, so the sums and differences
// plan, decode and clip form from a few of them never overflow, whatever the input.
constexpr int64_t kMaxPts = int64_t{1} << 60;
constexpr int64_t kMaxDuration = int64_t{1} << 62;
inline bool PtsInRange(int64_t pts) { return pts > -kMaxPts && pts < kMaxPts; }
// Caps that keep hostile inputs from turning into huge allocations or endless work.
constexpr uint32_t kMaxDimension = 16384;
constexpr uint32_t kMaxThreads = 64;
constexpr uint64_t kMaxRequestItems = 1u << 20;
// The host accepts 1 MiB of decode metadata: 16 + 56 * n bytes.
constexpr uint64_t kMaxFramesPerDecode = 18000;
constexpr uint64_t kMaxOutputBytes = 1ull << 30;
// libavcodec sizes packets with int.
constexpr uint32_t kMaxPacketSize = 1u << 30;

struct Config {
  int stream = -1;       // -1: av_find_best_stream picks
  uint32_t threads = 0;  // 0: libavcodec's automatic choice
};
Config ParseConfig(const uint8_t* data, uint64_t size);

struct StreamInfo {
  uint32_t codec_id = 0;
  int32_t profile = 0, level = 0;
  uint32_t width = 0, height = 0;
  int32_t pixel_format = -1;
  int32_t time_base_num = 0, time_base_den = 0;
  int32_t frame_rate_num = 0, frame_rate_den = 0;
  int64_t start_pts = kNoPts, duration = 0;
  uint64_t frame_count = 0, gop_count = 0;
  int32_t sar_num = 0, sar_den = 1;
  uint32_t video_delay = 0, flags = 0;
  int32_t color_range = 0, color_primaries = 2, color_trc = 2, colorspace = 2, chroma_location = 0;
  int32_t field_order = 0;
  int64_t bit_rate = 0;
  std::string codec_name, pixel_format_name;
  std::vector<uint8_t> extradata;
};

constexpr uint32_t kCheckpoints = LANCET_VIDEO_GOP_CHECKPOINTS;
struct GopRecord {
  uint64_t offset = 0, size = 0;
  int64_t first_pts = kNoPts, last_pts = kNoPts, key_pts = kNoPts, key_dts = kNoPts;
  uint32_t first_packet = 0, packet_count = 0, frame_count = 0, flags = 0;
  uint32_t table_size = 0, key_size = 0, leading_count = 0;
  // Bytes from `offset` that show every frame below each checkpoint (media_video.h);
  // entries of version 2 have none: every prefix is the whole GOP.
  uint64_t rank_prefix[kCheckpoints] = {}, time_prefix[kCheckpoints] = {};
};

// One packet of a GOP's packet table; offset is absolute in the stored stream once parsed.
struct PacketRecord {
  uint64_t offset = 0;
  uint32_t size = 0, flags = 0;
  int64_t pts = kNoPts, dts = kNoPts;
};

// The pts below which time checkpoint c of a GOP spanning [first, last] ends.
int64_t TimeCheckpoint(int64_t first, int64_t last, uint32_t c);
// The checkpoint of presentation rank `rank` among `frames` frames.
uint32_t RankCheckpoint(uint64_t rank, uint64_t frames);
// Fills g's prefixes from its packets (decode order; offsets from the first packet byte).
void ComputePrefixes(const std::vector<PacketRecord>& packets, GopRecord* g);

struct Index {
  std::vector<GopRecord> gops;
  uint64_t packet_count = 0;
};

struct Request {
  uint8_t kind = 0, flags = 0, pixel_format = LANCET_VIDEO_PIX_RGB24;
  uint32_t width = 0, height = 0, threads = 0;
  double t0 = 0, t1 = 0;
  std::vector<uint64_t> frames;
  std::vector<double> times;
};

// video_layout.cc: the wire formats of media_video.h, every read bounds-checked.
std::vector<uint8_t> WriteStreamInfo(const StreamInfo& si);
StreamInfo ReadStreamInfo(const uint8_t* data, uint64_t size);
std::vector<uint8_t> WriteEntries(const Index& index);
// Checks the index against itself and against stream_info (counts, contiguity, order).
Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si);
// A GOP's packet table as stored at its head; packets get absolute stored offsets.
void WritePacketTable(const std::vector<PacketRecord>& packets, std::vector<uint8_t>* out);
// Parses and checks the table at `data` (at least gop.table_size bytes) against its GOP.
std::vector<PacketRecord> ReadPacketTable(const uint8_t* data, uint64_t size, const GopRecord& gop, uint32_t g);
Request ReadRequest(const uint8_t* data, uint64_t size);
void PutU16(uint8_t* p, uint16_t v);
void PutU32(uint8_t* p, uint32_t v);
void PutU64(uint8_t* p, uint64_t v);
void PutF64(uint8_t* p, double v);

// video_select.cc: presentation order and what a request needs. Plan sees GOP records
// only; decode refines the choice to packets once the GOPs' packet tables are in hand.
struct Timeline {
  const StreamInfo* si = nullptr;
  const Index* index = nullptr;
  int64_t end_pts = 0;  // when the last frame stops being shown
  double Seconds(int64_t pts) const;
  // The GOP holding frame index `frame` (< packet count).
  uint32_t GopOfFrame(uint64_t frame) const;
};
Timeline BuildTimeline(const StreamInfo& si, const Index& index);

struct Selection {
  std::vector<uint64_t> need;                      // per GOP: bytes from its offset plan reads; 0 = none
  std::vector<uint64_t> frames;                    // FRAMES: requested indices, ascending and unique
  std::vector<std::pair<double, uint32_t>> times;  // TIMESTAMPS: time and the GOP holding it
  bool clip = false, keys_only = false;
};
Selection Select(const Timeline& timeline, const Request& request);

// Decode's view: the needed GOPs' parsed tables and the packets to decode.
struct Target {
  uint32_t gop, packet;  // packet: index within the GOP's table (decode order)
  uint64_t frame;
  int64_t pts;
};
struct Plan {
  std::vector<std::vector<PacketRecord>> tables;   // per GOP; empty when not needed
  std::vector<std::vector<const uint8_t*>> bytes;  // per GOP: the located packets' bytes
  std::vector<Target> targets;                     // ascending frame index
  std::vector<int64_t> need_end;                   // per GOP: last packet to decode, or -1
};
// Runs of GOPs decoded without a flush between them: [first, last] GOP indices.
struct Run {
  uint32_t first, last;
};
Plan Resolve(const Timeline& timeline, const Selection& selection, const Request& request,
             const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count);
std::vector<Run> Runs(const Plan& plan);

// video_ingest.cc
int StartIngest(const Config& config, LancetMediaIngest* out, LancetMediaError* error);

// video_decode.cc / video_clip.cc: the decode outputs, metadata and data.
struct Decoded {
  std::vector<uint8_t> data, metadata;
};
Decoded DecodeFrames(const Config& config, const Request& request, const Timeline& timeline, const Plan& plan);
Decoded RemuxClip(const Timeline& timeline, const Plan& plan);

// video_codec.cc: FFmpeg glue shared by ingest, decode and clip.
struct AVCodecParameters* MakeCodecParameters(const StreamInfo& si);  // caller frees
std::string AvErrorText(int code);
// A temporary file unlinked on close; bounded memory for any source size.
class TempFile {
 public:
  TempFile();
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  void Unlink();

 private:
  int fd_ = -1;
  std::string path_;
  bool linked_ = false;
};

}  // namespace lancet_video
