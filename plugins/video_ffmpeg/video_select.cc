// Presentation order and the packets a request needs. Plan and decode both run this, so
// decode re-derives exactly what plan asked for from the same stream_info and entries.
#include <algorithm>

#include "video_internal.h"

namespace lancet_video {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? INT64_MAX : INT64_MIN;
  return out;
}

bool IsLeading(const Timeline& t, uint32_t packet) {
  const GopRecord& gop = t.index->gops[t.gop_of[packet]];
  return t.index->packets[packet].pts < t.index->packets[gop.first_packet].pts;
}

void CheckCount(uint64_t count) {
  if (count > kMaxFramesPerDecode) {
    Fail(LANCET_MEDIA_EINVAL, "the request selects " + std::to_string(count) + " frames, at most " +
                                  std::to_string(kMaxFramesPerDecode) + " per request");
  }
}

}  // namespace

double Timeline::Seconds(int64_t pts) const { return static_cast<double>(pts) * si->time_base_num / si->time_base_den; }

int64_t Timeline::FrameEnd(uint64_t frame) const {
  return frame + 1 < order.size() ? index->packets[order[frame + 1]].pts : end_pts;
}

Timeline BuildTimeline(const StreamInfo& si, const Index& index) {
  Timeline t;
  t.si = &si;
  t.index = &index;
  const auto& packets = index.packets;
  t.order.resize(packets.size());
  for (uint32_t i = 0; i < t.order.size(); ++i) t.order[i] = i;
  std::stable_sort(t.order.begin(), t.order.end(),
                   [&](uint32_t a, uint32_t b) { return packets[a].pts < packets[b].pts; });
  // Decode output is matched to requests by pts, so two frames may not share one.
  for (size_t i = 1; i < t.order.size(); ++i) {
    if (packets[t.order[i]].pts == packets[t.order[i - 1]].pts) {
      Fail(LANCET_MEDIA_ECORRUPT, "entries: two packets share pts " + std::to_string(packets[t.order[i]].pts));
    }
  }
  t.gop_of.resize(packets.size());
  for (uint32_t g = 0; g < index.gops.size(); ++g) {
    const GopRecord& r = index.gops[g];
    std::fill(t.gop_of.begin() + r.first_packet, t.gop_of.begin() + r.first_packet + r.packet_count, g);
  }
  const int64_t last = packets[t.order.back()].pts;
  t.end_pts = std::max(SaturatingAdd(si.start_pts, si.duration), SaturatingAdd(last, 1));
  return t;
}

Selection Select(const Timeline& t, const Request& request) {
  const auto& packets = t.index->packets;
  const auto& gops = t.index->gops;
  const uint64_t n = t.order.size();
  const bool keys_only = (request.flags & LANCET_VIDEO_FLAG_KEYFRAMES_ONLY) != 0;
  auto is_key = [&](uint32_t packet) { return (packets[packet].flags & LANCET_VIDEO_PACKET_KEY) != 0; };
  Selection s;
  s.clip = request.kind == LANCET_VIDEO_REQ_CLIP;
  std::vector<uint64_t> frames;  // frame indices, ascending and unique
  switch (request.kind) {
    case LANCET_VIDEO_REQ_WINDOW:
    case LANCET_VIDEO_REQ_CLIP:
      for (uint64_t f = 0; f < n; ++f) {
        const double time = t.Seconds(packets[t.order[f]].pts);
        if (time >= request.t0 && time < request.t1 && (!keys_only || is_key(t.order[f]))) frames.push_back(f);
      }
      break;
    case LANCET_VIDEO_REQ_FRAMES:
      CheckCount(request.frames.size());
      for (uint64_t f : request.frames) {
        if (f >= n) {
          Fail(LANCET_MEDIA_EINVAL,
               "frame index " + std::to_string(f) + " is out of range: the video has " + std::to_string(n) + " frames");
        }
        frames.push_back(f);
      }
      break;
    case LANCET_VIDEO_REQ_TIMESTAMPS: {
      CheckCount(request.times.size());
      std::vector<uint64_t> candidates;
      for (uint64_t f = 0; f < n; ++f) {
        if (!keys_only || is_key(t.order[f])) candidates.push_back(f);
      }
      const double end = t.Seconds(t.end_pts);
      for (double time : request.times) {
        // The frame shown at `time` is the last one that started at or before it.
        auto it = std::upper_bound(candidates.begin(), candidates.end(), time,
                                   [&](double v, uint64_t f) { return v < t.Seconds(packets[t.order[f]].pts); });
        if (it == candidates.begin() || time >= end) continue;
        frames.push_back(*(it - 1));
      }
      break;
    }
    default:
      Fail(LANCET_MEDIA_EINVAL, "request kind is unknown");
  }
  std::sort(frames.begin(), frames.end());
  frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
  if (!s.clip) CheckCount(frames.size());

  s.need_end.assign(gops.size(), -1);
  auto need = [&](uint32_t g, int64_t packet) { s.need_end[g] = std::max(s.need_end[g], packet); };
  for (uint64_t f : frames) {
    const uint32_t packet = t.order[f];
    const uint32_t g = t.gop_of[packet];
    s.targets.push_back(packet);
    s.frames.push_back(f);
    need(g, packet);
    // Leading frames of an open GOP reference the GOP before: decode all of it first.
    if (g > 0 && (gops[g].flags & LANCET_VIDEO_GOP_OPEN) && IsLeading(t, packet)) {
      need(g - 1, gops[g - 1].first_packet + gops[g - 1].packet_count - 1);
    }
  }
  if (s.clip) {
    for (uint32_t g = 0; g < gops.size(); ++g) {
      if (s.need_end[g] >= 0) s.need_end[g] = gops[g].first_packet + gops[g].packet_count - 1;
    }
  }
  return s;
}

std::vector<Run> Runs(const Timeline& t, const Selection& s) {
  std::vector<Run> runs;
  for (uint32_t g = 0; g < s.need_end.size(); ++g) {
    if (s.need_end[g] < 0) continue;
    const uint32_t first = t.index->gops[g].first_packet;
    const uint32_t last = static_cast<uint32_t>(s.need_end[g]);
    if (!runs.empty() && runs.back().last + 1 == first) {
      runs.back().last = last;
    } else {
      runs.push_back({first, last});
    }
  }
  return runs;
}

}  // namespace lancet_video
