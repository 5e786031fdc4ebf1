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
      for (uint32_t lane = 0; lane < kLanes<T>; ++lane) o[lane] = static_cast<T>(static_cast<T>(lo[lane] >> shift) & mask);
    }
  }
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

/// Unpacks one inline chunk (header word + packed words) into out[0..n).
/// Returns the chunk's byte length so block-form callers can step to the next chunk.
template <typename T>
Result<uint64_t> UnpackInlineChunk(std::span<const uint8_t> chunk, uint64_t n, T* out) {
  if (chunk.size() < sizeof(T)) return Corrupt("InlineBitpacking: chunk of ", chunk.size(), " bytes has no width header");
  uint64_t width = LoadLE<T>(chunk.data());
  if (width > kBits<T>) return Corrupt("InlineBitpacking: bit width ", width, " exceeds the ", kBits<T>, "-bit type");
  uint64_t words = FastLanesWords<T>(static_cast<uint32_t>(width));
  uint64_t needed = sizeof(T) * (1 + words);
  if (chunk.size() < needed) {
    return Corrupt("InlineBitpacking: width ", width, " needs ", needed, " bytes but the chunk has ", chunk.size());
  }
  std::vector<T> packed(words);
  if (words > 0) std::memcpy(packed.data(), chunk.data() + sizeof(T), words * sizeof(T));
  std::vector<T> block(kFastLanesBlock);
  FastLanesUnpack<T>(packed, static_cast<uint32_t>(width), block);
  std::copy_n(block.begin(), n, out);
  return needed;
}

template <typename T>
Result<DataBlock> DecodeInline(const BufferPtr& bytes, uint64_t num_values, bool single_chunk) {
  if (single_chunk && num_values > kFastLanesBlock) {
    return Corrupt("InlineBitpacking: a chunk holds at most 1024 values, asked for ", num_values);
  }
  // Every 1024 values cost at least one header word, which bounds the allocation.
  uint64_t blocks = num_values / kFastLanesBlock + (num_values % kFastLanesBlock != 0 ? 1 : 0);
  if (blocks > bytes->size() / sizeof(T)) {
    return Corrupt("InlineBitpacking: ", num_values, " values need ", blocks, " chunks but only ", bytes->size(),
                   " bytes are present");
  }
  ASSIGN_OR_RETURN(uint64_t out_size, CheckedMul(num_values, sizeof(T), "bitpacked values"));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(out_size));
  T* dst = reinterpret_cast<T*>(out->mutable_data());
  uint64_t pos = 0;
  for (uint64_t done = 0; done < num_values; done += kFastLanesBlock) {
    uint64_t n = std::min<uint64_t>(kFastLanesBlock, num_values - done);
    ASSIGN_OR_RETURN(uint64_t used, UnpackInlineChunk<T>(bytes->span().subspan(pos), n, dst + done));
    pos += used;
  }
  return DataBlock::Fixed(kBits<T>, num_values, std::move(out));
}

Result<DataBlock> DecodeInlineAny(const pb::InlineBitpacking& bp, const BufferPtr& in, uint64_t num_values,
                                  bool single_chunk) {
  ASSIGN_OR_RETURN(BufferPtr bytes, MaybeDecompress(bp.has_values(), bp.values(), OrEmpty(in)));
  switch (bp.uncompressed_bits_per_value()) {
    case 8: return DecodeInline<uint8_t>(bytes, num_values, single_chunk);
    case 16: return DecodeInline<uint16_t>(bytes, num_values, single_chunk);
    case 32: return DecodeInline<uint32_t>(bytes, num_values, single_chunk);
    case 64: return DecodeInline<uint64_t>(bytes, num_values, single_chunk);
    default:
      return Corrupt("InlineBitpacking: uncompressed width must be 8, 16, 32 or 64, got ",
                     bp.uncompressed_bits_per_value());
  }
}

template <typename T>
Result<DataBlock> DecodeOutOfLine(const BufferPtr& bytes, uint64_t num_values, uint64_t width) {
  if (width > kBits<T>) return Corrupt("OutOfLineBitpacking: bit width ", width, " exceeds the ", kBits<T>, "-bit type");
  uint32_t w = static_cast<uint32_t>(width);
  if (bytes->size() % sizeof(T) != 0) {
    return Corrupt("OutOfLineBitpacking: ", bytes->size(), " bytes is not a whole number of ", sizeof(T), "-byte words");
  }
  uint64_t have = bytes->size() / sizeof(T);
  uint64_t per_block = FastLanesWords<T>(w);
  uint64_t full = num_values / kFastLanesBlock;
  uint64_t tail = num_values % kFastLanesBlock;
  uint64_t full_words;
  if (per_block == 0) {
    full_words = 0;
  } else {
    if (full > have / per_block) {
      return Corrupt("OutOfLineBitpacking: ", num_values, " values at width ", w, " need more than the ", have,
                     " words present");
    }
    full_words = full * per_block;
  }
  // The writer stores a short tail raw when padding it to a block would cost more; the
  // two cases are told apart by the length alone.
  bool tail_raw = tail > 0 && have == full_words + tail;
  uint64_t expected = full_words + (tail == 0 ? 0 : (tail_raw ? tail : per_block));
  if (have != expected) {
    return Corrupt("OutOfLineBitpacking: ", num_values, " values at width ", w, " need ", expected, " words, found ",
                   have);
  }
  ASSIGN_OR_RETURN(uint64_t out_size, CheckedMul(num_values, sizeof(T), "bitpacked values"));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(out_size));
  T* dst = reinterpret_cast<T*>(out->mutable_data());
  std::vector<T> packed(per_block);
  std::vector<T> block(kFastLanesBlock);
  const uint8_t* src = bytes->data();
  for (uint64_t b = 0; b < full + (tail > 0 && !tail_raw ? 1 : 0); ++b) {
    if (per_block > 0) std::memcpy(packed.data(), src + b * per_block * sizeof(T), per_block * sizeof(T));
    FastLanesUnpack<T>(packed, w, block);
    uint64_t n = std::min<uint64_t>(kFastLanesBlock, num_values - b * kFastLanesBlock);
    std::copy_n(block.begin(), n, dst + b * kFastLanesBlock);
  }
  if (tail_raw) std::memcpy(dst + full * kFastLanesBlock, src + full_words * sizeof(T), tail * sizeof(T));
  return DataBlock::Fixed(kBits<T>, num_values, std::move(out));
}

}  // namespace

Result<DataBlock> DecodeInlineBitpackingChunk(const pb::InlineBitpacking& bp, const BufferPtr& chunk,
                                              uint64_t num_values) {
  return DecodeInlineAny(bp, chunk, num_values, /*single_chunk=*/true);
}

Result<DataBlock> DecodeInlineBitpackingBlock(const pb::InlineBitpacking& bp, const BufferPtr& bytes,
                                              uint64_t num_values) {
  return DecodeInlineAny(bp, bytes, num_values, /*single_chunk=*/false);
}

Result<DataBlock> DecodeOutOfLineBitpacking(const pb::OutOfLineBitpacking& bp, const BufferPtr& in,
                                            uint64_t num_values) {
  if (!bp.has_values()) return Corrupt("OutOfLineBitpacking: missing values encoding");
  ASSIGN_OR_RETURN(uint64_t width, FlatBits(bp.values(), "OutOfLineBitpacking values"));
  BufferPtr bytes = OrEmpty(in);
  switch (bp.uncompressed_bits_per_value()) {
    case 8: return DecodeOutOfLine<uint8_t>(bytes, num_values, width);
    case 16: return DecodeOutOfLine<uint16_t>(bytes, num_values, width);
    case 32: return DecodeOutOfLine<uint32_t>(bytes, num_values, width);
    case 64: return DecodeOutOfLine<uint64_t>(bytes, num_values, width);
    default:
      return Corrupt("OutOfLineBitpacking: uncompressed width must be 8, 16, 32 or 64, got ",
                     bp.uncompressed_bits_per_value());
  }
}

}  // namespace internal

}  // namespace lancet::encoding
