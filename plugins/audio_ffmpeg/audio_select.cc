// What a window needs: its sample range, the packets whose decoded samples meet it, and
// the pre-roll packets a decoder starting cold decodes first. Plan and decode both run it,
// so decode never trusts the ranges it is given to say what to decode.
#include <algorithm>
#include <cmath>

#include "audio_internal.h"

namespace lancet_audio {
namespace {

// round(t * rate) clamped to [0, limit]; t is finite and >= 0 (ReadRequest checks).
uint64_t SampleAt(double t, uint32_t rate, uint64_t limit) {
  const double x = std::floor(t * rate + 0.5);
  if (!(x < static_cast<double>(limit))) return limit;
  return static_cast<uint64_t>(x);
}

}  // namespace

PrerollRule RuleOf(const StreamInfo& si) { return {si.preroll_packets, si.preroll_samples, si.preroll_bytes}; }

Selection Select(const StreamInfo& si, const Index& index, const Request& r) {
  Selection s;
  s.out_rate = r.rate != 0 ? r.rate : si.sample_rate;
  s.out_channels = r.channels != 0 ? r.channels : si.channels;
  s.s0 = SampleAt(r.t0, si.sample_rate, si.sample_count);
  s.s1 = SampleAt(r.t1, si.sample_rate, si.sample_count);
  if (s.out_rate == si.sample_rate) {
    s.out0 = s.s0;
    s.out1 = s.s1;
  } else {
    const uint64_t out_total =
        static_cast<uint64_t>(std::floor(static_cast<double>(si.sample_count) * s.out_rate / si.sample_rate + 0.5));
    s.out0 = SampleAt(r.t0, s.out_rate, out_total);
    s.out1 = SampleAt(r.t1, s.out_rate, out_total);
  }
  const std::vector<GroupRecord>& groups = index.groups;
  if (s.s0 >= s.s1 || s.out0 >= s.out1 || groups.empty()) return s;
  const uint64_t count = s.out1 - s.out0;
  if (count > kMaxOutputBytes ||
      count * s.out_channels * (r.format == LANCET_AUDIO_FMT_S16 ? 2 : 4) > kMaxOutputBytes) {
    Fail(LANCET_MEDIA_EINVAL, "the window's " + std::to_string(count) + " samples x " + std::to_string(s.out_channels) +
                                  " channels exceed 1 GiB: ask for a shorter window");
  }
  auto by_first = [](uint64_t v, const GroupRecord& g) { return v < g.first_sample; };
  // The last group starting at or before s0 (among groups at one position, the last,
  // which holds the samples), and the last group starting before s1.
  auto first = std::upper_bound(groups.begin(), groups.end(), s.s0, by_first);
  auto last = std::upper_bound(groups.begin(), groups.end(), s.s1 - 1, by_first);
  if (first == groups.begin() || last == groups.begin()) return s;
  s.first = static_cast<uint32_t>((first - groups.begin()) - 1);
  s.last = static_cast<uint32_t>((last - groups.begin()) - 1);
  // The group holding the pre-roll start of the first group's first packet: any packet of
  // the first group needs no earlier start (starts only move forward with the packet).
  const uint32_t start_packet = groups[s.first].preroll_start;
  auto by_packet = [](uint32_t v, const GroupRecord& g) { return v < g.first_packet; };
  s.start = static_cast<uint32_t>(
      (std::upper_bound(groups.begin(), groups.end(), start_packet, by_packet) - groups.begin()) - 1);
  s.empty = false;
  return s;
}

}  // namespace lancet_audio
