// Ingest: spool the pushed source to an unlinked temporary file (memory stays bounded for
// any size), then at finish demux it with libavformat and store the chosen audio stream's
// packets in decode order without the container (PCM re-cut into fixed blocks). Each
// stored packet is decoded once, by the same decoder decode uses (opened from stream_info
// alone), so the index records the samples a decoder really outputs per packet: sample
// positions then agree with a full decode by FFmpeg, priming and padding trims included.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/intreadwrite.h>
}

#include "audio_internal.h"

namespace lancet_audio {
namespace {

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

int ChooseStream(const Config& config, AVFormatContext* format) {
  if (config.stream >= 0) {
    if (static_cast<unsigned>(config.stream) >= format->nb_streams) {
      Fail(LANCET_MEDIA_EINVAL, "config stream=" + std::to_string(config.stream) + " but the source has " +
                                    std::to_string(format->nb_streams) + " streams");
    }
    if (format->streams[config.stream]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) {
      Fail(LANCET_MEDIA_EINVAL, "config stream=" + std::to_string(config.stream) + " is not an audio stream");
    }
    return config.stream;
  }
  int index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
  if (index < 0) Fail(LANCET_MEDIA_ECORRUPT, "the source has no audio stream");
  return index;
}

// A blob holds one audio stream; other audio tracks are not lost silently (the ABI has
// no warning channel, so stderr it is). Pictures and subtitles stay out by design.
void WarnDroppedAudioStreams(const AVFormatContext* format, int kept) {
  unsigned dropped = 0;
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    if (static_cast<int>(i) != kept && format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) ++dropped;
  }
  if (dropped > 0) {
    std::fprintf(stderr,
                 "lancet_audio_ffmpeg: warning: kept audio stream %d, dropped %u other audio stream(s) "
                 "(config stream=N picks another)\n",
                 kept, dropped);
  }
}

void CopyName(std::string& out, const char* name) { out = name != nullptr ? std::string(name).substr(0, 15) : ""; }

// How much a decoder starting cold must decode before its output equals a full decode's:
// lossless codecs none; MDCT codecs the overlapping frame; MP3 also its bit reservoir
// (up to 511 bytes of earlier frames); Opus 80 ms (RFC 7845).
PrerollRule RuleFor(const StreamInfo& si) {
  switch (static_cast<AVCodecID>(si.codec_id)) {
    case AV_CODEC_ID_FLAC:
    case AV_CODEC_ID_ALAC:
    case AV_CODEC_ID_WAVPACK:
    case AV_CODEC_ID_TTA:
      return {};
    case AV_CODEC_ID_MP1:
    case AV_CODEC_ID_MP2:
    case AV_CODEC_ID_MP3:
      return {2, 2304, 1024};
    case AV_CODEC_ID_AAC:
      return {2, 2048, 0};
    case AV_CODEC_ID_OPUS:
      return {2, std::max<uint32_t>(si.seek_preroll, si.sample_rate / 1000 * 400), 0};
    case AV_CODEC_ID_VORBIS:
      return {2, 0, 0};
    default:
      return IsPcm(si.codec_id) ? PrerollRule{} : PrerollRule{2, 8192, 0};
  }
}

class Ingest {
 public:
  explicit Ingest(const Config& config) : config_(config) {}

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
    sink_ = sink;
    Demuxer d;
    Open(spool_, d);
    const int stream = ChooseStream(config_, d.format);
    WarnDroppedAudioStreams(d.format, stream);
    AVStream* st = d.format->streams[stream];
    Describe(st);
    decoder_ = std::make_unique<Decoder>(si_);
    ReadPackets(d, stream);
    CheckComplete(d.format, st);
    CheckOggTail(d.format);
    si_.packet_count = packets_.size();
    si_.sample_count = samples_;
    si_.start_pts = packets_.front().pts;
    si_.group_count = index_.groups.size();
    index_.packet_count = packets_.size();
    stream_info = WriteStreamInfo(si_);
    entries = WriteEntries(index_);
  }

 private:
  void Describe(const AVStream* st) {
    const AVCodecParameters* par = st->codecpar;
    if (avcodec_find_decoder(par->codec_id) == nullptr) {
      Fail(LANCET_MEDIA_ENOTSUP, std::string("no decoder for codec ") + avcodec_get_name(par->codec_id));
    }
    if (par->sample_rate <= 0 || par->sample_rate > static_cast<int>(kMaxRate)) {
      Fail(LANCET_MEDIA_ECORRUPT,
           "the audio stream has no usable sample rate (" + std::to_string(par->sample_rate) + ")");
    }
    if (par->ch_layout.nb_channels <= 0 || par->ch_layout.nb_channels > static_cast<int>(kMaxChannels)) {
      Fail(LANCET_MEDIA_ECORRUPT,
           "the audio stream has " + std::to_string(par->ch_layout.nb_channels) + " channels (1 to 64 supported)");
    }
    if (st->time_base.num <= 0 || st->time_base.den <= 0) Fail(LANCET_MEDIA_ECORRUPT, "the stream has no time base");
    si_.codec_id = static_cast<uint32_t>(par->codec_id);
    si_.profile = par->profile;
    si_.sample_rate = static_cast<uint32_t>(par->sample_rate);
    si_.channels = static_cast<uint32_t>(par->ch_layout.nb_channels);
    si_.layout_mask = par->ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? par->ch_layout.u.mask : 0;
    si_.sample_format = par->format;
    si_.time_base_num = st->time_base.num;
    si_.time_base_den = st->time_base.den;
    si_.block_align = par->block_align > 0 ? static_cast<uint32_t>(par->block_align) : 0;
    si_.bit_rate = par->bit_rate;
    si_.frame_size = par->frame_size > 0 ? static_cast<uint32_t>(par->frame_size) : 0;
    si_.initial_padding = par->initial_padding > 0 ? static_cast<uint32_t>(par->initial_padding) : 0;
    si_.trailing_padding = par->trailing_padding > 0 ? static_cast<uint32_t>(par->trailing_padding) : 0;
    si_.seek_preroll = par->seek_preroll > 0 ? static_cast<uint32_t>(par->seek_preroll) : 0;
    si_.bits_per_coded_sample = par->bits_per_coded_sample > 0 ? static_cast<uint32_t>(par->bits_per_coded_sample) : 0;
    si_.bits_per_raw_sample = par->bits_per_raw_sample > 0 ? static_cast<uint32_t>(par->bits_per_raw_sample) : 0;
    CopyName(si_.codec_name, avcodec_get_name(par->codec_id));
    CopyName(si_.sample_format_name, av_get_sample_fmt_name(static_cast<AVSampleFormat>(par->format)));
    if (par->extradata_size > 0) si_.extradata.assign(par->extradata, par->extradata + par->extradata_size);
    if (IsPcm(si_.codec_id)) {
      const uint32_t bits = static_cast<uint32_t>(av_get_exact_bits_per_sample(par->codec_id));
      const uint32_t align = si_.channels * bits / 8;
      if (align == 0 || (si_.block_align != 0 && si_.block_align != align)) {
        Fail(LANCET_MEDIA_ENOTSUP, "PCM with a block align of " + std::to_string(si_.block_align) + " bytes for " +
                                       std::to_string(si_.channels) + " channels of " + std::to_string(bits) + " bits");
      }
      si_.block_align = align;
      si_.flags |= LANCET_AUDIO_SI_PCM;
      si_.frame_size = LANCET_AUDIO_PCM_BLOCK;
    }
    rule_ = RuleFor(si_);
    si_.preroll_packets = rule_.packets;
    si_.preroll_samples = rule_.samples;
    si_.preroll_bytes = rule_.bytes;
  }

  void ReadPackets(Demuxer& d, int stream) {
    AVPacket* pkt = d.packet;
    const bool pcm = (si_.flags & LANCET_AUDIO_SI_PCM) != 0;
    const uint64_t block_bytes = uint64_t{LANCET_AUDIO_PCM_BLOCK} * si_.block_align;
    for (;;) {
      int rc = av_read_frame(d.format, pkt);
      if (rc == AVERROR_EOF) break;
      if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "cannot read the source: " + AvErrorText(rc));
      if (pkt->stream_index != stream || pkt->size <= 0) {
        av_packet_unref(pkt);
        continue;
      }
      if (pkt->flags & AV_PKT_FLAG_CORRUPT) {
        Fail(LANCET_MEDIA_ECORRUPT,
             "the source is truncated or corrupt: audio packet " + std::to_string(demuxed_) + " is incomplete");
      }
      if (static_cast<uint64_t>(pkt->size) > kMaxPacketSize)
        Fail(LANCET_MEDIA_ENOTSUP, "an audio packet is over 1 GiB");
      ++demuxed_;
      int64_t pts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
      if (pts == AV_NOPTS_VALUE) pts = next_pts_;
      if (!PtsInRange(pts)) Fail(LANCET_MEDIA_ECORRUPT, "an audio packet has a timestamp beyond +-2^60 ticks");
      if (pkt->duration > 0 && pkt->duration < kMaxPts) next_pts_ = pts + pkt->duration;
      end_pts_ = std::max(end_pts_, next_pts_);
      max_duration_ = std::max(max_duration_, pkt->duration);
      if (pcm) {
        if (pcm_.empty()) pcm_pts_ = pts;
        pcm_.insert(pcm_.end(), pkt->data, pkt->data + pkt->size);
        while (pcm_.size() >= block_bytes) EmitPcm(block_bytes);
      } else {
        PacketRecord r;
        r.size = static_cast<uint32_t>(pkt->size);
        r.flags = (pkt->flags & AV_PKT_FLAG_KEY) ? LANCET_AUDIO_PACKET_KEY : 0;
        r.pts = pts;
        size_t side_size = 0;
        const uint8_t* side = av_packet_get_side_data(pkt, AV_PKT_DATA_SKIP_SAMPLES, &side_size);
        if (side != nullptr && side_size >= 8) {
          r.skip_start = std::min<uint32_t>(AV_RL32(side), kMaxPacketSamples);
          r.skip_end = std::min<uint32_t>(AV_RL32(side + 4), kMaxPacketSamples);
          if (r.skip_start != 0 || r.skip_end != 0) r.flags |= LANCET_AUDIO_PACKET_SKIP;
        }
        Emit(pkt->data, r);
      }
      av_packet_unref(pkt);
    }
    if (pcm && !pcm_.empty()) {
      if (pcm_.size() % si_.block_align != 0) {
        Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated: its PCM data ends inside a sample (" +
                                        std::to_string(pcm_.size() % si_.block_align) + " stray bytes)");
      }
      EmitPcm(pcm_.size());
    }
    if (packets_.empty()) Fail(LANCET_MEDIA_ECORRUPT, "the audio stream has no packets");
    // What the decoder still holds belongs to the last packet.
    if (decoder_->SendFlush() >= 0) packets_.back().samples += Drain(packets_.size() - 1);
    FlushGroup();
    samples_ = 0;
    for (const PacketRecord& p : packets_) samples_ += p.samples;
  }

  // The group gathered so far: its record, then its packet table and packets to the sink.
  void FlushGroup() {
    if (group_.empty()) return;
    GroupRecord g;
    g.offset = stored_;
    g.first_packet = static_cast<uint32_t>(group_.front());
    g.packet_count = static_cast<uint32_t>(group_.size());
    g.first_sample = packets_[group_.front()].first_sample;
    g.first_pts = packets_[group_.front()].pts;
    std::vector<PacketRecord> records;
    for (size_t k : group_) {
      records.push_back(packets_[k]);
      g.samples += packets_[k].samples;
    }
    g.preroll_start = static_cast<uint32_t>(
        PrerollStart(rule_, g.first_packet, 0, [&](uint64_t i) -> const PacketRecord& { return packets_[i]; }));
    std::vector<uint8_t> table;
    WritePacketTable(records, &table);
    g.size = table.size() + group_bytes_.size();
    Write(table.data(), table.size());
    Write(group_bytes_.data(), group_bytes_.size());
    stored_ += g.size;
    index_.groups.push_back(g);
    group_.clear();
    group_bytes_.clear();
  }

  void Write(const uint8_t* data, uint64_t size) {
    if (size > 0 && sink_.write(sink_.context, data, size) != 0) {
      Fail(LANCET_MEDIA_ESINK, "the host refused " + std::to_string(size) + " bytes");
    }
  }

  void EmitPcm(uint64_t bytes) {
    PacketRecord r;
    r.size = static_cast<uint32_t>(bytes);
    r.flags = LANCET_AUDIO_PACKET_KEY;
    r.pts = pcm_pts_;
    Emit(pcm_.data(), r);
    const int64_t samples = static_cast<int64_t>(bytes / si_.block_align);
    pcm_pts_ += av_rescale_q(samples, AVRational{1, static_cast<int>(si_.sample_rate)},
                             AVRational{si_.time_base_num, si_.time_base_den});
    pcm_.erase(pcm_.begin(), pcm_.begin() + static_cast<ptrdiff_t>(bytes));
  }

  // Adds one packet to the current group and decodes it to learn how many samples it yields.
  void Emit(const uint8_t* data, PacketRecord r) {
    if (packets_.size() >= UINT32_MAX) Fail(LANCET_MEDIA_EINVAL, "the source has more than 2^32 audio packets");
    if (group_.size() >= kGroupPackets || group_bytes_.size() >= kGroupBytes) FlushGroup();
    r.first_sample = running_;
    group_bytes_.insert(group_bytes_.end(), data, data + r.size);
    const size_t index = packets_.size();
    packets_.push_back(r);
    group_.push_back(index);
    const int rc = decoder_->Send(data, r);
    if (rc < 0) {
      Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated or corrupt: audio packet " + std::to_string(index) +
                                      " does not decode (" + AvErrorText(rc) + ")");
    }
    packets_[index].samples = Drain(index);
    running_ += packets_[index].samples;
  }

  uint32_t Drain(size_t index) {
    uint64_t got = 0;
    for (;;) {
      const AVFrame* f;
      try {
        f = decoder_->Receive();
      } catch (const Error& e) {
        Fail(e.code, "the source is truncated or corrupt: audio packet " + std::to_string(index) + ": " + e.message);
      }
      if (f == nullptr) break;
      if (f->sample_rate != static_cast<int>(si_.sample_rate) ||
          f->ch_layout.nb_channels != static_cast<int>(si_.channels) || (format_ >= 0 && f->format != format_)) {
        Fail(LANCET_MEDIA_ENOTSUP,
             "the audio stream changes its sample rate, channels or sample format at packet " + std::to_string(index));
      }
      format_ = f->format;
      got += static_cast<uint64_t>(f->nb_samples);
    }
    if (got > kMaxPacketSamples) Fail(LANCET_MEDIA_ENOTSUP, "an audio packet decodes to more than 2^20 samples");
    return static_cast<uint32_t>(got);
  }

  // A container whose header promises more than is there was cut short.
  void CheckComplete(const AVFormatContext* format, const AVStream* st) const {
    if (std::strstr(format->iformat->name, "mov") != nullptr && st->nb_frames > 0 &&
        static_cast<uint64_t>(st->nb_frames) > demuxed_) {
      Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated: its index lists " + std::to_string(st->nb_frames) +
                                      " audio packets, " + std::to_string(demuxed_) + " are present");
    }
    if (st->duration > 0 && st->duration != AV_NOPTS_VALUE &&
        format->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE) {
      const int64_t start = st->start_time != AV_NOPTS_VALUE ? st->start_time : packets_.front().pts;
      const int64_t slack = std::max<int64_t>(max_duration_, 1);
      if (PtsInRange(start) && st->duration < kMaxPts && end_pts_ + slack < start + st->duration) {
        Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated: its header promises " + std::to_string(st->duration) +
                                        " ticks of audio, " + std::to_string(end_pts_ - start) + " are present");
      }
    }
  }

  // Ogg has no index to compare against: a complete stream ends with a whole page that
  // carries the end-of-stream flag, so a file cut anywhere shows at its tail.
  void CheckOggTail(const AVFormatContext* format) const {
    if (std::strcmp(format->iformat->name, "ogg") != 0) return;
    constexpr uint64_t kMaxPage = 27 + 255 + 255 * 255;
    const uint64_t from = spool_.size > 2 * kMaxPage ? spool_.size - 2 * kMaxPage : 0;
    std::vector<uint8_t> tail(static_cast<size_t>(spool_.size - from));
    if (pread(spool_.file.fd(), tail.data(), tail.size(), static_cast<off_t>(from)) !=
        static_cast<ssize_t>(tail.size())) {
      Fail(LANCET_MEDIA_EINTERNAL, std::string("cannot read the spooled source: ") + strerror(errno));
    }
    for (size_t at = tail.size() >= 27 ? tail.size() - 26 : 0; at-- > 0;) {
      if (std::memcmp(tail.data() + at, "OggS", 4) != 0 || tail[at + 4] != 0) continue;
      const size_t segments = tail[at + 26];
      uint64_t size = 27 + segments;
      for (size_t i = 0; i < segments && at + 27 + i < tail.size(); ++i) size += tail[at + 27 + i];
      if (at + size == tail.size() && (tail[at + 5] & 0x04) != 0) return;
      if (at + size <= tail.size()) break;  // a whole last page without end-of-stream
    }
    Fail(LANCET_MEDIA_ECORRUPT, "the source is truncated: its Ogg stream does not end with an end-of-stream page");
  }

  Config config_;
  Spool spool_;
  bool finished_ = false;
  LancetMediaSink sink_{};
  StreamInfo si_;
  PrerollRule rule_;
  std::unique_ptr<Decoder> decoder_;
  // Every packet's record (32 bytes a packet: pre-roll starts look back across groups);
  // only the current group's bytes are held.
  std::vector<PacketRecord> packets_;
  std::vector<size_t> group_;
  std::vector<uint8_t> group_bytes_;
  Index index_;
  std::vector<uint8_t> pcm_;  // PCM bytes not yet cut into a block
  int64_t pcm_pts_ = 0, next_pts_ = 0, end_pts_ = INT64_MIN, max_duration_ = 0;
  uint64_t stored_ = 0, samples_ = 0, demuxed_ = 0, running_ = 0;
  int format_ = -1;
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

}  // namespace lancet_audio
