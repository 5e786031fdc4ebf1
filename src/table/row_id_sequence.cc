#include "table/row_id_sequence.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "lance_proto/rowids.pb.h"

namespace lancet::table {
namespace {

template <typename T>
T LoadLe(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
Status DecodeOffsets(uint64_t base, const std::string& bytes, const std::string& context,
                     std::vector<uint64_t>* out) {
  if (bytes.size() % sizeof(T) != 0) {
    return Status::Corruption(context + ": row id array of " + std::to_string(bytes.size()) +
                              " bytes is not a multiple of " + std::to_string(sizeof(T)));
  }
  size_t n = bytes.size() / sizeof(T);
  out->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t off = LoadLe<T>(bytes.data() + i * sizeof(T));
    if (off > std::numeric_limits<uint64_t>::max() - base) {
      return Status::Corruption(context + ": row id base " + std::to_string(base) + " + offset " +
                                std::to_string(off) + " overflows");
    }
    out->push_back(base + off);
  }
  return Status::OK();
}

Status DecodeArray(const lance::table::EncodedU64Array& array, const std::string& context,
                   std::vector<uint64_t>* out) {
  switch (array.array_case()) {
    case lance::table::EncodedU64Array::kU16Array:
      return DecodeOffsets<uint16_t>(array.u16_array().base(), array.u16_array().offsets(), context, out);
    case lance::table::EncodedU64Array::kU32Array:
      return DecodeOffsets<uint32_t>(array.u32_array().base(), array.u32_array().offsets(), context, out);
    case lance::table::EncodedU64Array::kU64Array:
      return DecodeOffsets<uint64_t>(0, array.u64_array().values(), context, out);
    case lance::table::EncodedU64Array::ARRAY_NOT_SET:
      break;
  }
  return Status::Corruption(context + ": encoded row id array has no array kind set");
}

Status CheckRange(uint64_t start, uint64_t end, const std::string& context) {
  if (end < start) {
    return Status::Corruption(context + ": row id range [" + std::to_string(start) + ", " + std::to_string(end) +
                              ") ends before it starts");
  }
  return Status::OK();
}

}  // namespace

Result<RowIdSequence> RowIdSequence::Parse(std::span<const uint8_t> bytes, const std::string& context) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corruption(context + ": row id sequence is too large");
  }
  lance::table::RowIdSequence pb;
  if (!pb.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption(context + ": row id sequence is not a valid lance.table.RowIdSequence protobuf");
  }
  RowIdSequence seq;
  seq.segments_.reserve(pb.segments_size());
  for (int seg_idx = 0; seg_idx < pb.segments_size(); ++seg_idx) {
    const lance::table::U64Segment& s = pb.segments(seg_idx);
    std::string where = context + ": row id segment " + std::to_string(seg_idx);
    Segment seg;
    switch (s.segment_case()) {
      case lance::table::U64Segment::kRange:
        seg.kind = Kind::kRange;
        seg.start = s.range().start();
        seg.end = s.range().end();
        RETURN_IF_ERROR(CheckRange(seg.start, seg.end, where));
        seg.length = seg.end - seg.start;
        break;
      case lance::table::U64Segment::kRangeWithHoles: {
        seg.kind = Kind::kRangeWithHoles;
        seg.start = s.range_with_holes().start();
        seg.end = s.range_with_holes().end();
        RETURN_IF_ERROR(CheckRange(seg.start, seg.end, where));
        if (!s.range_with_holes().has_holes()) return Status::Corruption(where + ": range with holes has no holes");
        RETURN_IF_ERROR(DecodeArray(s.range_with_holes().holes(), where, &seg.values));
        for (size_t i = 0; i < seg.values.size(); ++i) {
          uint64_t h = seg.values[i];
          if (h < seg.start || h >= seg.end || (i > 0 && h <= seg.values[i - 1])) {
            return Status::Corruption(where + ": hole " + std::to_string(h) +
                                      " is outside its range or out of order");
          }
        }
        seg.length = (seg.end - seg.start) - seg.values.size();
        break;
      }
      case lance::table::U64Segment::kRangeWithBitmap: {
        seg.kind = Kind::kRangeWithBitmap;
        seg.start = s.range_with_bitmap().start();
        seg.end = s.range_with_bitmap().end();
        RETURN_IF_ERROR(CheckRange(seg.start, seg.end, where));
        const std::string& bits = s.range_with_bitmap().bitmap();
        uint64_t len = seg.end - seg.start;
        if (len / 8 + (len % 8 != 0) > bits.size()) {
          return Status::Corruption(where + ": bitmap of " + std::to_string(bits.size()) + " bytes cannot cover " +
                                    std::to_string(len) + " ids");
        }
        uint64_t words = (len + 63) / 64;
        seg.bitmap.assign(words, 0);
        // Bit i of the range is byte i/8, bit i%8 (rowids/bitmap.rs `get`), so loading
        // bytes little-endian into 64-bit words keeps bit i at word i/64, bit i%64.
        for (uint64_t b = 0; b < len / 8 + (len % 8 != 0); ++b) {
          seg.bitmap[b / 8] |= static_cast<uint64_t>(static_cast<uint8_t>(bits[b])) << (8 * (b % 8));
        }
        if (len % 64 != 0) seg.bitmap.back() &= (uint64_t{1} << (len % 64)) - 1;
        seg.word_ranks.resize(words);
        uint64_t rank = 0;
        for (uint64_t w = 0; w < words; ++w) {
          seg.word_ranks[w] = rank;
          rank += std::popcount(seg.bitmap[w]);
        }
        seg.length = rank;
        break;
      }
      case lance::table::U64Segment::kSortedArray:
        seg.kind = Kind::kSortedArray;
        RETURN_IF_ERROR(DecodeArray(s.sorted_array(), where, &seg.values));
        if (!std::is_sorted(seg.values.begin(), seg.values.end())) {
          return Status::Corruption(where + ": sorted row id array is not sorted");
        }
        seg.length = seg.values.size();
        break;
      case lance::table::U64Segment::kArray:
        seg.kind = Kind::kArray;
        RETURN_IF_ERROR(DecodeArray(s.array(), where, &seg.values));
        seg.length = seg.values.size();
        break;
      case lance::table::U64Segment::SEGMENT_NOT_SET:
        return Status::Corruption(where + ": segment has no kind set");
    }
    if (seg.length > std::numeric_limits<uint64_t>::max() - seq.total_) {
      return Status::Corruption(context + ": row id sequence length overflows");
    }
    seq.starts_.push_back(seq.total_);
    seq.total_ += seg.length;
    seq.segments_.push_back(std::move(seg));
  }
  return seq;
}

uint64_t RowIdSequence::GetInSegment(const Segment& seg, uint64_t i) const {
  switch (seg.kind) {
    case Kind::kRange:
      return seg.start + i;
    case Kind::kRangeWithHoles: {
      // Holes h_j are strictly increasing, so the number of non-holes before hole j,
      // h_j - start - j, never decreases: binary search for the holes that precede id i.
      size_t lo = 0, hi = seg.values.size();
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seg.values[mid] - seg.start - mid <= i) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return seg.start + i + lo;
    }
    case Kind::kRangeWithBitmap: {
      auto it = std::upper_bound(seg.word_ranks.begin(), seg.word_ranks.end(), i);
      size_t w = static_cast<size_t>(it - seg.word_ranks.begin()) - 1;
      uint64_t word = seg.bitmap[w];
      for (uint64_t skip = i - seg.word_ranks[w]; skip > 0; --skip) word &= word - 1;
      return seg.start + w * 64 + static_cast<uint64_t>(std::countr_zero(word));
    }
    case Kind::kSortedArray:
    case Kind::kArray:
      return seg.values[i];
  }
  return 0;
}

uint64_t RowIdSequence::Get(uint64_t index) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), index);
  size_t s = static_cast<size_t>(it - starts_.begin()) - 1;
  // Empty segments share a start with their successor; upper_bound picks the last.
  return GetInSegment(segments_[s], index - starts_[s]);
}

void RowIdSequence::AppendRange(uint64_t begin, uint64_t end, std::vector<uint64_t>* out) const {
  if (begin >= end) return;
  out->reserve(out->size() + (end - begin));
  auto it = std::upper_bound(starts_.begin(), starts_.end(), begin);
  size_t s = static_cast<size_t>(it - starts_.begin()) - 1;
  uint64_t pos = begin;
  while (pos < end) {
    const Segment& seg = segments_[s];
    uint64_t local_end = std::min(end - starts_[s], seg.length);
    for (uint64_t i = pos - starts_[s]; i < local_end; ++i) out->push_back(GetInSegment(seg, i));
    pos = starts_[s] + local_end;
    ++s;
  }
}

void RowIdSequence::Find(uint64_t row_id, std::vector<uint64_t>* positions) const {
  for (size_t s = 0; s < segments_.size(); ++s) {
    const Segment& seg = segments_[s];
    uint64_t base = starts_[s];
    switch (seg.kind) {
      case Kind::kRange:
        if (row_id >= seg.start && row_id < seg.end) positions->push_back(base + (row_id - seg.start));
        break;
      case Kind::kRangeWithHoles:
        if (row_id >= seg.start && row_id < seg.end) {
          auto it = std::lower_bound(seg.values.begin(), seg.values.end(), row_id);
          if (it == seg.values.end() || *it != row_id) {
            positions->push_back(base + (row_id - seg.start) - static_cast<uint64_t>(it - seg.values.begin()));
          }
        }
        break;
      case Kind::kRangeWithBitmap:
        if (row_id >= seg.start && row_id < seg.end) {
          uint64_t bit = row_id - seg.start;
          uint64_t word = seg.bitmap[bit / 64];
          if ((word >> (bit % 64)) & 1) {
            uint64_t below = word & ((uint64_t{1} << (bit % 64)) - 1);
            positions->push_back(base + seg.word_ranks[bit / 64] + static_cast<uint64_t>(std::popcount(below)));
          }
        }
        break;
      case Kind::kSortedArray: {
        auto range = std::equal_range(seg.values.begin(), seg.values.end(), row_id);
        for (auto it = range.first; it != range.second; ++it) {
          positions->push_back(base + static_cast<uint64_t>(it - seg.values.begin()));
        }
        break;
      }
      case Kind::kArray:
        for (size_t i = 0; i < seg.values.size(); ++i) {
          if (seg.values[i] == row_id) positions->push_back(base + i);
        }
        break;
    }
  }
}

}  // namespace lancet::table
