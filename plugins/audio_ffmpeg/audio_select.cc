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

Selection Select(const StreamInfo& si, const std::vector<PacketRecord>& packets, const Request& r) {
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
  if (s.s0 >= s.s1 || s.out0 >= s.out1 || packets.empty()) return s;
  const uint64_t bytes = (s.out1 - s.out0) * s.out_channels * (r.format == LANCET_AUDIO_FMT_S16 ? 2 : 4);
  if (s.out1 - s.out0 > kMaxOutputBytes || bytes > kMaxOutputBytes) {
    Fail(LANCET_MEDIA_EINVAL, "the window's " + std::to_string(s.out1 - s.out0) + " samples x " +
                                  std::to_string(s.out_channels) + " channels exceed 1 GiB: ask for a shorter window");
  }
  auto by_first = [](uint64_t v, const PacketRecord& p) { return v < p.first_sample; };
  // The last packet starting at or before s0 (among packets at one position, the last,
  // which holds the samples), and the last packet starting before s1.
  auto first = std::upper_bound(packets.begin(), packets.end(), s.s0, by_first);
  auto last = std::upper_bound(packets.begin(), packets.end(), s.s1 - 1, by_first);
  if (first == packets.begin() || last == packets.begin()) return s;
  s.first = static_cast<uint32_t>((first - packets.begin()) - 1);
  s.last = static_cast<uint32_t>((last - packets.begin()) - 1);
  s.start = s.first - packets[s.first].preroll;
  s.empty = false;
  return s;
}

}  // namespace lancet_audio
