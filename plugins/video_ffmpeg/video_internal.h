// Shared declarations of the FFmpeg video plugin. Everything here lives in an anonymous-free
// internal namespace with hidden visibility; only lancet_media_plugin_init leaves the .so.
#pragma once

#include <cstdint>
#include <exception>
#include <new>
#include <string>
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

struct GopRecord {
  uint64_t offset = 0, size = 0;
  int64_t first_pts = kNoPts, first_dts = kNoPts;
  uint32_t first_packet = 0, packet_count = 0, frame_count = 0, flags = 0;
};

struct PacketRecord {
  uint64_t offset = 0;
  uint32_t size = 0, flags = 0;
  int64_t pts = kNoPts, dts = kNoPts;
};

struct Index {
  std::vector<GopRecord> gops;
  std::vector<PacketRecord> packets;
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
// Checks the index against itself and against stream_info (counts, contiguity).
Index ReadEntries(const uint8_t* data, uint64_t size, const StreamInfo& si);
Request ReadRequest(const uint8_t* data, uint64_t size);
void PutU16(uint8_t* p, uint16_t v);
void PutU32(uint8_t* p, uint32_t v);
void PutU64(uint8_t* p, uint64_t v);
void PutF64(uint8_t* p, double v);

// video_select.cc: presentation order and what a request needs.
struct Timeline {
  const StreamInfo* si = nullptr;
  const Index* index = nullptr;
  std::vector<uint32_t> order;   // frame index -> packet index
  std::vector<uint32_t> gop_of;  // packet index -> GOP index
  int64_t end_pts = 0;           // when the last frame stops being shown
  double Seconds(int64_t pts) const;
  // The pts at which frame `frame` stops being shown.
  int64_t FrameEnd(uint64_t frame) const;
};
Timeline BuildTimeline(const StreamInfo& si, const Index& index);

struct Selection {
  std::vector<uint32_t> targets;  // packets whose frames are output, ascending frame index
  std::vector<uint64_t> frames;   // the frame index of each target
  std::vector<int64_t> need_end;  // per GOP: the last packet to decode from its keyframe, or -1
  bool clip = false;
};
Selection Select(const Timeline& timeline, const Request& request);
// Consecutive needed packets [first, last], in decode order.
struct Run {
  uint32_t first, last;
};
std::vector<Run> Runs(const Timeline& timeline, const Selection& selection);

// video_ingest.cc
int StartIngest(const Config& config, LancetMediaIngest* out, LancetMediaError* error);

// video_decode.cc / video_clip.cc: the decode outputs, metadata and data.
struct Decoded {
  std::vector<uint8_t> data, metadata;
};
// Finds each needed packet's bytes within the given ranges; throws when one is missing.
std::vector<const uint8_t*> LocatePackets(const Timeline& timeline, const std::vector<Run>& runs,
                                          const LancetMediaRange* ranges, const uint8_t* const* range_data,
                                          uint64_t range_count);
Decoded DecodeFrames(const Config& config, const Request& request, const Timeline& timeline, const Selection& selection,
                     const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count);
Decoded RemuxClip(const Timeline& timeline, const Selection& selection, const LancetMediaRange* ranges,
                  const uint8_t* const* range_data, uint64_t range_count);

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
