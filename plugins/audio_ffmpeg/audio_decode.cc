// Decode: feed the pre-roll and the window's packets to libavcodec opened from
// stream_info alone, check each packet yields the samples ingest recorded (so positions
// stay exact), keep the samples inside the window and convert them with libswresample.
#include <algorithm>
#include <cstring>
#include <numeric>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
}

#include "audio_internal.h"

namespace lancet_audio {
namespace {

// Where each packet's bytes lie in the ranges decode was given (any ranges covering
// plan's: merged, overlapping, in any order).
class RangeIndex {
 public:
  RangeIndex(const LancetMediaRange* ranges, const uint8_t* const* data, uint64_t count)
      : ranges_(ranges), data_(data), order_(count) {
    std::iota(order_.begin(), order_.end(), uint64_t{0});
    std::sort(order_.begin(), order_.end(),
              [&](uint64_t a, uint64_t b) { return ranges_[a].offset < ranges_[b].offset; });
    // widest_[i]: of the ranges sorted up to i, the one reaching furthest.
    widest_.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      widest_[i] = order_[i];
      if (i > 0 && End(order_[i]) < End(widest_[i - 1])) widest_[i] = widest_[i - 1];
    }
  }

  // The bytes [offset, offset + size) inside one given range; `what` names them otherwise.
  const uint8_t* Find(uint64_t offset, uint64_t size, const std::string& what) const {
    auto it = std::upper_bound(order_.begin(), order_.end(), offset,
                               [&](uint64_t off, uint64_t r) { return off < ranges_[r].offset; });
    if (it != order_.begin()) {
      const uint64_t r = widest_[static_cast<size_t>(it - order_.begin()) - 1];
      if (End(r) >= offset + size && data_[r] != nullptr) return data_[r] + (offset - ranges_[r].offset);
    }
    Fail(LANCET_MEDIA_EINVAL, "decode was not given the bytes of " + what + " [" + std::to_string(offset) + ", +" +
                                  std::to_string(size) + ")");
  }

 private:
  uint64_t End(uint64_t r) const {
    const uint64_t end = ranges_[r].offset + ranges_[r].length;
    return end < ranges_[r].offset ? UINT64_MAX : end;
  }
  const LancetMediaRange* ranges_;
  const uint8_t* const* data_;
  std::vector<uint64_t> order_, widest_;
};

class Converter {
 public:
  Converter(const Selection& s, uint8_t format, uint32_t source_rate)
      : s_(s),
        out_format_(format == LANCET_AUDIO_FMT_S16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLT),
        frame_bytes_(static_cast<uint64_t>(s.out_channels) * (format == LANCET_AUDIO_FMT_S16 ? 2 : 4)),
        source_rate_(source_rate) {}
  ~Converter() {
    swr_free(&swr_);
    av_channel_layout_uninit(&in_layout_);
  }
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;

  // Converts samples [offset, offset + count) of `f`.
  void Push(const AVFrame* f, int offset, int count) {
    if (swr_ == nullptr) Init(f);
    if (f->format != in_format_ || av_channel_layout_compare(&f->ch_layout, &in_layout_) != 0) {
      if (f->ch_layout.order != AV_CHANNEL_ORDER_UNSPEC || f->ch_layout.nb_channels != in_layout_.nb_channels ||
          f->format != in_format_) {
        Fail(LANCET_MEDIA_ENOTSUP, "the decoder changed its sample format or channel layout mid-stream");
      }
    }
    const AVSampleFormat fmt = static_cast<AVSampleFormat>(f->format);
    const int bps = av_get_bytes_per_sample(fmt);
    const bool planar = av_sample_fmt_is_planar(fmt) != 0;
    const int channels = f->ch_layout.nb_channels;
    const uint8_t* in[kMaxChannels];
    for (int c = 0; c < (planar ? channels : 1); ++c) {
      in[c] = f->extended_data[c] + static_cast<ptrdiff_t>(offset) * bps * (planar ? 1 : channels);
    }
    Convert(in, count);
  }

  std::vector<uint8_t> Finish() {
    if (swr_ != nullptr && s_.out_rate != source_rate_) Convert(nullptr, 0);
    const uint64_t want = (s_.out1 - s_.out0) * frame_bytes_;
    // Resampling may give a sample more or less than the window holds at the output rate.
    out_.resize(want, 0);
    return std::move(out_);
  }

 private:
  void Init(const AVFrame* f) {
    if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
      av_channel_layout_default(&in_layout_, f->ch_layout.nb_channels);
    } else if (av_channel_layout_copy(&in_layout_, &f->ch_layout) < 0) {
      Fail(LANCET_MEDIA_ENOMEM, "out of memory for a channel layout");
    }
    in_format_ = f->format;
    AVChannelLayout out_layout{};
    if (static_cast<int>(s_.out_channels) == in_layout_.nb_channels) {
      if (av_channel_layout_copy(&out_layout, &in_layout_) < 0) Fail(LANCET_MEDIA_ENOMEM, "out of memory");
    } else {
      av_channel_layout_default(&out_layout, static_cast<int>(s_.out_channels));
    }
    int rc = swr_alloc_set_opts2(&swr_, &out_layout, out_format_, static_cast<int>(s_.out_rate), &in_layout_,
                                 static_cast<AVSampleFormat>(f->format), static_cast<int>(source_rate_), 0, nullptr);
    av_channel_layout_uninit(&out_layout);
    if (rc >= 0) rc = swr_init(swr_);
    if (rc < 0) Fail(LANCET_MEDIA_ENOTSUP, "libswresample cannot convert this audio: " + AvErrorText(rc));
  }

  void Convert(const uint8_t** in, int count) {
    for (;;) {
      const int room = swr_get_out_samples(swr_, count);
      if (room < 0) Fail(LANCET_MEDIA_EINTERNAL, "libswresample failed to size its output");
      const uint64_t at = out_.size();
      if (at + static_cast<uint64_t>(room) * frame_bytes_ > kMaxOutputBytes + frame_bytes_ * 64) {
        Fail(LANCET_MEDIA_EINVAL, "the decoded window exceeds 1 GiB");
      }
      out_.resize(at + static_cast<uint64_t>(room) * frame_bytes_);
      uint8_t* dst = out_.data() + at;
      const int got = swr_convert(swr_, &dst, room, in, count);
      if (got < 0) Fail(LANCET_MEDIA_ECORRUPT, "libswresample failed: " + AvErrorText(got));
      out_.resize(at + static_cast<uint64_t>(got) * frame_bytes_);
      // A flush repeats until the resampler is empty; a normal call converts all at once.
      if (in != nullptr || got == 0) return;
    }
  }

  const Selection& s_;
  AVSampleFormat out_format_;
  uint64_t frame_bytes_;
  uint32_t source_rate_;
  SwrContext* swr_ = nullptr;
  AVChannelLayout in_layout_{};
  int in_format_ = -1;
  std::vector<uint8_t> out_;
};

std::vector<uint8_t> Metadata(const Request& r, const Selection& s) {
  std::vector<uint8_t> m(LANCET_AUDIO_PCM_HEADER_SIZE, 0);
  uint8_t* p = m.data();
  PutU32(p, LANCET_AUDIO_PCM_MAGIC);
  PutU16(p + 4, 1);
  PutU16(p + 6, LANCET_AUDIO_PCM_HEADER_SIZE);
  p[8] = r.format;
  PutU32(p + 12, s.out_rate);
  PutU32(p + 16, s.out_channels);
  const uint64_t count = s.empty ? 0 : s.out1 - s.out0;
  PutU64(p + 24, s.out0);
  PutU64(p + 32, count);
  PutF64(p + 40, static_cast<double>(s.out0) / s.out_rate);
  return m;
}

}  // namespace

Decoded DecodeWindow(const StreamInfo& si, const Index& index, const Request& r, const Selection& s,
                     const LancetMediaRange* ranges, const uint8_t* const* range_data, uint64_t range_count) {
  Decoded d;
  d.metadata = Metadata(r, s);
  if (s.empty) return d;
  RangeIndex located(ranges, range_data, range_count);
  // The packets of the selected groups, from the tables at their heads.
  std::vector<PacketRecord> packets;
  std::vector<const uint8_t*> bytes;
  const uint64_t base = index.groups[s.start].first_packet;
  for (uint32_t g = s.start; g <= s.last; ++g) {
    const GroupRecord& group = index.groups[g];
    const uint8_t* table = located.Find(group.offset, group.table_size, "group " + std::to_string(g) + "'s table");
    for (const PacketRecord& p : ReadPacketTable(table, group, g)) {
      bytes.push_back(located.Find(p.offset, p.size, "packet " + std::to_string(base + packets.size())));
      packets.push_back(p);
    }
  }
  auto by_first = [](uint64_t v, const PacketRecord& p) { return v < p.first_sample; };
  const size_t first =
      static_cast<size_t>(std::upper_bound(packets.begin(), packets.end(), s.s0, by_first) - packets.begin()) - 1;
  const size_t last =
      static_cast<size_t>(std::upper_bound(packets.begin(), packets.end(), s.s1 - 1, by_first) - packets.begin()) - 1;
  const uint64_t start = PrerollStart(RuleOf(si), base + first, base,
                                      [&](uint64_t i) -> const PacketRecord& { return packets[i - base]; });
  if (start == UINT64_MAX) {
    Fail(LANCET_MEDIA_ECORRUPT, "entries: group " + std::to_string(s.first) + "'s pre-roll start is too late");
  }
  Decoder decoder(si);
  Converter converter(s, r.format, si.sample_rate);
  for (size_t k = static_cast<size_t>(start - base); k <= last; ++k) {
    const PacketRecord& p = packets[k];
    const bool wanted = k >= first;
    // A cold decoder may reject pre-roll packets (an MP3 frame whose bit reservoir lies
    // before the start): their output is discarded anyway.
    if (decoder.Send(bytes[k], p) < 0) {
      if (!wanted) continue;
      Fail(LANCET_MEDIA_ECORRUPT, "the decoder rejected stored packet " + std::to_string(base + k));
    }
    uint64_t got = 0;
    auto drain = [&] {
      for (;;) {
        const AVFrame* f;
        try {
          f = decoder.Receive();
        } catch (const Error&) {
          if (!wanted) return;
          throw;
        }
        if (f == nullptr) return;
        if (!wanted) continue;
        if (f->sample_rate != static_cast<int>(si.sample_rate) ||
            f->ch_layout.nb_channels != static_cast<int>(si.channels) || f->nb_samples < 0) {
          Fail(LANCET_MEDIA_ECORRUPT,
               "packet " + std::to_string(base + k) + " decodes to another rate or channel count");
        }
        const uint64_t pos = p.first_sample + got;
        const uint64_t n = static_cast<uint64_t>(f->nb_samples);
        got += n;
        if (got > p.samples) return;
        const uint64_t lo = std::max(pos, s.s0), hi = std::min(pos + n, s.s1);
        if (lo < hi) converter.Push(f, static_cast<int>(lo - pos), static_cast<int>(hi - lo));
      }
    };
    drain();
    // What the decoder still holds at the end belongs to the last packet (as at ingest).
    if (base + k + 1 == index.packet_count && decoder.SendFlush() >= 0) drain();
    if (wanted && got != p.samples) {
      Fail(LANCET_MEDIA_ECORRUPT, "stored packet " + std::to_string(base + k) + " decodes to " + std::to_string(got) +
                                      " samples, the index says " + std::to_string(p.samples));
    }
  }
  d.data = converter.Finish();
  return d;
}

}  // namespace lancet_audio
