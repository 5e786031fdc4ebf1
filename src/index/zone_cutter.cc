#include "index/zone_cutter.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace lancet::index {

Result<size_t> ZoneCutter::Extend(std::span<const uint64_t> rows) {
  if (rows.empty()) return size_t{0};
  const uint64_t fragment = rows[0] >> 32;
  if (rows_ > 0 && (rows_ == rows_per_zone_ || (first_ >> 32) != fragment)) return size_t{0};
  size_t take = 0;
  const uint64_t room = rows_per_zone_ - rows_;
  while (take < rows.size() && take < room && (rows[take] >> 32) == fragment) {
    if (previous_ && rows[take] <= *previous_) {
      return Status::InvalidArgument("zone index rows must have ascending row addresses, got " +
                                     std::to_string(rows[take]) + " after " + std::to_string(*previous_));
    }
    previous_ = rows[take];
    ++take;
  }
  if (rows_ == 0) first_ = rows[0];
  last_ = rows[take - 1];
  rows_ += take;
  return take;
}

std::optional<ZoneBound> ZoneCutter::Close() {
  if (rows_ == 0) return std::nullopt;
  rows_ = 0;
  return ZoneBound{first_ >> 32, first_ & 0xffffffffULL, last_ - first_ + 1};
}

Roaring64Map ZoneRows(std::vector<ZoneBound> zones) {
  std::sort(zones.begin(), zones.end(), [](const ZoneBound& a, const ZoneBound& b) {
    return std::pair(a.fragment_id, a.start) < std::pair(b.fragment_id, b.start);
  });
  Roaring64Map rows;
  // This CRoaring has no 64-bit addRange; flipping disjoint ranges of an empty map adds
  // them, so overlapping zones are merged first (within a fragment: a flip across
  // fragments would miss each fragment's last offset).
  auto add = [&rows](uint64_t begin, uint64_t end) {
    if ((end & 0xffffffffULL) == 0) {  // a span up to the fragment's last offset
      rows.add(end - 1);
      --end;
    }
    if (begin < end) rows.flip(begin, end);
  };
  std::optional<std::pair<uint64_t, uint64_t>> run;
  for (const ZoneBound& z : zones) {
    const uint64_t begin = (z.fragment_id << 32) + z.start, end = begin + z.length;
    if (run && begin <= run->second && (begin >> 32) == (run->first >> 32)) {
      run->second = std::max(run->second, end);
      continue;
    }
    if (run) add(run->first, run->second);
    run = std::pair(begin, end);
  }
  if (run) add(run->first, run->second);
  return rows;
}

Result<uint64_t> ParseZoneRows(const std::map<std::string, std::string>& params, const std::string& key,
                               uint64_t fallback) {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  uint64_t v = 0;
  const char* end = it->second.data() + it->second.size();
  auto [p, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc() || p != end || v == 0 || v > 0xffffffffULL) {
    return Status::InvalidArgument(key + " must be an integer in [1, 2^32 - 1], got '" + it->second + "'");
  }
  return v;
}

Status CheckZoneInput(const Array& values, std::span<const uint64_t> rows, const DataType& type,
                      const std::string& what) {
  if (values.type != type) {
    return Status::InvalidArgument(what + " over " + type.ToString() + " given " + values.type.ToString());
  }
  if (values.length != static_cast<int64_t>(rows.size())) {
    return Status::InvalidArgument(what + ": " + std::to_string(values.length) + " values for " +
                                   std::to_string(rows.size()) + " rows");
  }
  return Status::OK();
}

}  // namespace lancet::index
