// Helpers for the video plugin tests: test videos made by the ffmpeg CLI (cached on disk,
// since every test runs in its own process), ingest through the media host, request
// builders, output parsers and an independent reference decoder over the original file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/io/object_store.h"
#include "lancet/media/plugin_host.h"
#include "lancet/media_video.h"

struct AVFrame;

namespace lancet::video_test {

/// The plugin library path (build/plugins/liblancet_video_ffmpeg.so).
std::string PluginPath();
std::shared_ptr<media::MediaPlugin> LoadPlugin(std::string_view config = "");

bool HasEncoder(const std::string& name);
/// A testsrc2 320x240 video of `seconds` at `rate`, encoded with `args` into a file of
/// extension `ext`; made once and cached. "" when ffmpeg fails (e.g. missing encoder).
std::string MakeVideo(const std::string& rate, double seconds, const std::string& args, const std::string& ext);
int RunCommand(const std::string& command);
std::vector<uint8_t> ReadFile(const std::string& path);
std::string ScratchPath(const std::string& name);

struct Blob {
  std::vector<uint8_t> stored, stream_info, entries;
};
/// Ingests `source` in pushes of `chunk` bytes.
Result<Blob> Ingest(const media::MediaPlugin& plugin, const std::vector<uint8_t>& source, size_t chunk = 7919);

struct RequestOptions {
  uint8_t flags = 0, pix = LANCET_VIDEO_PIX_RGB24;
  uint32_t width = 0, height = 0, threads = 0;
};
std::vector<uint8_t> WindowRequest(double t0, double t1, RequestOptions o = {});
std::vector<uint8_t> ClipRequest(double t0, double t1);
std::vector<uint8_t> FramesRequest(const std::vector<uint64_t>& frames, RequestOptions o = {});
std::vector<uint8_t> TimestampsRequest(const std::vector<double>& times, RequestOptions o = {});

struct FrameRecord {
  uint64_t index = 0;
  int64_t pts = 0;
  double time = 0;
  uint32_t width = 0, height = 0;
  uint8_t pix = 0;
  uint64_t offset = 0, size = 0;
};
/// Parses LVFM metadata; false (with a gtest failure) when it is malformed.
bool ParseFrames(std::string_view metadata, uint64_t data_size, std::vector<FrameRecord>* out);

struct StreamInfoFields {
  uint32_t codec_id = 0, width = 0, height = 0, flags = 0, video_delay = 0;
  int32_t tb_num = 0, tb_den = 0;
  int64_t start_pts = 0, duration = 0;
  uint64_t frame_count = 0, gop_count = 0;
  std::string codec_name;
};
StreamInfoFields ParseStreamInfo(const std::vector<uint8_t>& bytes);

struct PacketFields {
  uint64_t offset = 0;
  uint32_t size = 0, flags = 0;
  int64_t pts = 0, dts = 0;
};
struct GopFields {
  uint64_t offset = 0, size = 0;
  uint32_t first_packet = 0, packet_count = 0, flags = 0, table_size = 0, key_size = 0;
};
// Entries (version 3, GOP records) and the packet tables at each GOP's head in `stored`;
// packet offsets are absolute in the stored stream.
void ParseEntries(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& stored, std::vector<GopFields>* gops,
                  std::vector<PacketFields>* packets);

struct Extracted {
  std::vector<io::ByteRange> ranges;
  media::DecodedOutput out;
};
/// Plans `request`, reads the planned ranges from blob.stored and decodes them.
Result<Extracted> Extract(const media::MediaPlugin& plugin, const Blob& blob, const std::vector<uint8_t>& request);
Result<media::DecodedOutput> DecodeRanges(const media::MediaPlugin& plugin, const Blob& blob,
                                          const std::vector<uint8_t>& request,
                                          const std::vector<io::ByteRange>& ranges);

/// Converts a decoded picture the way docs/video-plugin.md says the plugin does.
std::vector<uint8_t> Convert(const AVFrame* frame, uint8_t pix, uint32_t width, uint32_t height);

/// Every frame of the best video stream of a file, decoded from the start by libavcodec,
/// in presentation order.
class Reference {
 public:
  static std::unique_ptr<Reference> Open(const std::string& path);
  ~Reference();
  size_t size() const { return frames_.size(); }
  int64_t pts(size_t i) const { return frames_[i].pts; }
  bool key(size_t i) const { return frames_[i].key; }
  double time(size_t i) const { return static_cast<double>(frames_[i].pts) * tb_num_ / tb_den_; }
  const AVFrame* frame(size_t i) const { return frames_[i].frame; }
  std::vector<uint8_t> Pixels(size_t i, uint8_t pix = LANCET_VIDEO_PIX_RGB24, uint32_t w = 0, uint32_t h = 0) const;
  /// The frame index with this pts, or -1.
  int64_t IndexOf(int64_t pts) const;

 private:
  struct Frame {
    int64_t pts;
    bool key;
    AVFrame* frame;
  };
  std::vector<Frame> frames_;
  int tb_num_ = 1, tb_den_ = 1;
};

double Psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
/// A binary PPM (P6) file's pixels.
bool ReadPpm(const std::string& path, uint32_t* width, uint32_t* height, std::vector<uint8_t>* rgb);

}  // namespace lancet::video_test
