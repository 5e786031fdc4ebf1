// Ingest: spool the pushed source to an unlinked temporary file (memory stays bounded for
// any size), then demux it with libavformat at finish and store the chosen video stream's
// packets in decode order without the container, GOP by GOP, each GOP's packet table ahead
// of its packets. Only the current GOP's packet records stay in memory (32 bytes a packet)
// plus one record per GOP; the current GOP's bytes wait in a second temporary file until
// its table is known (at the next keyframe), then go to the sink.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

#include "video_internal.h"

namespace lancet_video {
namespace {

// Bounds a frame's duration so pts + duration stays far from overflow (see kMaxPts).
constexpr int64_t kMaxFrameDuration = int64_t{1} << 40;

struct Spool {
  TempFile file;
  uint64_t size = 0;
  int64_t position = 0;
};

int ReadSpool(void* opaque, uint8_t* buf, int size) {
  auto* s = static_cast<Spool*>(opaque);
  ssize_t got = pread(s->file.fd(), buf, static_cast<size_t>(size), s->position);
  if (got < 0) return AVERROR(errno);
  if (got == 0) return AVERROR_EOF;
  s->position += got;
  return static_cast<int>(got);
}

int64_t SeekSpool(void* opaque, int64_t offset, int whence) {
  auto* s = static_cast<Spool*>(opaque);
  const int64_t size = static_cast<int64_t>(s->size);
  int64_t target;
  switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE:
      return size;
    case SEEK_SET:
      target = offset;
      break;
    case SEEK_CUR:
      target = s->position + offset;
      break;
    case SEEK_END:
      target = size + offset;
      break;
    default:
      return AVERROR(EINVAL);
  }
  if (target < 0) return AVERROR(EINVAL);
  s->position = target;
  return target;
}

// Owns the demuxer and its custom I/O so every exit path frees both.
struct Demuxer {
  AVIOContext* io = nullptr;
  AVFormatContext* format = nullptr;
  AVPacket* packet = nullptr;
  ~Demuxer() {
    av_packet_free(&packet);
    avformat_close_input(&format);
    if (io != nullptr) av_freep(&io->buffer);
    avio_context_free(&io);
  }
};

void Open(Spool& spool, Demuxer& d) {
  constexpr int kBuffer = 1 << 16;
  auto* buffer = static_cast<uint8_t*>(av_malloc(kBuffer));
  if (buffer == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for the demuxer buffer");
  d.io = avio_alloc_context(buffer, kBuffer, 0, &spool, ReadSpool, nullptr, SeekSpool);
  if (d.io == nullptr) {
    av_free(buffer);
    Fail(LANCET_MEDIA_ENOMEM, "out of memory for the demuxer");
  }
  d.format = avformat_alloc_context();
  if (d.format == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for the demuxer");
  d.format->pb = d.io;
  d.format->flags |= AVFMT_FLAG_CUSTOM_IO;
  int rc = avformat_open_input(&d.format, nullptr, nullptr, nullptr);
  if (rc < 0) {
    Fail(LANCET_MEDIA_ECORRUPT, "the source is not a container FFmpeg can read (" + AvErrorText(rc) + ", " +
                                    std::to_string(spool.size) + " bytes)");
  }
  rc = avformat_find_stream_info(d.format, nullptr);
  if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "cannot read the source's streams: " + AvErrorText(rc));
  d.packet = av_packet_alloc();
  if (d.packet == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for a packet");
}

// A blob holds one stream; the others are not lost silently: the user hears which ones
// stay behind (the ABI has no warning channel, so stderr it is).
void WarnDroppedStreams(const AVFormatContext* format, int kept) {
  unsigned dropped = 0;
  std::string kinds;
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    if (static_cast<int>(i) == kept) continue;
    ++dropped;
    const char* kind = av_get_media_type_string(format->streams[i]->codecpar->codec_type);
    if (kinds.find(kind != nullptr ? kind : "unknown") == std::string::npos) {
      kinds += (kinds.empty() ? "" : ", ") + std::string(kind != nullptr ? kind : "unknown");
    }
  }
  if (dropped > 0) {
    std::fprintf(stderr, "lancet_video_ffmpeg: warning: kept video stream %d, dropped %u other stream(s) (%s)\n", kept,
                 dropped, kinds.c_str());
  }
}

int ChooseVideoStream(const Config& config, AVFormatContext* format) {
  if (config.stream >= 0) {
    if (static_cast<unsigned>(config.stream) >= format->nb_streams) {
      Fail(LANCET_MEDIA_EINVAL, "config stream=" + std::to_string(config.stream) + " but the source has " +
                                    std::to_string(format->nb_streams) + " streams");
    }
    if (format->streams[config.stream]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) {
      Fail(LANCET_MEDIA_EINVAL, "config stream=" + std::to_string(config.stream) + " is not a video stream");
    }
    return config.stream;
  }
  int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (index < 0) Fail(LANCET_MEDIA_ECORRUPT, "the source has no video stream");
  return index;
}

int ChooseStream(const Config& config, AVFormatContext* format) {
  int index = ChooseVideoStream(config, format);
  WarnDroppedStreams(format, index);
  return index;
}

AVRational FrameRate(const AVStream* st) {
  if (st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0) return st->avg_frame_rate;
  if (st->r_frame_rate.num > 0 && st->r_frame_rate.den > 0) return st->r_frame_rate;
  return AVRational{0, 1};
}

void CopyName(std::string& out, const char* name) { out = name != nullptr ? std::string(name).substr(0, 15) : ""; }

class Ingest {
 public:
  // The spool is reached through its descriptor only: unlinked at once, nothing is left
  // behind even if the process dies.
  explicit Ingest(const Config& config) : config_(config) {
    spool_.file.Unlink();
    gop_spool_.Unlink();
  }

  void Push(const uint8_t* data, uint64_t size) {
    if (finished_) Fail(LANCET_MEDIA_EINVAL, "push after finish");
    while (size > 0) {
      ssize_t put = write(spool_.file.fd(), data, size);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot spool the source: ") + strerror(errno));
      data += put;
      size -= static_cast<uint64_t>(put);
      spool_.size += static_cast<uint64_t>(put);
    }
  }

  void Finish(LancetMediaSink sink, std::vector<uint8_t>& stream_info, std::vector<uint8_t>& entries) {
    if (finished_) Fail(LANCET_MEDIA_EINVAL, "finish called twice");
    finished_ = true;
    Demuxer d;
    Open(spool_, d);
    const int stream = ChooseStream(config_, d.format);
    AVStream* st = d.format->streams[stream];
    const AVCodecParameters* par = st->codecpar;
    if (avcodec_find_decoder(par->codec_id) == nullptr) {
      Fail(LANCET_MEDIA_ENOTSUP, std::string("no decoder for codec ") + avcodec_get_name(par->codec_id));
    }
    if (par->width <= 0 || par->height <= 0 || par->width > static_cast<int>(kMaxDimension) ||
        par->height > static_cast<int>(kMaxDimension)) {
      Fail(LANCET_MEDIA_ECORRUPT, "the video stream has no usable size");
    }
    if (st->time_base.num <= 0 || st->time_base.den <= 0) Fail(LANCET_MEDIA_ECORRUPT, "the stream has no time base");
    const AVRational rate = FrameRate(st);
    int64_t frame_duration = rate.num > 0 ? av_rescale_q(1, av_inv_q(rate), st->time_base) : 1;
    if (frame_duration <= 0 || frame_duration > kMaxFrameDuration) frame_duration = 1;
    ReadPackets(d, stream, frame_duration, sink);
    if (std::strstr(d.format->iformat->name, "mov") != nullptr && st->nb_frames > 0 &&
        static_cast<uint64_t>(st->nb_frames) > packet_count_ + skipped_) {
      Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated: its index lists " + std::to_string(st->nb_frames) +
                                      " video samples, " + std::to_string(packet_count_ + skipped_) + " are present");
    }
    index_.packet_count = packet_count_;
    StreamInfo si = Describe(st, rate);
    stream_info = WriteStreamInfo(si);
    entries = WriteEntries(index_);
  }

 private:
  void ReadPackets(Demuxer& d, int stream, int64_t frame_duration, LancetMediaSink sink) {
    AVPacket* pkt = d.packet;
    int64_t previous_pts = kNoPts;
    for (;;) {
      int rc = av_read_frame(d.format, pkt);
      if (rc == AVERROR_EOF) break;
      if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "cannot read the source: " + AvErrorText(rc));
      // Audio, subtitle and other streams are dropped: a video blob holds one stream.
      const bool ours = pkt->stream_index == stream;
      if (ours && (pkt->flags & AV_PKT_FLAG_CORRUPT)) {
        Fail(LANCET_MEDIA_ECORRUPT,
             "the source is truncated or corrupt: packet " + std::to_string(packet_count_) + " is incomplete");
      }
      if (ours && static_cast<uint64_t>(pkt->size) > kMaxPacketSize) {
        Fail(LANCET_MEDIA_ENOTSUP, "a video packet is larger than 1 GiB");
      }
      if (!ours || pkt->size <= 0 || (packet_count_ == 0 && !(pkt->flags & AV_PKT_FLAG_KEY))) {
        // Packets before the first keyframe cannot be decoded from the stored stream.
        if (ours && pkt->size > 0) ++skipped_;
        av_packet_unref(pkt);
        continue;
      }
      PacketRecord r;
      r.size = static_cast<uint32_t>(pkt->size);
      r.flags = (pkt->flags & AV_PKT_FLAG_KEY) ? LANCET_VIDEO_PACKET_KEY : 0;
      r.dts = pkt->dts;
      r.pts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
      if (r.pts == kNoPts) r.pts = previous_pts == kNoPts ? 0 : previous_pts + frame_duration;
      if (!PtsInRange(r.pts) || (r.dts != kNoPts && !PtsInRange(r.dts))) {
        Fail(LANCET_MEDIA_ECORRUPT, "packet " + std::to_string(packet_count_) + " has a timestamp beyond +-2^60 ticks");
      }
      previous_pts = r.pts;
      const int64_t duration = pkt->duration > 0 && pkt->duration <= kMaxFrameDuration ? pkt->duration : frame_duration;
      end_pts_ = packet_count_ == 0 ? r.pts + duration : std::max(end_pts_, r.pts + duration);
      if (packet_count_ >= UINT32_MAX) Fail(LANCET_MEDIA_EINVAL, "the source has more than 2^32 packets");
      if (r.flags & LANCET_VIDEO_PACKET_KEY) FlushGop(sink);
      if (r.pts < max_pts_) reordered_ = true;
      max_pts_ = std::max(max_pts_, r.pts);
      SpoolPacket(pkt->data, r.size);
      gop_.push_back(r);
      ++packet_count_;
      av_packet_unref(pkt);
    }
    FlushGop(sink);
    if (packet_count_ == 0) Fail(LANCET_MEDIA_ECORRUPT, "the video stream has no decodable packets");
  }

  void SpoolPacket(const uint8_t* data, uint32_t size) {
    uint64_t done = 0;
    while (done < size) {
      ssize_t put = pwrite(gop_spool_.fd(), data + done, size - done, static_cast<off_t>(gop_bytes_ + done));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot spool a GOP: ") + strerror(errno));
      done += static_cast<uint64_t>(put);
    }
    gop_bytes_ += size;
  }

  void Write(LancetMediaSink sink, const uint8_t* data, uint64_t size) {
    if (size > 0 && sink.write(sink.context, data, size) != 0) {
      Fail(LANCET_MEDIA_ESINK, "the host refused " + std::to_string(size) + " bytes");
    }
  }

  // The GOP gathered so far: its record, its table to the sink, then its packets.
  void FlushGop(LancetMediaSink sink) {
    if (gop_.empty()) return;
    const uint32_t index = static_cast<uint32_t>(index_.gops.size());
    GopRecord g;
    g.offset = stored_;
    g.key_pts = gop_.front().pts;
    g.key_dts = gop_.front().dts;
    g.key_size = gop_.front().size;
    g.first_packet = static_cast<uint32_t>(packet_count_ - gop_.size());
    g.packet_count = g.frame_count = static_cast<uint32_t>(gop_.size());
    g.table_size = static_cast<uint32_t>(gop_.size() * LANCET_VIDEO_PACKET_RECORD_SIZE);
    g.first_pts = g.last_pts = g.key_pts;
    std::vector<int64_t> pts;
    for (const PacketRecord& p : gop_) {
      g.first_pts = std::min(g.first_pts, p.pts);
      g.last_pts = std::max(g.last_pts, p.pts);
      if (p.pts < g.key_pts) ++g.leading_count;
      pts.push_back(p.pts);
    }
    if (g.leading_count > 0) g.flags |= LANCET_VIDEO_GOP_OPEN;
    std::sort(pts.begin(), pts.end());
    if (std::adjacent_find(pts.begin(), pts.end()) != pts.end()) {
      Fail(LANCET_MEDIA_ECORRUPT, "two video packets share one pts: frames could not be told apart");
    }
    if (!index_.gops.empty() && g.first_pts <= index_.gops.back().last_pts) {
      Fail(g.first_pts == index_.gops.back().last_pts ? LANCET_MEDIA_ECORRUPT : LANCET_MEDIA_ENOTSUP,
           "GOP " + std::to_string(index) + " shows frames before the end of GOP " + std::to_string(index - 1) +
               " (pts " + std::to_string(g.first_pts) + " <= " + std::to_string(index_.gops.back().last_pts) +
               "): GOPs must follow one another in presentation order");
    }
    g.size = g.table_size + gop_bytes_;
    ComputePrefixes(gop_, &g);
    std::vector<uint8_t> table;
    WritePacketTable(gop_, &table);
    Write(sink, table.data(), table.size());
    std::vector<uint8_t> buffer(std::min<uint64_t>(gop_bytes_, 1u << 20));
    for (uint64_t done = 0; done < gop_bytes_;) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), gop_bytes_ - done));
      ssize_t got = pread(gop_spool_.fd(), buffer.data(), want, static_cast<off_t>(done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot read a spooled GOP: ") + strerror(errno));
      Write(sink, buffer.data(), static_cast<uint64_t>(got));
      done += static_cast<uint64_t>(got);
    }
    stored_ += g.size;
    index_.gops.push_back(g);
    gop_.clear();
    gop_bytes_ = 0;
    start_pts_ = index_.gops.front().first_pts;
  }

  StreamInfo Describe(const AVStream* st, AVRational rate) const {
    const AVCodecParameters* par = st->codecpar;
    StreamInfo si;
    si.codec_id = static_cast<uint32_t>(par->codec_id);
    si.profile = par->profile;
    si.level = par->level;
    si.width = static_cast<uint32_t>(par->width);
    si.height = static_cast<uint32_t>(par->height);
    si.pixel_format = par->format;
    si.time_base_num = st->time_base.num;
    si.time_base_den = st->time_base.den;
    si.frame_rate_num = rate.num;
    si.frame_rate_den = rate.den;
    si.start_pts = start_pts_;
    si.duration = end_pts_ - start_pts_;
    si.frame_count = packet_count_;
    si.gop_count = index_.gops.size();
    si.sar_num = par->sample_aspect_ratio.num;
    si.sar_den = par->sample_aspect_ratio.den;
    si.video_delay = par->video_delay > 0 ? static_cast<uint32_t>(par->video_delay) : 0;
    for (const GopRecord& g : index_.gops) {
      if (g.flags & LANCET_VIDEO_GOP_OPEN) si.flags |= LANCET_VIDEO_SI_OPEN_GOP;
    }
    if (reordered_) si.flags |= LANCET_VIDEO_SI_B_FRAMES;
    si.color_range = par->color_range;
    si.color_primaries = par->color_primaries;
    si.color_trc = par->color_trc;
    si.colorspace = par->color_space;
    si.chroma_location = par->chroma_location;
    si.field_order = par->field_order;
    si.bit_rate = par->bit_rate;
    CopyName(si.codec_name, avcodec_get_name(par->codec_id));
    CopyName(si.pixel_format_name, av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format)));
    if (par->extradata_size > 0) si.extradata.assign(par->extradata, par->extradata + par->extradata_size);
    return si;
  }

  Config config_;
  Spool spool_;
  bool finished_ = false;
  Index index_;
  std::vector<PacketRecord> gop_;  // the current GOP's packets; their bytes are in gop_spool_
  TempFile gop_spool_;
  uint64_t gop_bytes_ = 0, stored_ = 0, packet_count_ = 0;
  int64_t max_pts_ = INT64_MIN;
  uint64_t skipped_ = 0;
  int64_t start_pts_ = 0, end_pts_ = 0;
  bool reordered_ = false;
};

int PushAbi(LancetMediaIngest* self, const uint8_t* data, uint64_t size, LancetMediaSink, LancetMediaError* error) {
  return Guard(error, [&] {
    if (size > 0 && data == nullptr) Fail(LANCET_MEDIA_EINVAL, "push of a NULL pointer");
    static_cast<Ingest*>(self->private_data)->Push(data, size);
  });
}

int FinishAbi(LancetMediaIngest* self, LancetMediaSink sink, LancetMediaBuffer* stream_info, LancetMediaBuffer* entries,
              LancetMediaError* error) {
  return Guard(error, [&] {
    std::vector<uint8_t> si, en;
    static_cast<Ingest*>(self->private_data)->Finish(sink, si, en);
    GiveBuffer(stream_info, std::move(si));
    try {
      GiveBuffer(entries, std::move(en));
    } catch (...) {
      stream_info->release(stream_info);
      *stream_info = LancetMediaBuffer{};
      throw;
    }
  });
}

void ReleaseAbi(LancetMediaIngest* self) {
  delete static_cast<Ingest*>(self->private_data);
  self->private_data = nullptr;
  self->release = nullptr;
}

}  // namespace

int StartIngest(const Config& config, LancetMediaIngest* out, LancetMediaError* error) {
  return Guard(error, [&] {
    out->private_data = new Ingest(config);
    out->push = PushAbi;
    out->finish = FinishAbi;
    out->release = ReleaseAbi;
  });
}

}  // namespace lancet_video
