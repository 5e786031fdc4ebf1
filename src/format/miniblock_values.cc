#include "format/miniblock_values.h"

#include <bit>
#include <span>

#include "encoding/bitpacking.h"
#include "encoding/fsst_encoder.h"
#include "encoding/general_encoder.h"
#include "encoding/rle_encoder.h"

namespace lancet::format::internal {

namespace pb = ::lance::encodings21;

namespace {

constexpr uint8_t kVariablePad = 0x48;

class FlatValues : public MiniBlockValues {
 public:
  explicit FlatValues(FixedView v) : v_(v) { encoding = FlatEncoding(v.bits); }
  uint64_t Bytes(uint64_t a, uint64_t b) const override { return ((b - a) * v_.bits + 7) / 8; }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    if (v_.bits % 8 != 0) {
      buffers->push_back(CopyBits(v_.data, a * v_.bits, (b - a) * v_.bits));
    } else {
      const uint64_t w = v_.bits / 8;
      buffers->emplace_back(v_.data + a * w, v_.data + b * w);
    }
    return Status::OK();
  }

 private:
  FixedView v_;
};

class BitpackedValues : public MiniBlockValues {
 public:
  BitpackedValues(std::vector<std::vector<uint8_t>> chunks, uint32_t bits) : chunks_(std::move(chunks)) {
    encoding.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(bits);
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override {
    uint64_t total = 0;
    for (uint64_t c = a / encoding::kFastLanesBlock; c * encoding::kFastLanesBlock < b; ++c) total += chunks_[c].size();
    return total;
  }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    if (a % encoding::kFastLanesBlock != 0 || b - a > encoding::kFastLanesBlock) {
      return Status::Internal("bitpacked chunk not aligned to 1024 values");
    }
    buffers->push_back(chunks_[a / encoding::kFastLanesBlock]);
    return Status::OK();
  }
  uint64_t FixedChunkValues() const override { return encoding::kFastLanesBlock; }

  /// Packs `v` if that is smaller than storing it flat; nullptr otherwise.
  static std::unique_ptr<BitpackedValues> MaybeMake(FixedView v) {
    if (v.n == 0 || (v.bits != 8 && v.bits != 16 && v.bits != 32 && v.bits != 64)) return nullptr;
    std::vector<std::vector<uint8_t>> chunks;
    switch (v.bits) {
      case 8:
        chunks = Pack<uint8_t>(v);
        break;
      case 16:
        chunks = Pack<uint16_t>(v);
        break;
      case 32:
        chunks = Pack<uint32_t>(v);
        break;
      default:
        chunks = Pack<uint64_t>(v);
        break;
    }
    uint64_t packed = 0;
    for (const auto& c : chunks) packed += c.size();
    if (packed >= v.n * v.bits / 8) return nullptr;
    return std::make_unique<BitpackedValues>(std::move(chunks), v.bits);
  }

 private:
  template <typename T>
  static std::vector<std::vector<uint8_t>> Pack(FixedView v) {
    std::vector<T> values(v.n);
    std::memcpy(values.data(), v.data, values.size() * sizeof(T));
    return encoding::InlineBitpackChunks<T>(std::span<const T>(values));
  }
  std::vector<std::vector<uint8_t>> chunks_;
};

// Run-length encoded values: two buffers a chunk (run values, u8 run lengths).
class RleValues : public MiniBlockValues {
 public:
  explicit RleValues(FixedView v) : v_(v) {
    auto* rle = encoding.mutable_rle();
    *rle->mutable_values() = FlatEncoding(v.bits);
    *rle->mutable_run_lengths() = FlatEncoding(8);
    num_buffers = 2;
    // changes_[i]: value changes before index i, to bound a range's runs quickly.
    const uint64_t w = v.bits / 8;
    changes_.resize(v.n + 1, 0);
    for (uint64_t i = 1; i < v.n; ++i) {
      changes_[i + 1] = changes_[i] + (std::memcmp(v.data + i * w, v.data + (i - 1) * w, w) != 0);
    }
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override {
    if (a == b) return 0;
    const uint64_t runs = changes_[b] - changes_[a + 1] + 1 + (b - a) / encoding::kMaxRleRun;
    return runs * (v_.bits / 8 + 1);
  }
  // The reference caps RLE chunks at 2048 values.
  uint64_t MaxChunkValues() const override { return 2048; }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    std::vector<uint8_t> values, lengths;
    switch (v_.bits) {
      case 8:
        Encode<uint8_t>(a, b, &values, &lengths);
        break;
      case 16:
        Encode<uint16_t>(a, b, &values, &lengths);
        break;
      case 32:
        Encode<uint32_t>(a, b, &values, &lengths);
        break;
      default:
        Encode<uint64_t>(a, b, &values, &lengths);
        break;
    }
    buffers->push_back(std::move(values));
    buffers->push_back(std::move(lengths));
    return Status::OK();
  }

  /// RLE when the values have fewer runs than half their count (reference
  /// `try_rle_for_mini_block`); nullptr otherwise.
  static std::unique_ptr<RleValues> MaybeMake(FixedView v) {
    if (v.n == 0) return nullptr;
    uint64_t runs = 0;
    switch (v.bits) {
      case 8:
        runs = Runs<uint8_t>(v);
        break;
      case 16:
        runs = Runs<uint16_t>(v);
        break;
      case 32:
        runs = Runs<uint32_t>(v);
        break;
      case 64:
        runs = Runs<uint64_t>(v);
        break;
      default:
        return nullptr;
    }
    if (static_cast<double>(runs) >= static_cast<double>(v.n) * kRleRunRatio) return nullptr;
    return std::make_unique<RleValues>(v);
  }

 private:
  static constexpr double kRleRunRatio = 0.5;
  template <typename T>
  static uint64_t Runs(FixedView v) {
    return encoding::CountRuns<T>(std::span<const T>(reinterpret_cast<const T*>(v.data), v.n));
  }
  template <typename T>
  void Encode(uint64_t a, uint64_t b, std::vector<uint8_t>* values, std::vector<uint8_t>* lengths) const {
    encoding::RleEncode<T>(std::span<const T>(reinterpret_cast<const T*>(v_.data) + a, b - a), values, lengths);
  }
  FixedView v_;
  std::vector<uint64_t> changes_;
};

class VariableValues : public MiniBlockValues {
 public:
  VariableValues(std::span<const uint8_t> data, std::span<const uint64_t> offsets, uint32_t offset_bits)
      : data_(data), offsets_(offsets) {
    const uint64_t n = offsets.size() - 1;
    const uint64_t total = offsets.back() - offsets.front();
    wide_ = offset_bits == 64 || total + 8 * (n + 1) > UINT32_MAX;
    encoding = VariableEncoding(wide_ ? 64 : 32);
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override {
    return offsets_[b] - offsets_[a] + (b - a + 1) * (wide_ ? 8 : 4);
  }
  uint64_t TargetChunkBytes() const override { return kVariableChunkBytes; }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    std::vector<uint8_t> out;
    const uint64_t n = b - a;
    const uint64_t width = wide_ ? 8 : 4;
    // Offsets are relative to the chunk buffer, so the first one points past the offsets.
    const uint64_t base = (n + 1) * width;
    const auto& off = offsets_;
    out.reserve(base + off[b] - off[a] + width);
    for (uint64_t i = a; i <= b; ++i) {
      const uint64_t o = base + off[i] - off[a];
      if (wide_) {
        Put<uint64_t>(&out, o);
      } else {
        Put<uint32_t>(&out, static_cast<uint32_t>(o));
      }
    }
    out.insert(out.end(), data_.begin() + static_cast<ptrdiff_t>(off[a]),
               data_.begin() + static_cast<ptrdiff_t>(off[b]));
    PadTo(&out, 0, width, kVariablePad);
    buffers->push_back(std::move(out));
    return Status::OK();
  }

 private:
  std::span<const uint8_t> data_;
  std::span<const uint64_t> offsets_;
  bool wide_ = false;
};

// FSST-compressed strings, chunked like plain ones; the page's symbol table travels
// in the encoding.
class FsstValues : public MiniBlockValues {
 public:
  FsstValues(const encoding::FsstEncoder& fsst, const PageValues& v) {
    fsst.Compress(v.data(), v.offsets(), &data_, &offsets_);
    inner_ = std::make_unique<VariableValues>(data_, offsets_, v.offset_bits());
    const std::vector<uint8_t> table = fsst.SerializeTable();
    auto* f = encoding.mutable_fsst();
    f->set_symbol_table(table.data(), table.size());
    *f->mutable_values() = inner_->encoding;
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override { return inner_->Bytes(a, b); }
  uint64_t TargetChunkBytes() const override { return inner_->TargetChunkBytes(); }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    return inner_->Write(a, b, buffers);
  }

  /// FSST when the reference would use it (values of 5+ bytes, 32 KiB+ of data) and
  /// the trained table shrinks a sample by at least 10%: FSST costs time, and plain
  /// strings are within the size target otherwise.
  /// `force` (lance-encoding:compression=fsst) skips both tests, as the reference does.
  static std::unique_ptr<FsstValues> MaybeMake(const PageValues& v, bool force) {
    const uint64_t bytes = v.offsets().back() - v.offsets().front();
    if (!force && (v.max_value_bytes() < kFsstMinMaxLength || bytes < kFsstMinBytes)) return nullptr;
    const encoding::FsstEncoder fsst = encoding::FsstEncoder::Train(v.data(), v.offsets());
    if (!force && fsst.sample_ratio() > kFsstMaxRatio) return nullptr;
    return std::make_unique<FsstValues>(fsst, v);
  }

 private:
  static constexpr uint64_t kFsstMinMaxLength = 5;
  static constexpr uint64_t kFsstMinBytes = 32 * 1024;
  static constexpr double kFsstMaxRatio = 0.9;
  std::vector<uint8_t> data_;
  std::vector<uint64_t> offsets_;
  std::unique_ptr<VariableValues> inner_;
};

class FslValues : public MiniBlockValues {
 public:
  explicit FslValues(const PageValues& v) : v_(v), validity_(v.any_item_null()) {
    auto* fsl = encoding.mutable_fixed_size_list();
    fsl->set_items_per_value(v.dimension());
    *fsl->mutable_values() = FlatEncoding(v.bits());
    fsl->set_has_validity(validity_);
    num_buffers = validity_ ? 2 : 1;
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override {
    const uint64_t items = (b - a) * v_.dimension();
    return (items * v_.bits() + 7) / 8 + (validity_ ? (items + 7) / 8 : 0);
  }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    const uint64_t dim = v_.dimension();
    if (validity_) buffers->push_back(CopyBits(v_.item_validity().data(), a * dim, (b - a) * dim));
    if (v_.bits() % 8 != 0) {
      buffers->push_back(CopyBits(v_.data().data(), a * dim * v_.bits(), (b - a) * dim * v_.bits()));
    } else {
      const uint64_t w = dim * v_.bits() / 8;
      buffers->emplace_back(v_.data().begin() + static_cast<ptrdiff_t>(a * w),
                            v_.data().begin() + static_cast<ptrdiff_t>(b * w));
    }
    return Status::OK();
  }

 private:
  const PageValues& v_;
  bool validity_;
};

// Compresses the first buffer of every chunk (how the reference wraps mini-block
// chunks in General).
class GeneralValues : public MiniBlockValues {
 public:
  GeneralValues(std::unique_ptr<MiniBlockValues> inner, pb::CompressionScheme scheme, int32_t level,
                const ColumnEncodingOptions& o)
      : inner_(std::move(inner)), scheme_(scheme), level_(level) {
    encoding = WrapGeneral(inner_->encoding, scheme, o);
    num_buffers = inner_->num_buffers;
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override { return inner_->Bytes(a, b); }
  uint64_t TargetChunkBytes() const override { return inner_->TargetChunkBytes(); }
  uint64_t FixedChunkValues() const override { return inner_->FixedChunkValues(); }
  uint64_t MaxChunkValues() const override { return inner_->MaxChunkValues(); }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    const size_t first = buffers->size();
    RETURN_IF_ERROR(inner_->Write(a, b, buffers));
    ASSIGN_OR_RETURN((*buffers)[first], encoding::CompressGeneral(scheme_, level_, (*buffers)[first]));
    return Status::OK();
  }

 private:
  std::unique_ptr<MiniBlockValues> inner_;
  pb::CompressionScheme scheme_;
  int32_t level_;
};

}  // namespace

std::vector<uint8_t> CopyBits(const uint8_t* src, uint64_t from, uint64_t n) {
  std::vector<uint8_t> out((n + 7) / 8, 0);
  if (from % 8 == 0) {
    if (n > 0) std::memcpy(out.data(), src + from / 8, (n + 7) / 8);
    if (n % 8 != 0) out.back() &= static_cast<uint8_t>((1u << (n % 8)) - 1);
    return out;
  }
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t j = from + i;
    if ((src[j >> 3] >> (j & 7)) & 1) out[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return out;
}

pb::CompressiveEncoding FlatEncoding(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

pb::CompressiveEncoding VariableEncoding(uint64_t offset_bits) {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = FlatEncoding(offset_bits);
  return e;
}

bool ExplicitCompression(const ColumnEncodingOptions& o) {
  return o.compression == ColumnEncodingOptions::Compression::kZstd ||
         o.compression == ColumnEncodingOptions::Compression::kLz4;
}

pb::CompressionScheme SchemeOf(const ColumnEncodingOptions& o) {
  return o.compression == ColumnEncodingOptions::Compression::kLz4 ? pb::COMPRESSION_ALGORITHM_LZ4
                                                                   : pb::COMPRESSION_ALGORITHM_ZSTD;
}

pb::CompressiveEncoding WrapGeneral(pb::CompressiveEncoding inner, pb::CompressionScheme scheme,
                                    const ColumnEncodingOptions& o) {
  pb::CompressiveEncoding e;
  auto* g = e.mutable_general();
  g->mutable_compression()->set_scheme(scheme);
  if (o.has_compression_level) g->mutable_compression()->set_level(o.compression_level);
  *g->mutable_values() = std::move(inner);
  return e;
}

std::unique_ptr<MiniBlockValues> ChooseFixed(FixedView v, const ColumnEncodingOptions& o) {
  if (o.compression == ColumnEncodingOptions::Compression::kDefault && o.enable_bitpacking) {
    if (auto rle = RleValues::MaybeMake(v)) return rle;
    if (auto packed = BitpackedValues::MaybeMake(v)) return packed;
  }
  return std::make_unique<FlatValues>(v);
}

std::unique_ptr<MiniBlockValues> ChooseVariable(const PageValues& v, const ColumnEncodingOptions& o) {
  if (o.compression == ColumnEncodingOptions::Compression::kDefault && (o.enable_fsst || o.force_fsst)) {
    if (auto fsst = FsstValues::MaybeMake(v, o.force_fsst)) return fsst;
  }
  return std::make_unique<VariableValues>(v.data(), v.offsets(), v.offset_bits());
}

std::unique_ptr<MiniBlockValues> MakeFixedSizeListValues(const PageValues& v) { return std::make_unique<FslValues>(v); }

std::unique_ptr<MiniBlockValues> WrapGeneralValues(std::unique_ptr<MiniBlockValues> inner,
                                                   const ColumnEncodingOptions& o) {
  const int32_t level = o.has_compression_level ? o.compression_level : 0;
  return std::make_unique<GeneralValues>(std::move(inner), SchemeOf(o), level, o);
}

}  // namespace lancet::format::internal
