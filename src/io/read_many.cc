#include <algorithm>
#include <numeric>

#include "lancet/io/object_store.h"
#include "util/thread_pool.h"

namespace lancet::io {

CoalescePlan PlanCoalesce(std::span<const ByteRange> ranges, const ReadOptions& options) {
  CoalescePlan plan;
  plan.owner.resize(ranges.size());
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].offset != ranges[b].offset ? ranges[a].offset < ranges[b].offset
                                                : ranges[a].length > ranges[b].length;
  });
  for (size_t idx : order) {
    const ByteRange& r = ranges[idx];
    if (!plan.merged.empty()) {
      ByteRange& last = plan.merged.back();
      uint64_t gap_ok_until = last.end() + options.coalesce_gap;
      uint64_t new_end = std::max(last.end(), r.end());
      bool fits = options.max_request_size == 0 || new_end - last.offset <= options.max_request_size ||
                  r.end() <= last.end();
      if (r.offset <= gap_ok_until && fits) {
        last.length = new_end - last.offset;
        plan.owner[idx] = plan.merged.size() - 1;
        continue;
      }
    }
    plan.merged.push_back(r);
    plan.owner[idx] = plan.merged.size() - 1;
  }
  return plan;
}

Result<std::vector<BufferPtr>> RandomAccessFile::ReadMany(std::span<const ByteRange> ranges,
                                                          const ReadOptions& requested) const {
  const ReadOptions options = TuneReadOptions(requested);
  std::vector<BufferPtr> out(ranges.size());
  if (ranges.empty()) return out;
  for (const auto& r : ranges) {
    if (r.offset + r.length < r.offset) return Status::OutOfRange(path() + ": byte range overflows");
  }
  if (IoStats* s = stats()) s->RecordLogical(ranges.size());
  CoalescePlan plan = PlanCoalesce(ranges, options);
  std::vector<Result<BufferPtr>> fetched(plan.merged.size(), Status::Internal("not read"));
  const size_t parallelism = cheap_reads() ? 1 : static_cast<size_t>(std::max(1, options.parallelism));
  ParallelFor(ThreadPool::Io(), plan.merged.size(), parallelism,
              [&](size_t i) { fetched[i] = ReadAt(plan.merged[i].offset, plan.merged[i].length); });
  for (auto& f : fetched) RETURN_IF_ERROR(f.status());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ByteRange& m = plan.merged[plan.owner[i]];
    const BufferPtr& whole = *fetched[plan.owner[i]];
    if (ranges[i] == m) {
      out[i] = whole;
    } else {
      out[i] = Buffer::Slice(whole, ranges[i].offset - m.offset, ranges[i].length);
    }
  }
  return out;
}

}  // namespace lancet::io
