// FastLanes bit-packing (docs/format §8) and the InlineBitpacking / OutOfLineBitpacking
// decoders built on it.
//
// A block is 1024 values seen as LANES = 1024/T lanes of T rows. Row r of lane l is input
// value kOrder[r/8]*16 + (r%8)*128 + l, and its `width` low bits sit at bit r*width of the
// lane's bit stream, whose word k is stored at packed[LANES*k + l].
#include "encoding/bitpacking.h"

#include <algorithm>
#include <bit>

#include "encoding/decoders_internal.h"

namespace lancet::encoding {

namespace {

constexpr uint32_t kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
constexpr uint32_t kBits = sizeof(T) * 8;

template <typename T>
constexpr uint32_t kLanes = kFastLanesBlock / kBits<T>;

template <typename T>
constexpr T LowMask(uint32_t width) {
  return width >= kBits<T> ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
}

constexpr uint32_t InputIndex(uint32_t row, uint32_t lane) { return kOrder[row / 8] * 16 + (row % 8) * 128 + lane; }

}  // namespace

template <typename T>
void FastLanesPack(std::span<const T> in, uint32_t width, std::span<T> out) {
  std::fill(out.begin(), out.end(), T{0});
  if (width == 0) return;
  const T mask = LowMask<T>(width);
  for (uint32_t lane = 0; lane < kLanes<T>; ++lane) {
    for (uint32_t row = 0; row < kBits<T>; ++row) {
      T v = static_cast<T>(in[InputIndex(row, lane)] & mask);
      uint32_t bit = row * width;
      uint32_t word = bit / kBits<T>;
      uint32_t shift = bit % kBits<T>;
      out[kLanes<T> * word + lane] |= static_cast<T>(v << shift);
      if (shift + width > kBits<T>) {
        out[kLanes<T> * (word + 1) + lane] |= static_cast<T>(v >> (kBits<T> - shift));
      }
    }
  }
}

template <typename T>
void FastLanesUnpack(std::span<const T> in, uint32_t width, std::span<T> out) {
  if (width == 0) {
    std::fill(out.begin(), out.end(), T{0});
    return;
  }
  const T mask = LowMask<T>(width);
  // Row by row: a row's lanes are consecutive both in the packed words and in the
  // output, with one shift for all of them, so the inner loops vectorise.
  const T* src = in.data();
  T* dst = out.data();
  for (uint32_t row = 0; row < kBits<T>; ++row) {
    const uint32_t bit = row * width;
    const uint32_t word = bit / kBits<T>;
    const uint32_t shift = bit % kBits<T>;
    const T* lo = src + kLanes<T> * word;
    T* o = dst + InputIndex(row, 0);
    if (shift + width > kBits<T>) {
      const T* hi = lo + kLanes<T>;
      const uint32_t back = kBits<T> - shift;
      for (uint32_t lane = 0; lane < kLanes<T>; ++lane) {
        o[lane] = static_cast<T>((static_cast<T>(lo[lane] >> shift) | static_cast<T>(hi[lane] << back)) & mask);
      }
    } else {
      for (uint32_t lane = 0; lane < kLanes<T>; ++lane)
        o[lane] = static_cast<T>(static_cast<T>(lo[lane] >> shift) & mask);
    }
  }
}

template <typename T>
T FastLanesGet(const uint8_t* packed, uint32_t width, uint32_t index) {
  if (width == 0) return T{0};
  // Invert InputIndex: the low 7 bits name the lane and the row group (kOrder is its own
  // inverse), the high bits the row within the group.
  const uint32_t r = index % 128;
  const uint32_t lane = r % kLanes<T>;
  const uint32_t row = kOrder[(r - lane) / 16] * 8 + index / 128;
  const uint32_t bit = row * width;
  const uint32_t word = bit / kBits<T>;
  const uint32_t shift = bit % kBits<T>;
  T lo;
  std::memcpy(&lo, packed + (uint64_t{kLanes<T>} * word + lane) * sizeof(T), sizeof(T));
  T v = static_cast<T>(lo >> shift);
  if (shift + width > kBits<T>) {
    T hi;
    std::memcpy(&hi, packed + (uint64_t{kLanes<T>} * (word + 1) + lane) * sizeof(T), sizeof(T));
    v = static_cast<T>(v | static_cast<T>(hi << (kBits<T> - shift)));
  }
  return static_cast<T>(v & LowMask<T>(width));
}

template <typename T>
uint32_t RequiredBitWidth(std::span<const T> values) {
  T all = 0;
  for (T v : values) all |= v;
  return static_cast<uint32_t>(std::bit_width(all));
}

template <typename T>
std::vector<std::vector<uint8_t>> InlineBitpackChunks(std::span<const T> values, int width) {
  std::vector<std::vector<uint8_t>> chunks;
  for (uint64_t start = 0; start < values.size(); start += kFastLanesBlock) {
    std::vector<T> block(kFastLanesBlock, T{0});
    uint64_t n = std::min<uint64_t>(kFastLanesBlock, values.size() - start);
    std::copy_n(values.begin() + start, n, block.begin());
    uint32_t w = width < 0 ? RequiredBitWidth<T>(block) : static_cast<uint32_t>(width);
    std::vector<T> words(1 + FastLanesWords<T>(w));
    words[0] = static_cast<T>(w);
    FastLanesPack<T>(block, w, std::span<T>(words).subspan(1));
    std::vector<uint8_t> bytes(words.size() * sizeof(T));
    std::memcpy(bytes.data(), words.data(), bytes.size());
    chunks.push_back(std::move(bytes));
  }
  return chunks;
}

template <typename T>
std::vector<uint8_t> OutOfLineBitpack(std::span<const T> values, uint32_t width) {
  std::vector<T> words;
  uint64_t full = values.size() / kFastLanesBlock;
  uint64_t tail = values.size() % kFastLanesBlock;
  uint64_t per_block = FastLanesWords<T>(width);
  for (uint64_t b = 0; b < full; ++b) {
    size_t at = words.size();
    words.resize(at + per_block);
    FastLanesPack<T>(values.subspan(b * kFastLanesBlock, kFastLanesBlock), width,
                     std::span<T>(words).subspan(at, per_block));
  }
  if (tail > 0) {
    uint64_t padding_cost = uint64_t{width} * (kFastLanesBlock - tail);
    uint64_t savings = uint64_t{kBits<T> > width ? kBits<T> - width : 0} * tail;
    if (padding_cost < savings) {
      std::vector<T> block(kFastLanesBlock, T{0});
      std::copy_n(values.begin() + full * kFastLanesBlock, tail, block.begin());
      size_t at = words.size();
      words.resize(at + per_block);
      FastLanesPack<T>(block, width, std::span<T>(words).subspan(at, per_block));
    } else {
      words.insert(words.end(), values.begin() + full * kFastLanesBlock, values.end());
    }
  }
  std::vector<uint8_t> bytes(words.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

#define LANCET_INSTANTIATE_BITPACKING(T)                                                      \
  template void FastLanesPack<T>(std::span<const T>, uint32_t, std::span<T>);                 \
  template void FastLanesUnpack<T>(std::span<const T>, uint32_t, std::span<T>);               \
  template T FastLanesGet<T>(const uint8_t*, uint32_t, uint32_t);                             \
  template uint32_t RequiredBitWidth<T>(std::span<const T>);                                  \
  template std::vector<std::vector<uint8_t>> InlineBitpackChunks<T>(std::span<const T>, int); \
  template std::vector<uint8_t> OutOfLineBitpack<T>(std::span<const T>, uint32_t);
LANCET_INSTANTIATE_BITPACKING(uint8_t)
LANCET_INSTANTIATE_BITPACKING(uint16_t)
LANCET_INSTANTIATE_BITPACKING(uint32_t)
LANCET_INSTANTIATE_BITPACKING(uint64_t)
#undef LANCET_INSTANTIATE_BITPACKING

namespace internal {

namespace {

/// Checks the inline chunk at the start of `chunk` (a T header holding the width, then
/// the packed words): its width and byte length.
template <typename T>
Result<std::pair<uint32_t, uint64_t>> InlineChunkHeader(std::span<const uint8_t> chunk) {
  if (chunk.size() < sizeof(T))
    return Corrupt("InlineBitpacking: chunk of ", chunk.size(), " bytes has no width header");
  uint64_t width = LoadLE<T>(chunk.data());
  if (width > kBits<T>) return Corrupt("InlineBitpacking: bit width ", width, " exceeds the ", kBits<T>, "-bit type");
  uint64_t needed = sizeof(T) * (1 + FastLanesWords<T>(static_cast<uint32_t>(width)));
  if (chunk.size() < needed) {
    return Corrupt("InlineBitpacking: width ", width, " needs ", needed, " bytes but the chunk has ", chunk.size());
  }
  return std::pair<uint32_t, uint64_t>{static_cast<uint32_t>(width), needed};
}

/// Unpacks the 1024-value block packed at `width` in `words` (any alignment) into
/// out[0..n). The words are copied to an aligned scratch first; a whole block then
/// unpacks straight into `out`.
template <typename T>
void UnpackBlock(const uint8_t* words, uint32_t width, uint64_t n, T* out) {
  alignas(64) T packed[kFastLanesBlock];
  const uint64_t count = FastLanesWords<T>(width);
  if (count > 0) std::memcpy(packed, words, count * sizeof(T));
  if (n == kFastLanesBlock) {
    FastLanesUnpack<T>({packed, count}, width, {out, kFastLanesBlock});
    return;
  }
  alignas(64) T block[kFastLanesBlock];
  FastLanesUnpack<T>({packed, count}, width, block);
  std::copy_n(block, n, out);
}

/// Checks that `wanted` ascends strictly below `n`.
Status CheckWanted(std::span<const uint32_t> wanted, uint64_t n, const char* what) {
  for (size_t k = 0; k < wanted.size(); ++k) {
    if (wanted[k] >= n || (k > 0 && wanted[k] <= wanted[k - 1])) {
      return Corrupt(what, ": wanted value indexes must ascend below ", n);
    }
  }
  return Status::OK();
}

template <typename T>
Result<DataBlock> DecodeInline(const BufferPtr& bytes, uint64_t num_values, bool single_chunk,
                               std::span<const uint32_t> wanted) {
  if (single_chunk && num_values > kFastLanesBlock) {
    return Corrupt("InlineBitpacking: a chunk holds at most 1024 values, asked for ", num_values);
  }
  // Every 1024 values cost at least one header word, which bounds the allocation.
  uint64_t blocks = num_values / kFastLanesBlock + (num_values % kFastLanesBlock != 0 ? 1 : 0);
  if (blocks > bytes->size() / sizeof(T)) {
    return Corrupt("InlineBitpacking: ", num_values, " values need ", blocks, " chunks but only ", bytes->size(),
                   " bytes are present");
  }
  RETURN_IF_ERROR(CheckWanted(wanted, num_values, "InlineBitpacking"));
  const uint64_t out_values = wanted.empty() ? num_values : wanted.size();
  ASSIGN_OR_RETURN(uint64_t out_size, CheckedMul(out_values, sizeof(T), "bitpacked values"));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(out_size));
  T* dst = reinterpret_cast<T*>(out->mutable_data());
  uint64_t pos = 0;
  size_t k = 0;
  for (uint64_t done = 0; done < num_values; done += kFastLanesBlock) {
    if (!wanted.empty() && k == wanted.size()) break;
    uint64_t n = std::min<uint64_t>(kFastLanesBlock, num_values - done);
    ASSIGN_OR_RETURN(auto header, InlineChunkHeader<T>(bytes->span().subspan(pos)));
    const uint8_t* words = bytes->data() + pos + sizeof(T);
    if (wanted.empty()) {
      UnpackBlock<T>(words, header.first, n, dst + done);
    } else {
      for (; k < wanted.size() && wanted[k] < done + n; ++k) {
        dst[k] = FastLanesGet<T>(words, header.first, static_cast<uint32_t>(wanted[k] - done));
      }
    }
    pos += header.second;
  }
  return DataBlock::Fixed(kBits<T>, out_values, std::move(out));
}

Result<DataBlock> DecodeInlineAny(const pb::InlineBitpacking& bp, const BufferPtr& in, uint64_t num_values,
                                  bool single_chunk, std::span<const uint32_t> wanted) {
  ASSIGN_OR_RETURN(BufferPtr bytes, MaybeDecompress(bp.has_values(), bp.values(), OrEmpty(in)));
  switch (bp.uncompressed_bits_per_value()) {
    case 8:
      return DecodeInline<uint8_t>(bytes, num_values, single_chunk, wanted);
    case 16:
      return DecodeInline<uint16_t>(bytes, num_values, single_chunk, wanted);
    case 32:
      return DecodeInline<uint32_t>(bytes, num_values, single_chunk, wanted);
    case 64:
      return DecodeInline<uint64_t>(bytes, num_values, single_chunk, wanted);
    default:
      return Corrupt("InlineBitpacking: uncompressed width must be 8, 16, 32 or 64, got ",
                     bp.uncompressed_bits_per_value());
  }
}

/// Where the values of an OutOfLineBitpacking block sit: full packed blocks, then a tail
/// either packed as one more block or stored raw.
struct OutOfLineShape {
  uint32_t width = 0;
  uint64_t per_block = 0, full = 0, tail = 0, full_words = 0;
  bool tail_raw = false;
};

template <typename T>
Result<OutOfLineShape> CheckOutOfLine(const Buffer& bytes, uint64_t num_values, uint64_t width) {
  if (width > kBits<T>)
    return Corrupt("OutOfLineBitpacking: bit width ", width, " exceeds the ", kBits<T>, "-bit type");
  OutOfLineShape sh;
  sh.width = static_cast<uint32_t>(width);
  if (bytes.size() % sizeof(T) != 0) {
    return Corrupt("OutOfLineBitpacking: ", bytes.size(), " bytes is not a whole number of ", sizeof(T), "-byte words");
  }
  uint64_t have = bytes.size() / sizeof(T);
  sh.per_block = FastLanesWords<T>(sh.width);
  sh.full = num_values / kFastLanesBlock;
  sh.tail = num_values % kFastLanesBlock;
  if (sh.per_block > 0) {
    if (sh.full > have / sh.per_block) {
      return Corrupt("OutOfLineBitpacking: ", num_values, " values at width ", sh.width, " need more than the ", have,
                     " words present");
    }
    sh.full_words = sh.full * sh.per_block;
  }
  // The writer stores a short tail raw when padding it to a block would cost more; the
  // two cases are told apart by the length alone.
  sh.tail_raw = sh.tail > 0 && have == sh.full_words + sh.tail;
  uint64_t expected = sh.full_words + (sh.tail == 0 ? 0 : (sh.tail_raw ? sh.tail : sh.per_block));
  if (have != expected) {
    return Corrupt("OutOfLineBitpacking: ", num_values, " values at width ", sh.width, " need ", expected,
                   " words, found ", have);
  }
  return sh;
}

template <typename T>
void UnpackOutOfLine(const uint8_t* src, const OutOfLineShape& sh, uint64_t num_values, T* dst) {
  for (uint64_t b = 0; b < sh.full + (sh.tail > 0 && !sh.tail_raw ? 1 : 0); ++b) {
    uint64_t n = std::min<uint64_t>(kFastLanesBlock, num_values - b * kFastLanesBlock);
    UnpackBlock<T>(src + b * sh.per_block * sizeof(T), sh.width, n, dst + b * kFastLanesBlock);
  }
  if (sh.tail_raw) std::memcpy(dst + sh.full * kFastLanesBlock, src + sh.full_words * sizeof(T), sh.tail * sizeof(T));
}

template <typename T>
Result<DataBlock> DecodeOutOfLine(const BufferPtr& bytes, uint64_t num_values, uint64_t width,
                                  std::span<const uint32_t> wanted) {
  ASSIGN_OR_RETURN(OutOfLineShape sh, CheckOutOfLine<T>(*bytes, num_values, width));
  RETURN_IF_ERROR(CheckWanted(wanted, num_values, "OutOfLineBitpacking"));
  const uint8_t* src = bytes->data();
  if (!wanted.empty()) {
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(wanted.size() * sizeof(T)));
    T* dst = reinterpret_cast<T*>(out->mutable_data());
    for (size_t k = 0; k < wanted.size(); ++k) {
      const uint64_t b = wanted[k] / kFastLanesBlock;
      if (sh.tail_raw && b == sh.full) {
        dst[k] = LoadLE<T>(src + (sh.full_words + wanted[k] - sh.full * kFastLanesBlock) * sizeof(T));
      } else {
        dst[k] = FastLanesGet<T>(src + b * sh.per_block * sizeof(T), sh.width,
                                 static_cast<uint32_t>(wanted[k] % kFastLanesBlock));
      }
    }
    return DataBlock::Fixed(kBits<T>, wanted.size(), std::move(out));
  }
  ASSIGN_OR_RETURN(uint64_t out_size, CheckedMul(num_values, sizeof(T), "bitpacked values"));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(out_size));
  UnpackOutOfLine<T>(src, sh, num_values, reinterpret_cast<T*>(out->mutable_data()));
  return DataBlock::Fixed(kBits<T>, num_values, std::move(out));
}

}  // namespace

Result<DataBlock> DecodeInlineBitpackingChunk(const pb::InlineBitpacking& bp, const BufferPtr& chunk,
                                              uint64_t num_values, std::span<const uint32_t> wanted) {
  return DecodeInlineAny(bp, chunk, num_values, /*single_chunk=*/true, wanted);
}

Result<DataBlock> DecodeInlineBitpackingBlock(const pb::InlineBitpacking& bp, const BufferPtr& bytes,
                                              uint64_t num_values, std::span<const uint32_t> wanted) {
  return DecodeInlineAny(bp, bytes, num_values, /*single_chunk=*/false, wanted);
}

Status DecodeOutOfLineLevels(const pb::OutOfLineBitpacking& bp, const BufferPtr& in, uint64_t num_values,
                             uint16_t* out) {
  if (!bp.has_values()) return Corrupt("OutOfLineBitpacking: missing values encoding");
  if (bp.uncompressed_bits_per_value() != 16) return Corrupt("OutOfLineBitpacking: levels must be 16-bit");
  ASSIGN_OR_RETURN(uint64_t width, FlatBits(bp.values(), "OutOfLineBitpacking values"));
  BufferPtr bytes = OrEmpty(in);
  ASSIGN_OR_RETURN(OutOfLineShape sh, CheckOutOfLine<uint16_t>(*bytes, num_values, width));
  UnpackOutOfLine<uint16_t>(bytes->data(), sh, num_values, out);
  return Status::OK();
}

Result<DataBlock> DecodeOutOfLineBitpacking(const pb::OutOfLineBitpacking& bp, const BufferPtr& in, uint64_t num_values,
                                            std::span<const uint32_t> wanted) {
  if (!bp.has_values()) return Corrupt("OutOfLineBitpacking: missing values encoding");
  ASSIGN_OR_RETURN(uint64_t width, FlatBits(bp.values(), "OutOfLineBitpacking values"));
  BufferPtr bytes = OrEmpty(in);
  switch (bp.uncompressed_bits_per_value()) {
    case 8:
      return DecodeOutOfLine<uint8_t>(bytes, num_values, width, wanted);
    case 16:
      return DecodeOutOfLine<uint16_t>(bytes, num_values, width, wanted);
    case 32:
      return DecodeOutOfLine<uint32_t>(bytes, num_values, width, wanted);
    case 64:
      return DecodeOutOfLine<uint64_t>(bytes, num_values, width, wanted);
    default:
      return Corrupt("OutOfLineBitpacking: uncompressed width must be 8, 16, 32 or 64, got ",
                     bp.uncompressed_bits_per_value());
  }
}

}  // namespace internal

}  // namespace lancet::encoding
