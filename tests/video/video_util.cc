#include "video/video_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

namespace lancet::video_test {
namespace {

uint16_t U16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t U64(const uint8_t* p) { return U32(p) | (static_cast<uint64_t>(U32(p + 4)) << 32); }
double F64(const uint8_t* p) {
  uint64_t bits = U64(p);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

void Put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutF(std::vector<uint8_t>& out, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  Put(out, bits, 8);
}

std::vector<uint8_t> Header(uint8_t kind, const RequestOptions& o) {
  std::vector<uint8_t> out;
  Put(out, LANCET_VIDEO_REQUEST_MAGIC, 4);
  Put(out, 1, 2);
  out.push_back(kind);
  out.push_back(o.flags);
  out.push_back(o.pix);
  Put(out, 0, 3);
  Put(out, o.width, 4);
  Put(out, o.height, 4);
  Put(out, o.threads, 4);
  return out;
}

std::string MediaDir() {
  std::string dir = LANCET_VIDEO_MEDIA_DIR;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

std::string PluginPath() { return LANCET_VIDEO_PLUGIN; }

std::shared_ptr<media::MediaPlugin> LoadPlugin(std::string_view config) {
  auto loaded = media::MediaPlugin::Load({PluginPath(), std::vector<uint8_t>(config.begin(), config.end())});
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status().ToString();
    return nullptr;
  }
  return *loaded;
}

int RunCommand(const std::string& command) { return std::system(command.c_str()); }

bool HasEncoder(const std::string& name) {
  static std::map<std::string, bool> known;
  auto it = known.find(name);
  if (it != known.end()) return it->second;
  std::string list;
  if (FILE* p = popen("ffmpeg -hide_banner -encoders 2>/dev/null", "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) list.append(buf, n);
    pclose(p);
  }
  bool found = list.find(" " + name + " ") != std::string::npos;
  known[name] = found;
  return found;
}

std::string ScratchPath(const std::string& name) { return MediaDir() + "/" + std::to_string(getpid()) + "-" + name; }

std::string MakeVideo(const std::string& rate, double seconds, const std::string& args, const std::string& ext) {
  const std::string input = "testsrc2=size=320x240:rate=" + rate + ":duration=" + std::to_string(seconds);
  const std::string key = std::to_string(std::hash<std::string>{}(input + "|" + args + "|" + ext));
  const std::string path = MediaDir() + "/v-" + key + "." + ext;
  if (std::filesystem::exists(path)) return path;
  // Tests run in parallel processes: each encodes to its own name, then renames atomically.
  const std::string tmp = MediaDir() + "/tmp-" + key + "-" + std::to_string(getpid()) + "." + ext;
  const std::string command = "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i '" + input + "' " + args +
                              " '" + tmp + "' > /dev/null 2>&1";
  if (RunCommand(command) != 0) {
    std::filesystem::remove(tmp);
    return "";
  }
  std::filesystem::rename(tmp, path);
  return path;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Result<Blob> Ingest(const media::MediaPlugin& plugin, const std::vector<uint8_t>& source, size_t chunk) {
  ASSIGN_OR_RETURN(auto session, plugin.StartIngest());
  Blob blob;
  media::ByteSink sink = [&](std::span<const uint8_t> bytes) {
    blob.stored.insert(blob.stored.end(), bytes.begin(), bytes.end());
    return Status::OK();
  };
  for (size_t at = 0; at < source.size(); at += chunk) {
    RETURN_IF_ERROR(session->Push({source.data() + at, std::min(chunk, source.size() - at)}, sink));
  }
  ASSIGN_OR_RETURN(auto result, session->Finish(sink));
  blob.stream_info.assign(result.stream_info->data(), result.stream_info->data() + result.stream_info->size());
  blob.entries.assign(result.entries->data(), result.entries->data() + result.entries->size());
  if (result.stored_bytes != blob.stored.size()) return Status::Internal("stored byte count mismatch");
  return blob;
}

std::vector<uint8_t> WindowRequest(double t0, double t1, RequestOptions o) {
  auto out = Header(LANCET_VIDEO_REQ_WINDOW, o);
  PutF(out, t0);
  PutF(out, t1);
  return out;
}

std::vector<uint8_t> ClipRequest(double t0, double t1) {
  auto out = Header(LANCET_VIDEO_REQ_CLIP, {});
  PutF(out, t0);
  PutF(out, t1);
  return out;
}

std::vector<uint8_t> FramesRequest(const std::vector<uint64_t>& frames, RequestOptions o) {
  auto out = Header(LANCET_VIDEO_REQ_FRAMES, o);
  Put(out, frames.size(), 4);
  Put(out, 0, 4);
  for (uint64_t f : frames) Put(out, f, 8);
  return out;
}

std::vector<uint8_t> TimestampsRequest(const std::vector<double>& times, RequestOptions o) {
  auto out = Header(LANCET_VIDEO_REQ_TIMESTAMPS, o);
  Put(out, times.size(), 4);
  Put(out, 0, 4);
  for (double t : times) PutF(out, t);
  return out;
}

bool ParseFrames(std::string_view metadata, uint64_t data_size, std::vector<FrameRecord>* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(metadata.data());
  if (metadata.size() < 16 || U32(p) != LANCET_VIDEO_FRAMES_MAGIC || U16(p + 4) != 1 || U16(p + 6) != 16) {
    ADD_FAILURE() << "bad LVFM header";
    return false;
  }
  const uint32_t count = U32(p + 8);
  if (metadata.size() != 16 + 56ull * count) {
    ADD_FAILURE() << "LVFM size " << metadata.size() << " for " << count << " records";
    return false;
  }
  out->clear();
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* r = p + 16 + 56 * i;
    FrameRecord f;
    f.index = U64(r);
    f.pts = static_cast<int64_t>(U64(r + 8));
    f.time = F64(r + 16);
    f.width = U32(r + 24);
    f.height = U32(r + 28);
    f.pix = r[32];
    f.offset = U64(r + 40);
    f.size = U64(r + 48);
    if (f.offset > data_size || f.size > data_size - f.offset) {
      ADD_FAILURE() << "record " << i << " points past the data";
      return false;
    }
    if (!out->empty() && out->back().index >= f.index) {
      ADD_FAILURE() << "records are not in ascending frame order";
      return false;
    }
    out->push_back(f);
  }
  return true;
}

StreamInfoFields ParseStreamInfo(const std::vector<uint8_t>& b) {
  StreamInfoFields s;
  if (b.size() < 164) {
    ADD_FAILURE() << "stream_info too short";
    return s;
  }
  const uint8_t* p = b.data();
  EXPECT_EQ(U32(p), LANCET_VIDEO_STREAM_INFO_MAGIC);
  EXPECT_EQ(U16(p + 4), 1);
  EXPECT_EQ(U16(p + 6), 160);
  EXPECT_EQ(U32(p + 160) + 164ull, b.size());
  s.codec_id = U32(p + 8);
  s.width = U32(p + 20);
  s.height = U32(p + 24);
  s.tb_num = static_cast<int32_t>(U32(p + 32));
  s.tb_den = static_cast<int32_t>(U32(p + 36));
  s.start_pts = static_cast<int64_t>(U64(p + 48));
  s.duration = static_cast<int64_t>(U64(p + 56));
  s.frame_count = U64(p + 64);
  s.gop_count = U64(p + 72);
  s.video_delay = U32(p + 88);
  s.flags = U32(p + 92);
  s.codec_name =
      std::string(reinterpret_cast<const char*>(p + 128), strnlen(reinterpret_cast<const char*>(p + 128), 16));
  return s;
}

void ParseEntries(const std::vector<uint8_t>& b, const std::vector<uint8_t>& stored, std::vector<GopFields>* gops,
                  std::vector<PacketFields>* packets) {
  ASSERT_GE(b.size(), LANCET_VIDEO_ENTRIES_HEADER_SIZE);
  const uint8_t* p = b.data();
  ASSERT_EQ(U32(p), LANCET_VIDEO_ENTRIES_MAGIC);
  ASSERT_EQ(p[4] | (p[5] << 8), LANCET_VIDEO_ENTRIES_VERSION);
  const uint32_t g = U32(p + 8);
  const uint64_t n = U64(p + 16);
  ASSERT_EQ(b.size(), LANCET_VIDEO_ENTRIES_HEADER_SIZE + uint64_t{LANCET_VIDEO_GOP_RECORD_SIZE} * g);
  gops->clear();
  packets->clear();
  for (uint32_t i = 0; i < g; ++i) {
    const uint8_t* r = p + LANCET_VIDEO_ENTRIES_HEADER_SIZE + LANCET_VIDEO_GOP_RECORD_SIZE * i;
    GopFields f{U64(r), U64(r + 8), U32(r + 48), U32(r + 52), U32(r + 60), U32(r + 64), U32(r + 68)};
    gops->push_back(f);
    // The GOP's packet table at its head in the stored stream; offsets made absolute.
    ASSERT_LE(f.offset + f.table_size, stored.size());
    ASSERT_EQ(f.table_size, uint64_t{LANCET_VIDEO_PACKET_RECORD_SIZE} * f.packet_count);
    for (uint32_t k = 0; k < f.packet_count; ++k) {
      const uint8_t* t = stored.data() + f.offset + LANCET_VIDEO_PACKET_RECORD_SIZE * k;
      packets->push_back({f.offset + f.table_size + U64(t), U32(t + 8), U32(t + 12), static_cast<int64_t>(U64(t + 16)),
                          static_cast<int64_t>(U64(t + 24))});
    }
  }
  ASSERT_EQ(packets->size(), n);
}

Result<media::DecodedOutput> DecodeRanges(const media::MediaPlugin& plugin, const Blob& blob,
                                          const std::vector<uint8_t>& request,
                                          const std::vector<io::ByteRange>& ranges) {
  std::vector<BufferPtr> bytes;
  for (const auto& r : ranges) {
    if (r.end() > blob.stored.size()) return Status::Internal("range past the stored bytes");
    bytes.push_back(Buffer::Copy(std::span<const uint8_t>(blob.stored.data() + r.offset, r.length)));
  }
  return plugin.Decode(request, blob.stream_info, blob.entries, ranges, bytes);
}

Result<Extracted> Extract(const media::MediaPlugin& plugin, const Blob& blob, const std::vector<uint8_t>& request) {
  Extracted e;
  ASSIGN_OR_RETURN(e.ranges, plugin.Plan(blob.stream_info, blob.entries, request, blob.stored.size()));
  ASSIGN_OR_RETURN(e.out, DecodeRanges(plugin, blob, request, e.ranges));
  return e;
}

std::vector<uint8_t> Convert(const AVFrame* frame, uint8_t pix, uint32_t width, uint32_t height) {
  const AVPixelFormat dst = pix == LANCET_VIDEO_PIX_GRAY8     ? AV_PIX_FMT_GRAY8
                            : pix == LANCET_VIDEO_PIX_YUV420P ? AV_PIX_FMT_YUV420P
                                                              : AV_PIX_FMT_RGB24;
  const int w = width ? static_cast<int>(width) : frame->width;
  const int h = height ? static_cast<int>(height) : frame->height;
  SwsContext* sws = sws_getContext(frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), w, h, dst,
                                   SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr, nullptr);
  uint8_t* planes[4];
  int lines[4];
  av_image_alloc(planes, lines, w, h, dst, 32);
  sws_scale(sws, frame->data, frame->linesize, 0, frame->height, planes, lines);
  std::vector<uint8_t> out(static_cast<size_t>(av_image_get_buffer_size(dst, w, h, 1)));
  av_image_copy_to_buffer(out.data(), static_cast<int>(out.size()), planes, lines, dst, w, h, 1);
  av_freep(&planes[0]);
  sws_freeContext(sws);
  return out;
}

std::unique_ptr<Reference> Reference::Open(const std::string& path) {
  auto ref = std::unique_ptr<Reference>(new Reference());
  AVFormatContext* fmt = nullptr;
  if (avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) < 0) return nullptr;
  avformat_find_stream_info(fmt, nullptr);
  const int s = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  const AVCodec* codec = avcodec_find_decoder(fmt->streams[s]->codecpar->codec_id);
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  avcodec_parameters_to_context(ctx, fmt->streams[s]->codecpar);
  ctx->pkt_timebase = fmt->streams[s]->time_base;
  ref->tb_num_ = fmt->streams[s]->time_base.num;
  ref->tb_den_ = fmt->streams[s]->time_base.den;
  avcodec_open2(ctx, codec, nullptr);
  AVPacket* pkt = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  std::map<int64_t, bool> key_by_pts;
  auto drain = [&] {
    while (avcodec_receive_frame(ctx, frame) == 0) {
      int64_t pts = frame->pts != AV_NOPTS_VALUE ? frame->pts : frame->best_effort_timestamp;
      ref->frames_.push_back({pts, false, av_frame_clone(frame)});
      av_frame_unref(frame);
    }
  };
  while (av_read_frame(fmt, pkt) >= 0) {
    if (pkt->stream_index == s) {
      key_by_pts[pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts] = (pkt->flags & AV_PKT_FLAG_KEY) != 0;
      avcodec_send_packet(ctx, pkt);
      drain();
    }
    av_packet_unref(pkt);
  }
  avcodec_send_packet(ctx, nullptr);
  drain();
  for (auto& f : ref->frames_) f.key = key_by_pts[f.pts];
  std::sort(ref->frames_.begin(), ref->frames_.end(), [](const Frame& a, const Frame& b) { return a.pts < b.pts; });
  av_frame_free(&frame);
  av_packet_free(&pkt);
  avcodec_free_context(&ctx);
  avformat_close_input(&fmt);
  return ref;
}

Reference::~Reference() {
  for (auto& f : frames_) av_frame_free(&f.frame);
}

std::vector<uint8_t> Reference::Pixels(size_t i, uint8_t pix, uint32_t w, uint32_t h) const {
  return Convert(frames_[i].frame, pix, w, h);
}

int64_t Reference::IndexOf(int64_t pts) const {
  for (size_t i = 0; i < frames_.size(); ++i) {
    if (frames_[i].pts == pts) return static_cast<int64_t>(i);
  }
  return -1;
}

double Psnr(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  const double mse = sum / static_cast<double>(a.size());
  return mse == 0 ? 100 : 10 * std::log10(255.0 * 255.0 / mse);
}

bool ReadPpm(const std::string& path, uint32_t* width, uint32_t* height, std::vector<uint8_t>* rgb) {
  std::vector<uint8_t> bytes = ReadFile(path);
  // "P6" whitespace width whitespace height whitespace maxval one-whitespace pixels.
  size_t at = 0;
  auto token = [&]() -> std::string {
    while (at < bytes.size() && std::isspace(bytes[at])) ++at;
    std::string t;
    while (at < bytes.size() && !std::isspace(bytes[at])) t += static_cast<char>(bytes[at++]);
    return t;
  };
  if (token() != "P6") return false;
  *width = static_cast<uint32_t>(std::stoul(token()));
  *height = static_cast<uint32_t>(std::stoul(token()));
  if (token() != "255") return false;
  ++at;
  const size_t n = static_cast<size_t>(*width) * *height * 3;
  if (bytes.size() - at < n) return false;
  rgb->assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin() + static_cast<std::ptrdiff_t>(at + n));
  return true;
}

}  // namespace lancet::video_test
