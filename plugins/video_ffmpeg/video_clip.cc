// Clip: remux the planned GOPs' packets, untouched, into an MP4. The muxer writes to a
// temporary file so "+faststart" can move the moov to the front: the result is an ordinary
// progressive MP4 any player or ffprobe reads.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

extern "C" {
#include <libavformat/avformat.h>
}

#include "video_internal.h"

namespace lancet_video {
namespace {

struct Muxer {
  AVFormatContext* format = nullptr;
  AVPacket* packet = nullptr;
  ~Muxer() {
    av_packet_free(&packet);
    if (format != nullptr) avio_closep(&format->pb);
    avformat_free_context(format);
  }
};

std::vector<uint8_t> ReadBack(const TempFile& file) {
  struct stat st;
  if (fstat(file.fd(), &st) != 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot stat the clip's temporary file");
  if (static_cast<uint64_t>(st.st_size) > kMaxOutputBytes) Fail(LANCET_MEDIA_EINVAL, "the clip exceeds 1 GiB");
  std::vector<uint8_t> out(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t got = pread(file.fd(), out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot read the clip back");
    done += static_cast<size_t>(got);
  }
  return out;
}

}  // namespace

Decoded RemuxClip(const Timeline& t, const Plan& plan) {
  const std::vector<Run> runs = Runs(plan);
  const auto& gops = t.index->gops;
  // The clip starts at a keyframe: leading frames of its first GOP reference pictures the
  // clip does not hold, so they are left out.
  std::vector<PacketRecord> chosen;
  std::vector<const uint8_t*> bytes;
  uint32_t last_gop = 0;
  for (const Run& run : runs) {
    for (uint32_t g = run.first; g <= run.last; ++g) {
      const std::vector<PacketRecord>& table = plan.tables[g];
      for (int64_t k = 0; k <= plan.need_end[g]; ++k) {
        const PacketRecord& p = table[static_cast<size_t>(k)];
        if (g == run.first && p.pts < gops[g].key_pts) continue;
        chosen.push_back(p);
        bytes.push_back(plan.bytes[g][static_cast<size_t>(k)]);
      }
      last_gop = g;
    }
  }
  Decoded d;
  d.metadata.assign(LANCET_VIDEO_CLIP_HEADER_SIZE, 0);
  PutU32(d.metadata.data(), LANCET_VIDEO_CLIP_MAGIC);
  PutU16(d.metadata.data() + 4, 1);
  PutU16(d.metadata.data() + 6, LANCET_VIDEO_CLIP_HEADER_SIZE);
  if (chosen.empty()) return d;

  // Stored dts may be missing (Matroska) or start anywhere: the clip gets fresh ones, the
  // sorted pts shifted back just enough that no dts passes its pts, starting at 0.
  std::vector<int64_t> sorted;
  for (const PacketRecord& p : chosen) sorted.push_back(p.pts);
  std::sort(sorted.begin(), sorted.end());
  int64_t shift = 0;
  for (size_t i = 0; i < chosen.size(); ++i) shift = std::max(shift, sorted[i] - chosen[i].pts);
  const int64_t base = sorted.front() - shift;
  // The clip ends with its last GOP, so its last frame stops being shown when the next
  // GOP's first frame starts.
  const int64_t end_pts = last_gop + 1 < gops.size() ? gops[last_gop + 1].first_pts : t.end_pts;

  TempFile file;
  Muxer m;
  int rc = avformat_alloc_output_context2(&m.format, nullptr, "mp4", file.path().c_str());
  if (rc < 0 || m.format == nullptr) Fail(LANCET_MEDIA_EINTERNAL, "cannot create an MP4 muxer: " + AvErrorText(rc));
  AVStream* st = avformat_new_stream(m.format, nullptr);
  m.packet = av_packet_alloc();
  if (st == nullptr || m.packet == nullptr) Fail(LANCET_MEDIA_ENOMEM, "out of memory for the muxer");
  AVCodecParameters* par = MakeCodecParameters(*t.si);
  rc = avcodec_parameters_copy(st->codecpar, par);
  avcodec_parameters_free(&par);
  if (rc < 0) Fail(LANCET_MEDIA_ENOMEM, "out of memory for the muxer");
  st->codecpar->codec_tag = 0;
  const AVRational tb{t.si->time_base_num, t.si->time_base_den};
  st->time_base = tb;
  if (t.si->frame_rate_num > 0 && t.si->frame_rate_den > 0) {
    st->avg_frame_rate = AVRational{t.si->frame_rate_num, t.si->frame_rate_den};
  }
  rc = avio_open(&m.format->pb, file.path().c_str(), AVIO_FLAG_WRITE);
  if (rc < 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot open the clip's temporary file: " + AvErrorText(rc));
  AVDictionary* options = nullptr;
  av_dict_set(&options, "movflags", "+faststart", 0);
  rc = avformat_write_header(m.format, &options);
  av_dict_free(&options);
  if (rc < 0) {
    Fail(LANCET_MEDIA_ENOTSUP, "MP4 cannot hold this " + t.si->codec_name + " stream: " + AvErrorText(rc));
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    const PacketRecord& p = chosen[i];
    AVPacket* pkt = m.packet;
    if (av_new_packet(pkt, static_cast<int>(p.size)) < 0) Fail(LANCET_MEDIA_ENOMEM, "out of memory for a packet");
    std::memcpy(pkt->data, bytes[i], p.size);
    const size_t rank = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), p.pts) - sorted.begin());
    const int64_t next = rank + 1 < sorted.size() ? sorted[rank + 1] : end_pts;
    pkt->pts = av_rescale_q(p.pts - base, tb, st->time_base);
    pkt->dts = av_rescale_q(sorted[i] - shift - base, tb, st->time_base);
    pkt->duration = av_rescale_q(next - p.pts, tb, st->time_base);
    if (p.flags & LANCET_VIDEO_PACKET_KEY) pkt->flags |= AV_PKT_FLAG_KEY;
    pkt->stream_index = st->index;
    rc = av_write_frame(m.format, pkt);
    av_packet_unref(pkt);
    if (rc < 0) Fail(LANCET_MEDIA_ECORRUPT, "the MP4 muxer refused a packet: " + AvErrorText(rc));
  }
  rc = av_write_trailer(m.format);
  if (rc < 0) Fail(LANCET_MEDIA_EINTERNAL, "cannot finish the MP4: " + AvErrorText(rc));
  avio_closep(&m.format->pb);
  d.data = ReadBack(file);
  PutU64(d.metadata.data() + 8, chosen.size());
  PutF64(d.metadata.data() + 16, t.Seconds(sorted.front()));
  PutF64(d.metadata.data() + 24, t.Seconds(end_pts));
  return d;
}

}  // namespace lancet_video
