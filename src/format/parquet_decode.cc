#include "format/parquet_decode.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace lancet::format::parquet {
namespace {

Status DecodeFail(const std::string& what) { return Status::Corruption("parquet page: " + what); }

Result<uint64_t> ReadUleb(std::span<const uint8_t> data, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return DecodeFail("truncated varint");
    uint8_t b = data[(*pos)++];
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return v;
  }
  return DecodeFail("varint too long");
}

// `width` bits (<= 64) starting at bit `bit` of data[begin, end), least significant first.
// REQUIRES: the bits lie inside the range.
uint64_t ReadBitsLsb(const uint8_t* data, size_t end, uint64_t bit, int width) {
  if (width == 0) return 0;
  size_t byte = bit >> 3;
  int shift = static_cast<int>(bit & 7);
  if (width <= 56 && byte + 8 <= end) {
    uint64_t word;
    std::memcpy(&word, data + byte, 8);
    return (word >> shift) & ((uint64_t{1} << width) - 1);
  }
  uint64_t v = 0;
  int got = 0;
  while (got < width) {
    uint64_t b = byte < end ? data[byte] : 0;
    int take = std::min(8 - shift, width - got);
    v |= ((b >> shift) & ((1u << take) - 1)) << got;
    got += take;
    shift = 0;
    ++byte;
  }
  return v;
}

// Bytes needed for `count` values of `width` bits.
uint64_t PackedByteCount(uint64_t count, int width) { return (count * width + 7) / 8; }

Status CheckGrowth(const ValueBuffer& out, uint64_t more, uint64_t max_bytes) {
  if (more > max_bytes || out.data.size() > max_bytes - more) {
    return DecodeFail("decoded values exceed the reader's memory limit");
  }
  return Status::OK();
}

Status DecodePlain(PhysicalType type, std::span<const uint8_t> data, uint64_t n, uint64_t max_bytes, ValueBuffer* out) {
  if (type == PhysicalType::kBoolean) {
    if (PackedByteCount(n, 1) > data.size()) return DecodeFail("PLAIN booleans past the end");
    RETURN_IF_ERROR(CheckGrowth(*out, n, max_bytes));
    for (uint64_t i = 0; i < n; ++i) out->data.push_back((data[i >> 3] >> (i & 7)) & 1);
    return Status::OK();
  }
  if (out->width > 0) {
    uint64_t w = static_cast<uint64_t>(out->width);
    if (n > data.size() / w) return DecodeFail("PLAIN values past the end");
    out->data.insert(out->data.end(), data.begin(), data.begin() + n * w);
    return Status::OK();
  }
  size_t pos = 0;
  RETURN_IF_ERROR(CheckGrowth(*out, data.size(), max_bytes));
  if (n > data.size() / 4) return DecodeFail("PLAIN byte arrays past the end");
  out->offsets.reserve(out->offsets.size() + n);
  for (uint64_t i = 0; i < n; ++i) {
    if (data.size() - pos < 4) return DecodeFail("PLAIN byte array length past the end");
    uint32_t len;
    std::memcpy(&len, data.data() + pos, 4);
    pos += 4;
    if (len > data.size() - pos)
      return DecodeFail("PLAIN byte array of " + std::to_string(len) + " bytes past the end");
    out->data.insert(out->data.end(), data.begin() + pos, data.begin() + pos + len);
    out->offsets.push_back(out->data.size());
    pos += len;
  }
  return Status::OK();
}

Status DecodeDictionaryIndices(std::span<const uint8_t> data, uint64_t n, const ValueBuffer* dictionary,
                               uint64_t max_bytes, ValueBuffer* out) {
  if (!dictionary) return DecodeFail("dictionary-encoded page without a dictionary page");
  if (n == 0) return Status::OK();
  if (data.empty()) return DecodeFail("dictionary indices missing their bit width");
  RleBitPackedDecoder indices(data.subspan(1), data[0]);
  const uint64_t dict_size = dictionary->size();
  constexpr uint64_t kChunk = 1024;
  uint32_t idx[kChunk];
  for (uint64_t done = 0; done < n;) {
    uint64_t take = std::min(kChunk, n - done);
    RETURN_IF_ERROR(indices.Get(idx, take));
    for (uint64_t k = 0; k < take; ++k) {
      if (idx[k] >= dict_size) return DecodeFail("dictionary index " + std::to_string(idx[k]) + " out of range");
      uint64_t len =
          dictionary->width > 0 ? dictionary->width : dictionary->offsets[idx[k] + 1] - dictionary->offsets[idx[k]];
      RETURN_IF_ERROR(CheckGrowth(*out, len, max_bytes));
      out->AppendFrom(*dictionary, idx[k]);
    }
    done += take;
  }
  return Status::OK();
}

Status DecodeDeltaIntegers(std::span<const uint8_t> data, uint64_t n, ValueBuffer* out) {
  std::vector<int64_t> values;
  RETURN_IF_ERROR(DecodeDeltaBinaryPacked(data, n, &values).status());
  if (values.size() != n) return DecodeFail("DELTA_BINARY_PACKED holds fewer values than the page");
  for (int64_t v : values) {
    if (out->width == 4) {
      auto v32 = static_cast<int32_t>(static_cast<uint32_t>(v));
      out->data.insert(out->data.end(), reinterpret_cast<uint8_t*>(&v32), reinterpret_cast<uint8_t*>(&v32) + 4);
    } else {
      out->data.insert(out->data.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 8);
    }
  }
  return Status::OK();
}

// Lengths (DELTA_BINARY_PACKED) then the concatenated bytes. Returns the bytes consumed.
Result<size_t> DecodeDeltaLength(std::span<const uint8_t> data, uint64_t n, std::vector<int64_t>* lengths,
                                 size_t* bytes_begin) {
  ASSIGN_OR_RETURN(size_t pos, DecodeDeltaBinaryPacked(data, n, lengths));
  if (lengths->size() != n) return DecodeFail("DELTA_LENGTH_BYTE_ARRAY holds fewer lengths than values");
  *bytes_begin = pos;
  for (int64_t len : *lengths) {
    if (len < 0 || static_cast<uint64_t>(len) > data.size() - pos) {
      return DecodeFail("DELTA_LENGTH_BYTE_ARRAY value past the end");
    }
    pos += static_cast<size_t>(len);
  }
  return pos;
}

Status AppendBytes(ValueBuffer* out, const uint8_t* p, size_t len) {
  if (out->width > 0 && len != static_cast<size_t>(out->width)) {
    return DecodeFail("fixed-length value of " + std::to_string(len) + " bytes");
  }
  out->data.insert(out->data.end(), p, p + len);
  if (out->width == 0) out->offsets.push_back(out->data.size());
  return Status::OK();
}

Status DecodeDeltaLengthByteArray(std::span<const uint8_t> data, uint64_t n, ValueBuffer* out) {
  std::vector<int64_t> lengths;
  size_t pos = 0;
  RETURN_IF_ERROR(DecodeDeltaLength(data, n, &lengths, &pos).status());
  for (int64_t len : lengths) {
    RETURN_IF_ERROR(AppendBytes(out, data.data() + pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
  }
  return Status::OK();
}

Status DecodeDeltaByteArray(std::span<const uint8_t> data, uint64_t n, uint64_t max_bytes, ValueBuffer* out) {
  std::vector<int64_t> prefixes, suffixes;
  ASSIGN_OR_RETURN(size_t pos, DecodeDeltaBinaryPacked(data, n, &prefixes));
  if (prefixes.size() != n) return DecodeFail("DELTA_BYTE_ARRAY holds fewer prefixes than values");
  size_t suffix_pos = 0;
  RETURN_IF_ERROR(DecodeDeltaLength(data.subspan(pos), n, &suffixes, &suffix_pos).status());
  const uint8_t* suffix = data.data() + pos + suffix_pos;
  std::vector<uint8_t> previous, value;
  for (uint64_t i = 0; i < n; ++i) {
    if (prefixes[i] < 0 || static_cast<uint64_t>(prefixes[i]) > previous.size()) {
      return DecodeFail("DELTA_BYTE_ARRAY prefix longer than the previous value");
    }
    auto len = static_cast<size_t>(suffixes[i]);
    value.assign(previous.begin(), previous.begin() + prefixes[i]);
    value.insert(value.end(), suffix, suffix + len);
    suffix += len;
    RETURN_IF_ERROR(CheckGrowth(*out, value.size(), max_bytes));
    RETURN_IF_ERROR(AppendBytes(out, value.data(), value.size()));
    previous.swap(value);
  }
  return Status::OK();
}

Status DecodeByteStreamSplit(std::span<const uint8_t> data, uint64_t n, ValueBuffer* out) {
  if (out->width <= 0) return DecodeFail("BYTE_STREAM_SPLIT on variable-length values");
  const auto k = static_cast<uint64_t>(out->width);
  const uint64_t stride = data.size() / k;
  if (n > stride) return DecodeFail("BYTE_STREAM_SPLIT streams shorter than the page's values");
  size_t base = out->data.size();
  out->data.resize(base + n * k);
  for (uint64_t i = 0; i < n; ++i) {
    for (uint64_t b = 0; b < k; ++b) out->data[base + i * k + b] = data[b * stride + i];
  }
  return Status::OK();
}

Status DecodeRleBooleans(std::span<const uint8_t> data, uint64_t n, uint64_t max_bytes, ValueBuffer* out) {
  if (data.size() < 4) return DecodeFail("RLE booleans missing their length");
  uint32_t len;
  std::memcpy(&len, data.data(), 4);
  if (len > data.size() - 4) return DecodeFail("RLE booleans past the end");
  RETURN_IF_ERROR(CheckGrowth(*out, n, max_bytes));
  RleBitPackedDecoder bits(data.subspan(4, len), 1);
  uint32_t v[256];
  for (uint64_t done = 0; done < n;) {
    uint64_t take = std::min<uint64_t>(256, n - done);
    RETURN_IF_ERROR(bits.Get(v, take));
    for (uint64_t i = 0; i < take; ++i) out->data.push_back(static_cast<uint8_t>(v[i]));
    done += take;
  }
  return Status::OK();
}

}  // namespace

void ValueBuffer::AppendFrom(const ValueBuffer& other, uint64_t i) {
  if (width > 0) {
    data.insert(data.end(), other.data.begin() + i * width, other.data.begin() + (i + 1) * width);
  } else {
    data.insert(data.end(), other.data.begin() + other.offsets[i], other.data.begin() + other.offsets[i + 1]);
    offsets.push_back(data.size());
  }
}

int32_t PhysicalWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kBoolean:
      return 1;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return type_length;
    default:
      return 0;
  }
}

int LevelBitWidth(int max_level) {
  int w = 0;
  while ((1 << w) <= max_level) ++w;
  return w;
}

Status RleBitPackedDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) return DecodeFail("bit width " + std::to_string(bit_width_));
  ASSIGN_OR_RETURN(uint64_t header, ReadUleb(data_, &pos_));
  if (header & 1) {
    const uint64_t groups = header >> 1;
    if (groups > data_.size()) return DecodeFail("bit-packed run past the end");
    const uint64_t want = groups * 8;
    const uint64_t avail = std::min<uint64_t>(groups * bit_width_, data_.size() - pos_);
    rle_ = false;
    packed_begin_ = pos_;
    packed_end_ = pos_ + avail;
    packed_index_ = 0;
    run_left_ = bit_width_ == 0 ? want : std::min<uint64_t>(want, avail * 8 / bit_width_);
    pos_ += avail;
    if (run_left_ == 0 && want > 0) return DecodeFail("bit-packed run past the end");
    return Status::OK();
  }
  const size_t value_bytes = (bit_width_ + 7) / 8;
  if (data_.size() - pos_ < value_bytes) return DecodeFail("RLE run value past the end");
  uint32_t v = 0;
  for (size_t i = 0; i < value_bytes; ++i) v |= uint32_t{data_[pos_ + i]} << (8 * i);
  pos_ += value_bytes;
  rle_ = true;
  value_ = v;
  run_left_ = header >> 1;
  return Status::OK();
}

Status RleBitPackedDecoder::Get(uint32_t* out, uint64_t n) {
  while (n > 0) {
    if (run_left_ == 0) {
      if (pos_ >= data_.size()) return DecodeFail("RLE/bit-packed data ends before its values");
      RETURN_IF_ERROR(NextRun());
      continue;
    }
    uint64_t take = std::min(n, run_left_);
    if (rle_) {
      std::fill(out, out + take, value_);
    } else {
      const uint8_t* base = data_.data() + packed_begin_;
      size_t end = packed_end_ - packed_begin_;
      for (uint64_t k = 0; k < take; ++k) {
        out[k] = static_cast<uint32_t>(ReadBitsLsb(base, end, (packed_index_ + k) * bit_width_, bit_width_));
      }
      packed_index_ += take;
    }
    out += take;
    n -= take;
    run_left_ -= take;
  }
  return Status::OK();
}

Status DecodeBitPackedLevels(std::span<const uint8_t> data, int bit_width, uint64_t n, uint32_t* out) {
  if (bit_width > 16) return DecodeFail("BIT_PACKED level width " + std::to_string(bit_width));
  if (PackedByteCount(n, bit_width) > data.size()) return DecodeFail("BIT_PACKED levels past the end");
  uint64_t bit = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
    out[i] = v;
  }
  return Status::OK();
}

Result<size_t> DecodeDeltaBinaryPacked(std::span<const uint8_t> data, uint64_t max_values, std::vector<int64_t>* out) {
  size_t pos = 0;
  ASSIGN_OR_RETURN(uint64_t block_size, ReadUleb(data, &pos));
  ASSIGN_OR_RETURN(uint64_t miniblocks, ReadUleb(data, &pos));
  ASSIGN_OR_RETURN(uint64_t total, ReadUleb(data, &pos));
  ASSIGN_OR_RETURN(uint64_t first_zz, ReadUleb(data, &pos));
  // The spec asks for multiples of 128 and 32; other writers' multiples of 8 read the same.
  if (block_size == 0 || miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 ||
      block_size > (uint64_t{1} << 20)) {
    return DecodeFail("DELTA_BINARY_PACKED block of " + std::to_string(block_size) + " values in " +
                      std::to_string(miniblocks) + " miniblocks");
  }
  if (total > max_values) return DecodeFail("DELTA_BINARY_PACKED holds more values than the page");
  const uint64_t per_mini = block_size / miniblocks;
  out->reserve(out->size() + total);
  uint64_t last = (first_zz >> 1) ^ (~(first_zz & 1) + 1);
  if (total > 0) out->push_back(static_cast<int64_t>(last));
  uint64_t remaining = total > 0 ? total - 1 : 0;
  while (remaining > 0) {
    ASSIGN_OR_RETURN(uint64_t min_zz, ReadUleb(data, &pos));
    const uint64_t min_delta = (min_zz >> 1) ^ (~(min_zz & 1) + 1);
    if (data.size() - pos < miniblocks) return DecodeFail("DELTA_BINARY_PACKED bit widths past the end");
    const uint8_t* widths = data.data() + pos;
    pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && remaining > 0; ++m) {
      const int w = widths[m];
      if (w > 64) return DecodeFail("DELTA_BINARY_PACKED bit width " + std::to_string(w));
      const uint64_t take = std::min(per_mini, remaining);
      const uint64_t full = PackedByteCount(per_mini, w);
      if (PackedByteCount(take, w) > data.size() - pos) return DecodeFail("DELTA_BINARY_PACKED miniblock past the end");
      const size_t end = std::min<uint64_t>(full, data.size() - pos);
      for (uint64_t k = 0; k < take; ++k) {
        last += min_delta + ReadBitsLsb(data.data() + pos, end, k * w, w);
        out->push_back(static_cast<int64_t>(last));
      }
      pos += end;
      remaining -= take;
    }
  }
  return pos;
}

Status DecodeValues(Encoding encoding, PhysicalType type, std::span<const uint8_t> data, uint64_t n,
                    const ValueBuffer* dictionary, uint64_t max_bytes, ValueBuffer* out) {
  if (out->width > 0) RETURN_IF_ERROR(CheckGrowth(*out, n * static_cast<uint64_t>(out->width), max_bytes));
  switch (encoding) {
    case Encoding::kPlain:
      return DecodePlain(type, data, n, max_bytes, out);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      return DecodeDictionaryIndices(data, n, dictionary, max_bytes, out);
    case Encoding::kRle:
      if (type != PhysicalType::kBoolean) break;
      return DecodeRleBooleans(data, n, max_bytes, out);
    case Encoding::kDeltaBinaryPacked:
      if (type != PhysicalType::kInt32 && type != PhysicalType::kInt64) break;
      return DecodeDeltaIntegers(data, n, out);
    case Encoding::kDeltaLengthByteArray:
      if (type != PhysicalType::kByteArray) break;
      return DecodeDeltaLengthByteArray(data, n, out);
    case Encoding::kDeltaByteArray:
      if (type != PhysicalType::kByteArray && type != PhysicalType::kFixedLenByteArray) break;
      return DecodeDeltaByteArray(data, n, max_bytes, out);
    case Encoding::kByteStreamSplit:
      return DecodeByteStreamSplit(data, n, out);
    default:
      break;
  }
  return Status::NotSupported("parquet encoding " + std::to_string(static_cast<int>(encoding)) + " for physical type " +
                              std::to_string(static_cast<int>(type)));
}

}  // namespace lancet::format::parquet
