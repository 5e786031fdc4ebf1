// Mini-block value encoders of the writer (docs/format §7.3, §8): each turns a range
// of a page's values into one chunk's value buffers, plus the byte helpers the page
// encoder shares with them. Format layer, private.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "format/page_encoder.h"
#include "lance_proto/encodings_v2_1.pb.h"

namespace lancet::format::internal {

// Mini-block chunk targets (docs/format §7.3): the reference keeps flat chunks under
// ~8 KiB and variable chunks under 4 KiB, with at most 4096 values per chunk.
inline constexpr uint64_t kFlatChunkBytes = 8192;
inline constexpr uint64_t kVariableChunkBytes = 4096;
inline constexpr uint64_t kMaxChunkValues = 4096;

template <typename T>
void Put(std::vector<uint8_t>* out, T v) {
  const size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &v, sizeof(T));
}

inline void PadTo(std::vector<uint8_t>* out, size_t start, size_t align, uint8_t fill) {
  while ((out->size() - start) % align != 0) out->push_back(fill);
}

/// Copies n bits starting at bit `from` of an LSB-first bitmap into a fresh bitmap.
std::vector<uint8_t> CopyBits(const uint8_t* src, uint64_t from, uint64_t n);
::lance::encodings21::CompressiveEncoding FlatEncoding(uint64_t bits);
::lance::encodings21::CompressiveEncoding VariableEncoding(uint64_t offset_bits);
/// True when the column asks for zstd or lz4.
bool ExplicitCompression(const ColumnEncodingOptions& o);
::lance::encodings21::CompressionScheme SchemeOf(const ColumnEncodingOptions& o);
::lance::encodings21::CompressiveEncoding WrapGeneral(::lance::encodings21::CompressiveEncoding inner,
                                                      ::lance::encodings21::CompressionScheme scheme,
                                                      const ColumnEncodingOptions& o);

/// \brief Encodes value ranges of one page as mini-block chunk buffers. Views the
/// values it was made from, which must outlive it.
class MiniBlockValues {
 public:
  virtual ~MiniBlockValues() = default;
  /// Encoded bytes of values [a, b) (an upper bound where exact sizes cost too much).
  virtual uint64_t Bytes(uint64_t a, uint64_t b) const = 0;
  /// Appends the chunk buffers of values [a, b) to `buffers`.
  virtual Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const = 0;
  virtual uint64_t TargetChunkBytes() const { return kFlatChunkBytes; }
  /// Non-zero when the encoding dictates the values per chunk (bitpacking: 1024).
  virtual uint64_t FixedChunkValues() const { return 0; }
  virtual uint64_t MaxChunkValues() const { return kMaxChunkValues; }
  ::lance::encodings21::CompressiveEncoding encoding;
  uint64_t num_buffers = 1;
};

/// Fixed-width values as the encoders see them (a page's values or dictionary indices).
struct FixedView {
  const uint8_t* data = nullptr;
  uint64_t n = 0;
  uint32_t bits = 0;
};

/// RLE, else bitpacking, else flat, as the reference's `build_fixed_width_compressor`
/// orders them (only flat when the column asks for explicit or no compression).
std::unique_ptr<MiniBlockValues> ChooseFixed(FixedView v, const ColumnEncodingOptions& o);
/// FSST when it pays off (or the column asks for it), else plain Variable.
std::unique_ptr<MiniBlockValues> ChooseVariable(const PageValues& v, const ColumnEncodingOptions& o);
std::unique_ptr<MiniBlockValues> MakeFixedSizeListValues(const PageValues& v);
/// Wraps `inner` in the column's explicit zstd/lz4 compression.
std::unique_ptr<MiniBlockValues> WrapGeneralValues(std::unique_ptr<MiniBlockValues> inner,
                                                   const ColumnEncodingOptions& o);

}  // namespace lancet::format::internal
