// Decode: feed the needed packets, run by run, to libavcodec opened from stream_info alone,
// keep the frames whose pts were asked for, and convert them with libswscale.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include "video_internal.h"

namespace lancet_video {
namespace {

// Bit-exact bicubic: the same flags give the same pixels on every CPU, which the tests and
// docs/video-plugin.md rely on. The fast flags are PyAV's default, for loaders that
// want throughput over reproducibility.
constexpr int kExactSwsFlags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT;
constexpr int kFastSwsFlags = SWS_BILINEAR;

AVPixelFormat OutputFormat(uint8_t pix) {
  switch (pix) {
    case LANCET_VIDEO_PIX_GRAY8:
      return AV_PIX_FMT_GRAY8;
    case LANCET_VIDEO_PIX_YUV420P:
      return AV_PIX_FMT_YUV420P;
    default:
      return AV_PIX_FMT_RGB24;
  }
}

void OutputSize(const Request& r, uint32_t w, uint32_t h, uint32_t* ow, uint32_t* oh) {
  *ow = r.width;
  *oh = r.height;
  if (*ow == 0 && *oh == 0) {
    *ow = w;
    *oh = h;
  } else if (*ow == 0) {
    *ow = static_cast<uint32_t>(std::max(1.0, std::round(static_cast<double>(*oh) * w / h)));
  } else if (*oh == 0) {
    *oh = static_cast<uint32_t>(std::max(1.0, std::round(static_cast<double>(*ow) * h / w)));
  }
  *ow = std::min(*ow, kMaxDimension);
  *oh = std::min(*oh, kMaxDimension);
}

struct Codec {
  AVCodecContext* ctx = nullptr;
  AVFrame* frame = nullptr;
  AVPacket* packet = nullptr;
  SwsContext* sws = nullptr;
  uint8_t* planes[4] = {nullptr};
  int linesizes[4] = {0};
  ~Codec() {
    av_freep(&planes[0]);
    sws_freeContext(sws);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&ctx);
  }
};

void OpenDecoder(Codec& c, const StreamInfo& si, uint32_t threads) {
  const AVCodec* codec = avcodec_find_decoder(static_cast<AVCodecID>(si.codec_id));
  if (codec == nullptr || codec->type != AVMEDIA_TYPE_VIDEO) {
    Fail(LANCET_MEDIA_ENOTSUP,
         "no video decoder for codec id " + std::to_string(si.codec_id) + " (" + si.codec_name + ")");
  }
  c.ctx = avcodec_alloc_context3(codec);
  c.frame = av_frame_alloc();
  c.packet = av_packet_alloc();
  if (c.ctx == nullptr || c.frame == nullptr || c.packet == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory");
  AVCodecParameters* par = MakeCodecParameters(si);
  int rc = avcodec_parameters_to_context(c.ctx, par);
  avcodec_parameters_free(&par);
  if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "stream_info's codec parameters are unusable: " + AvErrorText(rc));
  c.ctx->pkt_timebase = AVRational{si.time_base_num, si.time_base_den};
  c.ctx->thread_count = static_cast<int>(threads);
  // Frame threads hold a picture per thread and set up a context per thread on open:
  // for the short runs an extraction decodes (a GOP prefix, a clip) that costs more
  // than it saves. Slices split each picture instead, with no added latency.
  c.ctx->thread_type = FF_THREAD_SLICE;
  rc = avcodec_open2(c.ctx, codec, nullptr);
  if (rc < 0)
    Fail(LANCET_MEDIA_ECORRUPT, std::string("cannot open the ") + codec->name + " decoder: " + AvErrorText(rc));
}

class FrameCollector {
 public:
  FrameCollector(const Request& r, const Timeline& t, const Plan& plan, Codec& c)
      : request_(r),
        timeline_(t),
        plan_(plan),
        codec_(c),
        offsets_(plan.targets.size(), UINT64_MAX),
        records_(plan.targets.size()) {
    for (const Target& x : plan.targets) target_pts_.push_back(x.pts);
  }

  void Feed(const uint8_t* data, const PacketRecord& p) {
    AVPacket* pkt = codec_.packet;
    if (av_new_packet(pkt, static_cast<int>(p.size)) < 0) Fail(LANCET_MEDIA_ENOMEM, "out of memory for a packet");
    std::memcpy(pkt->data, data, p.size);
    pkt->pts = p.pts;
    pkt->dts = p.dts;
    if (p.flags & LANCET_VIDEO_PACKET_KEY) pkt->flags |= AV_PKT_FLAG_KEY;
    for (;;) {
      int rc = avcodec_send_packet(codec_.ctx, pkt);
      if (rc == AVERROR(EAGAIN)) {
        Drain();
        continue;
      }
      av_packet_unref(pkt);
      if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "the decoder rejected a stored packet: " + AvErrorText(rc));
      break;
    }
    Drain();
  }

  // Ends a run: what the decoder still holds comes out, then it forgets the run.
  void Flush() {
    int rc = avcodec_send_packet(codec_.ctx, nullptr);
    if (rc < 0 && rc != AVERROR_EOF) Fail(LANCET_MEDIA_ECORRUPT, "the decoder failed to flush: " + AvErrorText(rc));
    Drain();
    avcodec_flush_buffers(codec_.ctx);
  }

  // Room for every target up front: growing the output frame by frame copied it
  // over and over into freshly faulted pages.
  void Reserve(size_t bytes) { data_.reserve(bytes); }

  Decoded Finish() {
    for (size_t i = 0; i < offsets_.size(); ++i) {
      if (offsets_[i] == UINT64_MAX) {
        Fail(LANCET_MEDIA_ECORRUPT, "the decoder produced no picture for frame " +
                                        std::to_string(plan_.targets[i].frame) + " (pts " +
                                        std::to_string(target_pts_[i]) + ")");
      }
    }
    Decoded d;
    d.data = std::move(data_);
    d.metadata.assign(LANCET_VIDEO_FRAMES_HEADER_SIZE + records_.size() * LANCET_VIDEO_FRAME_RECORD_SIZE, 0);
    uint8_t* p = d.metadata.data();
    PutU32(p, LANCET_VIDEO_FRAMES_MAGIC);
    PutU16(p + 4, 1);
    PutU16(p + 6, LANCET_VIDEO_FRAMES_HEADER_SIZE);
    PutU32(p + 8, static_cast<uint32_t>(records_.size()));
    p += LANCET_VIDEO_FRAMES_HEADER_SIZE;
    for (size_t i = 0; i < records_.size(); ++i, p += LANCET_VIDEO_FRAME_RECORD_SIZE) {
      PutU64(p, plan_.targets[i].frame);
      PutU64(p + 8, static_cast<uint64_t>(target_pts_[i]));
      PutF64(p + 16, timeline_.Seconds(target_pts_[i]));
      PutU32(p + 24, records_[i].width);
      PutU32(p + 28, records_[i].height);
      p[32] = request_.pixel_format;
      PutU64(p + 40, offsets_[i]);
      PutU64(p + 48, records_[i].size);
    }
    return d;
  }

 private:
  struct Record {
    uint32_t width = 0, height = 0;
    uint64_t size = 0;
  };

  void Drain() {
    for (;;) {
      int rc = avcodec_receive_frame(codec_.ctx, codec_.frame);
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
      if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "the decoder failed: " + AvErrorText(rc));
      Keep(codec_.frame);
      av_frame_unref(codec_.frame);
    }
  }

  void Keep(const AVFrame* frame) {
    const int64_t pts = frame->pts != AV_NOPTS_VALUE ? frame->pts : frame->best_effort_timestamp;
    auto it = std::lower_bound(target_pts_.begin(), target_pts_.end(), pts);
    if (it == target_pts_.end() || *it != pts) return;
    const size_t slot = static_cast<size_t>(it - target_pts_.begin());
    if (offsets_[slot] != UINT64_MAX) return;
    if (frame->width <= 0 || frame->height <= 0 || frame->width > static_cast<int>(kMaxDimension) ||
        frame->height > static_cast<int>(kMaxDimension) || frame->format < 0) {
      Fail(LANCET_MEDIA_ECORRUPT, "the decoder produced a picture without a usable size or format");
    }
    uint32_t ow, oh;
    OutputSize(request_, static_cast<uint32_t>(frame->width), static_cast<uint32_t>(frame->height), &ow, &oh);
    const AVPixelFormat dst = OutputFormat(request_.pixel_format);
    codec_.sws = sws_getCachedContext(
        codec_.sws, frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), static_cast<int>(ow),
        static_cast<int>(oh), dst, (request_.flags & LANCET_VIDEO_FLAG_FAST_CONVERT) ? kFastSwsFlags : kExactSwsFlags,
        nullptr, nullptr, nullptr);
    if (codec_.sws == nullptr) Fail(LANCET_MEDIA_ENOTSUP, "libswscale cannot convert this picture format");
    if (ow != planes_w_ || oh != planes_h_) {
      av_freep(&codec_.planes[0]);
      if (av_image_alloc(codec_.planes, codec_.linesizes, static_cast<int>(ow), static_cast<int>(oh), dst, 32) < 0) {
        Fail(LANCET_MEDIA_ENOMEM, "out of memory for a converted picture");
      }
      planes_w_ = ow;
      planes_h_ = oh;
    }
    sws_scale(codec_.sws, frame->data, frame->linesize, 0, frame->height, codec_.planes, codec_.linesizes);
    const int size = av_image_get_buffer_size(dst, static_cast<int>(ow), static_cast<int>(oh), 1);
    if (size <= 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot size a converted picture");
    if (data_.size() + static_cast<uint64_t>(size) > kMaxOutputBytes) {
      Fail(LANCET_MEDIA_EINVAL, "the decoded frames exceed 1 GiB: ask for fewer or smaller frames");
    }
    const size_t at = data_.size();
    data_.resize(at + static_cast<size_t>(size));
    av_image_copy_to_buffer(data_.data() + at, size, codec_.planes, codec_.linesizes, dst, static_cast<int>(ow),
                            static_cast<int>(oh), 1);
    offsets_[slot] = at;
    records_[slot] = {ow, oh, static_cast<uint64_t>(size)};
  }

  const Request& request_;
  const Timeline& timeline_;
  const Plan& plan_;
  Codec& codec_;
  std::vector<int64_t> target_pts_;  // ascending: targets are in frame (pts) order
  std::vector<uint64_t> offsets_;
  std::vector<Record> records_;
  std::vector<uint8_t> data_;
  uint32_t planes_w_ = 0, planes_h_ = 0;
};

}  // namespace

Decoded DecodeFrames(const Config& config, const Request& request, const Timeline& t, const Plan& plan) {
  const std::vector<Run> runs = Runs(plan);
  uint32_t ow, oh;
  OutputSize(request, t.si->width, t.si->height, &ow, &oh);
  const int frame_bytes =
      av_image_get_buffer_size(OutputFormat(request.pixel_format), static_cast<int>(ow), static_cast<int>(oh), 1);
  if (frame_bytes > 0 && plan.targets.size() * static_cast<uint64_t>(frame_bytes) > kMaxOutputBytes) {
    Fail(LANCET_MEDIA_EINVAL, std::to_string(plan.targets.size()) + " frames of " + std::to_string(ow) + "x" +
                                  std::to_string(oh) + " exceed 1 GiB: ask for fewer or smaller frames");
  }
  Codec codec;
  if (!runs.empty()) OpenDecoder(codec, *t.si, request.threads != 0 ? request.threads : config.threads);
  FrameCollector collector(request, t, plan, codec);
  if (frame_bytes > 0) collector.Reserve(plan.targets.size() * static_cast<size_t>(frame_bytes));
  for (const Run& run : runs) {
    for (uint32_t g = run.first; g <= run.last; ++g) {
      const std::vector<PacketRecord>& table = plan.tables[g];
      for (int64_t k = 0; k <= plan.need_end[g]; ++k) {
        const PacketRecord& p = table[static_cast<size_t>(k)];
        collector.Feed(plan.bytes[g][static_cast<size_t>(k)], p);
      }
    }
    collector.Flush();
  }
  return collector.Finish();
}

}  // namespace lancet_video
