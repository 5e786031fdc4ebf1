// Presentation order and what a request needs. Plan and decode both run Select on the GOP
// records alone, so decode re-derives exactly the bytes plan asked for; decode then parses
// those GOPs' packet tables (Resolve) and picks the packets. GOPs are in presentation order
// (ReadEntries checks it), so frame index i is in the GOP whose first_packet..+frame_count
// brackets it, at rank i - first_packet of the GOP's pts.
#include <algorithm>
#include <numeric>

#include "video_internal.h"

namespace lancet_video {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? INT64_MAX : INT64_MIN;
  return out;
}

void CheckCount(uint64_t count) {
  if (count > kMaxFramesPerDecode) {
    Fail(LANCET_MEDIA_EINVAL, "the request selects " + std::to_string(count) + " frames, at most " +
                                  std::to_string(kMaxFramesPerDecode) + " per request");
  }
}

void Need(Selection& s, uint32_t g, uint64_t bytes) { s.need[g] = std::max(s.need[g], bytes); }

uint64_t KeyBytes(const GopRecord& r) { return uint64_t{r.table_size} + r.key_size; }

// Bytes of GOP r that show every frame with a time below `end` (exclusive) or, with
// `inclusive`, at or below it: the first time checkpoint whose boundary lies beyond.
uint64_t BytesBefore(const Timeline& t, const GopRecord& r, double end, bool inclusive) {
  for (uint32_t c = 0; c < kCheckpoints; ++c) {
    const double boundary = t.Seconds(TimeCheckpoint(r.first_pts, r.last_pts, c));
    if (inclusive ? boundary > end : boundary >= end) return r.time_prefix[c];
  }
  return r.size;
}

// Bytes of GOP r that show its frame of presentation rank `rank`.
uint64_t BytesOfRank(const GopRecord& r, uint64_t rank) { return r.rank_prefix[RankCheckpoint(rank, r.frame_count)]; }

// The table's packet indices in presentation (pts) order.
std::vector<uint32_t> PtsOrder(const std::vector<PacketRecord>& table, uint32_t g) {
  std::vector<uint32_t> order(table.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return table[a].pts < table[b].pts; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (table[order[i]].pts == table[order[i - 1]].pts) {
      Fail(LANCET_MEDIA_ECORRUPT, "stored stream: GOP " + std::to_string(g) + " has two packets with pts " +
                                      std::to_string(table[order[i]].pts));
    }
  }
  return order;
}

}  // namespace

double Timeline::Seconds(int64_t pts) const { return static_cast<double>(pts) * si->time_base_num / si->time_base_den; }

uint32_t Timeline::GopOfFrame(uint64_t frame) const {
  const auto& gops = index->gops;
  auto it = std::upper_bound(gops.begin(), gops.end(), frame,
                             [](uint64_t f, const GopRecord& g) { return f < g.first_packet; });
  return static_cast<uint32_t>(it - gops.begin() - 1);
}

Timeline BuildTimeline(const StreamInfo& si, const Index& index) {
  Timeline t;
  t.si = &si;
  t.index = &index;
  const int64_t last = index.gops.back().last_pts;
  t.end_pts = std::max(SaturatingAdd(si.start_pts, si.duration), SaturatingAdd(last, 1));
  return t;
}

Selection Select(const Timeline& t, const Request& request) {
  const auto& gops = t.index->gops;
  const uint64_t n = t.index->packet_count;
  Selection s;
  s.keys_only = (request.flags & LANCET_VIDEO_FLAG_KEYFRAMES_ONLY) != 0;
  s.clip = request.kind == LANCET_VIDEO_REQ_CLIP;
  s.need.assign(gops.size(), 0);
  // Leading frames of an open GOP reference the GOP before: decode all of it first.
  auto pull_previous = [&](uint32_t g) {
    if (g > 0 && gops[g].leading_count > 0) Need(s, g - 1, gops[g - 1].size);
  };
  switch (request.kind) {
    case LANCET_VIDEO_REQ_WINDOW:
    case LANCET_VIDEO_REQ_CLIP: {
      uint64_t surely = 0;  // frames of GOPs wholly inside the window: a lower bound
      for (uint32_t g = 0; g < gops.size(); ++g) {
        const GopRecord& r = gops[g];
        if (s.keys_only) {
          const double key = t.Seconds(r.key_pts);
          if (key >= request.t0 && key < request.t1) {
            Need(s, g, KeyBytes(r));
            ++surely;
          }
          continue;
        }
        const double first = t.Seconds(r.first_pts), last = t.Seconds(r.last_pts);
        if (!(first < request.t1 && last >= request.t0)) continue;
        // A clip remuxes whole GOPs; frames need the GOP up to the window's last one.
        Need(s, g, s.clip ? r.size : BytesBefore(t, r, request.t1, false));
        if (first >= request.t0 && last < request.t1) surely += r.frame_count;
        if (request.t0 <= t.Seconds(r.key_pts)) pull_previous(g);
      }
      if (!s.clip) CheckCount(surely);
      break;
    }
    case LANCET_VIDEO_REQ_FRAMES:
      CheckCount(request.frames.size());
      for (uint64_t f : request.frames) {
        if (f >= n) {
          Fail(LANCET_MEDIA_EINVAL,
               "frame index " + std::to_string(f) + " is out of range: the video has " + std::to_string(n) + " frames");
        }
        s.frames.push_back(f);
      }
      std::sort(s.frames.begin(), s.frames.end());
      s.frames.erase(std::unique(s.frames.begin(), s.frames.end()), s.frames.end());
      for (uint64_t f : s.frames) {
        const uint32_t g = t.GopOfFrame(f);
        Need(s, g, BytesOfRank(gops[g], f - gops[g].first_packet));
        if (f - gops[g].first_packet < gops[g].leading_count) pull_previous(g);
      }
      break;
    case LANCET_VIDEO_REQ_TIMESTAMPS: {
      CheckCount(request.times.size());
      const double end = t.Seconds(t.end_pts);
      for (double time : request.times) {
        // The frame shown at `time` is the last one that started at or before it: in the
        // last GOP starting at or before it.
        auto it = std::upper_bound(gops.begin(), gops.end(), time, [&](double v, const GopRecord& r) {
          return v < t.Seconds(s.keys_only ? r.key_pts : r.first_pts);
        });
        if (it == gops.begin() || time >= end) continue;
        const uint32_t g = static_cast<uint32_t>(it - gops.begin() - 1);
        s.times.emplace_back(time, g);
        if (s.keys_only) {
          Need(s, g, KeyBytes(gops[g]));
        } else {
          Need(s, g, BytesBefore(t, gops[g], time, true));
          if (time < t.Seconds(gops[g].key_pts)) pull_previous(g);
        }
      }
      break;
    }
    default:
      Fail(LANCET_MEDIA_EINVAL, "request kind is unknown");
  }
  return s;
}

Plan Resolve(const Timeline& t, const Selection& s, const Request& request, const LancetMediaRange* ranges,
             const uint8_t* const* range_data, uint64_t range_count) {
  const auto& gops = t.index->gops;
  Plan plan;
  plan.tables.resize(gops.size());
  plan.bytes.resize(gops.size());
  plan.need_end.assign(gops.size(), -1);
  std::vector<std::vector<uint32_t>> orders(gops.size());
  // Find each needed table and packet: they come in rising offsets, so sweep the ranges
  // once, keeping the one reaching furthest. A GOP may span several ranges.
  std::vector<uint64_t> sorted(range_count);
  std::iota(sorted.begin(), sorted.end(), uint64_t{0});
  std::sort(sorted.begin(), sorted.end(), [&](uint64_t a, uint64_t b) { return ranges[a].offset < ranges[b].offset; });
  size_t next = 0;
  uint64_t best = UINT64_MAX, best_end = 0;
  auto locate = [&](uint64_t start, uint64_t length, uint32_t g) -> const uint8_t* {
    while (next < sorted.size() && ranges[sorted[next]].offset <= start) {
      const LancetMediaRange& range = ranges[sorted[next]];
      const uint64_t end = range.length > UINT64_MAX - range.offset ? UINT64_MAX : range.offset + range.length;
      if (end > best_end && (range.length == 0 || range_data[sorted[next]] != nullptr)) {
        best = sorted[next];
        best_end = end;
      }
      ++next;
    }
    if (best == UINT64_MAX || best_end < start + length) {
      Fail(LANCET_MEDIA_EINVAL, "the given ranges do not hold GOP " + std::to_string(g) + "'s bytes " +
                                    std::to_string(start) + " to " + std::to_string(start + length));
    }
    return range_data[best] + (start - ranges[best].offset);
  };
  for (uint32_t g = 0; g < gops.size(); ++g) {
    if (s.need[g] == 0) continue;
    const GopRecord& r = gops[g];
    const uint8_t* table = locate(r.offset, r.table_size, g);
    plan.tables[g] = ReadPacketTable(table, r.table_size, r, g);
    // The packets plan's prefix of the GOP holds, in decode order.
    for (const PacketRecord& p : plan.tables[g]) {
      if (p.offset + p.size > r.offset + s.need[g]) break;
      plan.bytes[g].push_back(locate(p.offset, p.size, g));
    }
    orders[g] = PtsOrder(plan.tables[g], g);
  }
  auto add = [&](uint32_t g, uint32_t rank) {
    const uint32_t k = orders[g][rank];
    plan.targets.push_back({g, k, gops[g].first_packet + uint64_t{rank}, plan.tables[g][k].pts});
  };
  switch (request.kind) {
    case LANCET_VIDEO_REQ_WINDOW:
    case LANCET_VIDEO_REQ_CLIP:
      for (uint32_t g = 0; g < gops.size(); ++g) {
        for (uint32_t rank = 0; rank < orders[g].size(); ++rank) {
          const PacketRecord& p = plan.tables[g][orders[g][rank]];
          const double time = t.Seconds(p.pts);
          if (time >= request.t0 && time < request.t1 && (!s.keys_only || orders[g][rank] == 0)) add(g, rank);
        }
      }
      break;
    case LANCET_VIDEO_REQ_FRAMES:
      for (uint64_t f : s.frames) {
        const uint32_t g = t.GopOfFrame(f);
        add(g, static_cast<uint32_t>(f - gops[g].first_packet));
      }
      break;
    case LANCET_VIDEO_REQ_TIMESTAMPS:
      for (const auto& [time, g] : s.times) {
        if (s.keys_only) {
          add(g, gops[g].leading_count);  // the keyframe's rank: after the leading frames
          continue;
        }
        uint32_t rank = 0;
        while (rank + 1 < orders[g].size() && t.Seconds(plan.tables[g][orders[g][rank + 1]].pts) <= time) ++rank;
        add(g, rank);
      }
      break;
    default:
      Fail(LANCET_MEDIA_EINVAL, "request kind is unknown");
  }
  std::sort(plan.targets.begin(), plan.targets.end(),
            [](const Target& a, const Target& b) { return a.frame < b.frame; });
  plan.targets.erase(std::unique(plan.targets.begin(), plan.targets.end(),
                                 [](const Target& a, const Target& b) { return a.frame == b.frame; }),
                     plan.targets.end());
  if (!s.clip) CheckCount(plan.targets.size());
  auto need = [&](uint32_t g, int64_t packet) {
    if (plan.bytes[g].size() <= static_cast<uint64_t>(packet)) {
      // Only entries whose checkpoints understate what a frame needs get here.
      Fail(LANCET_MEDIA_ECORRUPT, "entries: GOP " + std::to_string(g) + "'s checkpoints do not cover packet " +
                                      std::to_string(packet) + ", which a requested frame needs");
    }
    plan.need_end[g] = std::max(plan.need_end[g], packet);
  };
  for (const Target& x : plan.targets) {
    need(x.gop, x.packet);
    if (x.gop > 0 && plan.tables[x.gop][x.packet].pts < gops[x.gop].key_pts) {
      need(x.gop - 1, gops[x.gop - 1].packet_count - 1);
    }
  }
  if (s.clip) {
    for (uint32_t g = 0; g < gops.size(); ++g) {
      if (plan.need_end[g] >= 0) plan.need_end[g] = gops[g].packet_count - 1;
    }
  }
  return plan;
}

std::vector<Run> Runs(const Plan& plan) {
  std::vector<Run> runs;
  for (uint32_t g = 0; g < plan.need_end.size(); ++g) {
    if (plan.need_end[g] < 0) continue;
    if (!runs.empty() && runs.back().last + 1 == g &&
        plan.need_end[g - 1] + 1 == static_cast<int64_t>(plan.tables[g - 1].size())) {
      runs.back().last = g;
    } else {
      runs.push_back({g, g});
    }
  }
  return runs;
}

}  // namespace lancet_video
