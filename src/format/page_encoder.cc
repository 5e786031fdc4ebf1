#include "format/page_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>

#include "encoding/bitpacking.h"
#include "encoding/decoders.h"
#include "encoding/general_encoder.h"

namespace lancet::format::internal {

namespace pb = ::lance::encodings21;

namespace {

// Mini-block chunk targets (docs/format §7.3): the reference keeps flat chunks under
// ~8 KiB and variable chunks under 4 KiB, with at most 4096 values per chunk.
constexpr uint64_t kFlatChunkBytes = 8192;
constexpr uint64_t kVariableChunkBytes = 4096;
constexpr uint64_t kMaxChunkValues = 4096;
// Mini-block is for values narrower than this (reference primitive.rs `is_narrow`).
constexpr uint64_t kMiniBlockMaxValueBytes = 256;
// Full-zip values at least this large are zstd-compressed one by one (docs/format §7.4).
constexpr uint64_t kFullZipCompressBytes = 32 * 1024;
constexpr uint8_t kMiniBlockPad = 0xFE;
constexpr uint8_t kVariablePad = 0x48;

template <typename T>
void Put(std::vector<uint8_t>* out, T v) {
  const size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &v, sizeof(T));
}

void PadTo(std::vector<uint8_t>* out, size_t start, size_t align, uint8_t fill) {
  while ((out->size() - start) % align != 0) out->push_back(fill);
}

// Copies n bits starting at bit `from` of an LSB-first bitmap into a fresh bitmap.
std::vector<uint8_t> CopyBits(const std::vector<uint8_t>& src, uint64_t from, uint64_t n) {
  std::vector<uint8_t> out((n + 7) / 8, 0);
  if (from % 8 == 0) {
    if (n > 0) std::memcpy(out.data(), src.data() + from / 8, (n + 7) / 8);
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

uint32_t BitLength(uint32_t v) { return v == 0 ? 0 : 32 - static_cast<uint32_t>(std::countl_zero(v)); }

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

// ---------------------------------------------------------------------------------
// Mini-block value encoders: each turns values [a, b) into the chunk's value buffers.

class MiniBlockValues {
 public:
  virtual ~MiniBlockValues() = default;
  virtual uint64_t Bytes(uint64_t a, uint64_t b) const = 0;
  virtual Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const = 0;
  virtual uint64_t TargetChunkBytes() const { return kFlatChunkBytes; }
  /// Non-zero when the encoding dictates the values per chunk (bitpacking: 1024).
  virtual uint64_t FixedChunkValues() const { return 0; }
  pb::CompressiveEncoding encoding;
  uint64_t num_buffers = 1;
};

class FlatValues : public MiniBlockValues {
 public:
  explicit FlatValues(const PageValues& v) : v_(v) { encoding = FlatEncoding(v.bits()); }
  uint64_t Bytes(uint64_t a, uint64_t b) const override { return ((b - a) * v_.bits() + 7) / 8; }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    if (v_.bits() % 8 != 0) {
      buffers->push_back(CopyBits(v_.data(), a * v_.bits(), (b - a) * v_.bits()));
    } else {
      const uint64_t w = v_.bits() / 8;
      buffers->emplace_back(v_.data().begin() + static_cast<ptrdiff_t>(a * w),
                            v_.data().begin() + static_cast<ptrdiff_t>(b * w));
    }
    return Status::OK();
  }

 private:
  const PageValues& v_;
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
  static std::unique_ptr<BitpackedValues> MaybeMake(const PageValues& v) {
    const uint32_t bits = v.bits();
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return nullptr;
    std::vector<std::vector<uint8_t>> chunks;
    const uint64_t n = v.num_values();
    if (n == 0) return nullptr;
    switch (bits) {
      case 8: chunks = Pack<uint8_t>(v); break;
      case 16: chunks = Pack<uint16_t>(v); break;
      case 32: chunks = Pack<uint32_t>(v); break;
      default: chunks = Pack<uint64_t>(v); break;
    }
    uint64_t packed = 0;
    for (const auto& c : chunks) packed += c.size();
    if (packed >= n * bits / 8) return nullptr;
    return std::make_unique<BitpackedValues>(std::move(chunks), bits);
  }

 private:
  template <typename T>
  static std::vector<std::vector<uint8_t>> Pack(const PageValues& v) {
    std::vector<T> values(v.num_values());
    std::memcpy(values.data(), v.data().data(), values.size() * sizeof(T));
    return encoding::InlineBitpackChunks<T>(std::span<const T>(values));
  }
  std::vector<std::vector<uint8_t>> chunks_;
};

class VariableValues : public MiniBlockValues {
 public:
  explicit VariableValues(const PageValues& v) : v_(v) {
    const uint64_t total = v.offsets().back() - v.offsets().front();
    wide_ = v.offset_bits() == 64 || total + 8 * (v.num_values() + 1) > UINT32_MAX;
    encoding = VariableEncoding(wide_ ? 64 : 32);
  }
  uint64_t Bytes(uint64_t a, uint64_t b) const override {
    return v_.offsets()[b] - v_.offsets()[a] + (b - a + 1) * (wide_ ? 8 : 4);
  }
  uint64_t TargetChunkBytes() const override { return kVariableChunkBytes; }
  Status Write(uint64_t a, uint64_t b, std::vector<std::vector<uint8_t>>* buffers) const override {
    std::vector<uint8_t> out;
    const uint64_t n = b - a;
    const uint64_t width = wide_ ? 8 : 4;
    // Offsets are relative to the chunk buffer, so the first one points past the offsets.
    const uint64_t base = (n + 1) * width;
    const auto& off = v_.offsets();
    out.reserve(base + off[b] - off[a] + width);
    for (uint64_t i = a; i <= b; ++i) {
      const uint64_t o = base + off[i] - off[a];
      if (wide_) {
        Put<uint64_t>(&out, o);
      } else {
        Put<uint32_t>(&out, static_cast<uint32_t>(o));
      }
    }
    out.insert(out.end(), v_.data().begin() + static_cast<ptrdiff_t>(off[a]),
               v_.data().begin() + static_cast<ptrdiff_t>(off[b]));
    PadTo(&out, 0, width, kVariablePad);
    buffers->push_back(std::move(out));
    return Status::OK();
  }

 private:
  const PageValues& v_;
  bool wide_ = false;
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
    if (validity_) buffers->push_back(CopyBits(v_.item_validity(), a * dim, (b - a) * dim));
    if (v_.bits() % 8 != 0) {
      buffers->push_back(CopyBits(v_.data(), a * dim * v_.bits(), (b - a) * dim * v_.bits()));
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

// ---------------------------------------------------------------------------------
// Mini-block layout (docs/format §7.3).

struct LevelView {
  const std::vector<uint16_t>* rep = nullptr;
  const std::vector<uint16_t>* def = nullptr;
  bool has_rep = false;
  bool has_def = false;
  uint64_t num_levels = 0;
};

Result<EncodedPage> EncodeMiniBlock(const PageInput& in, const ColumnEncodingOptions& options,
                                    const std::string& context) {
  const PageValues& values = *in.values;
  const uint64_t n = values.num_values();
  std::unique_ptr<MiniBlockValues> enc;
  switch (values.kind()) {
    case PageValues::Kind::kFixed:
      if (options.enable_bitpacking && !ExplicitCompression(options)) enc = BitpackedValues::MaybeMake(values);
      if (!enc) enc = std::make_unique<FlatValues>(values);
      break;
    case PageValues::Kind::kVariable:
      enc = std::make_unique<VariableValues>(values);
      break;
    case PageValues::Kind::kFixedSizeList:
      enc = std::make_unique<FslValues>(values);
      break;
    default:
      return Status::NotSupported(context + ": this type cannot be stored in a mini-block page");
  }
  if (ExplicitCompression(options)) {
    const int32_t level = options.has_compression_level ? options.compression_level : 0;
    enc = std::make_unique<GeneralValues>(std::move(enc), SchemeOf(options), level, options);
  }

  LevelView lv;
  lv.rep = in.rep;
  lv.def = in.def;
  lv.has_rep = in.max_rep > 0;
  lv.has_def = in.max_def > 0 && std::any_of(in.def->begin(), in.def->end(), [](uint16_t d) { return d != 0; });
  lv.num_levels = lv.has_rep ? in.rep->size() : (in.max_def > 0 ? in.def->size() : n);
  const bool any_levels = lv.has_rep || lv.has_def;

  // Level index of each value, to cut levels the way the reference does: a chunk ends
  // right after its last value's level, and invisible levels after it go to the next.
  std::vector<uint64_t> value_level;
  const bool sparse = in.max_visible_def >= 0 && lv.has_def;
  if (sparse) {
    value_level.reserve(n);
    for (uint64_t l = 0; l < in.def->size(); ++l) {
      if ((*in.def)[l] <= in.max_visible_def) value_level.push_back(l);
    }
    if (value_level.size() != n) return Status::Internal(context + ": level/value count mismatch");
  }
  auto level_begin = [&](uint64_t a) -> uint64_t {
    if (a == 0) return 0;
    return sparse ? value_level[a - 1] + 1 : a;
  };
  auto level_end = [&](uint64_t b, bool final) -> uint64_t {
    if (final) return lv.num_levels;
    return sparse ? value_level[b - 1] + 1 : b;
  };
  auto levels_ok = [&](uint64_t a, uint64_t b, bool final) {
    return !any_levels || level_end(b, final) - level_begin(a) <= kMaxChunkLevels;
  };

  // Chunk boundaries: non-final chunks hold a power of two >= 2 values.
  std::vector<std::pair<uint64_t, uint64_t>> chunks;
  if (n == 0) {
    chunks.emplace_back(0, 0);
  } else if (enc->FixedChunkValues() != 0) {
    const uint64_t step = enc->FixedChunkValues();
    for (uint64_t a = 0; a < n; a += step) chunks.emplace_back(a, std::min(n, a + step));
  } else {
    const uint64_t target = enc->TargetChunkBytes();
    uint64_t a = 0;
    while (a < n) {
      const uint64_t remaining = n - a;
      if (remaining <= kMaxChunkValues && enc->Bytes(a, n) <= target && levels_ok(a, n, true)) {
        chunks.emplace_back(a, n);
        break;
      }
      if (remaining == 1) {
        chunks.emplace_back(a, n);
        break;
      }
      uint64_t k = std::bit_floor(std::min(remaining, kMaxChunkValues));
      while (k > 2 && (enc->Bytes(a, a + k) > target || !levels_ok(a, a + k, a + k == n))) k /= 2;
      chunks.emplace_back(a, a + k);
      a += k;
    }
  }
  for (size_t c = 0; c < chunks.size(); ++c) {
    const bool final = c + 1 == chunks.size();
    if (!levels_ok(chunks[c].first, chunks[c].second, final)) {
      if (enc->FixedChunkValues() != 0) {
        // Too many levels for a 1024-value chunk: fall back to flat, freely sized chunks.
        ColumnEncodingOptions flat = options;
        flat.enable_bitpacking = false;
        return EncodeMiniBlock(in, flat, context);
      }
      return Status::NotSupported(context + ": a mini-block chunk would need more than " +
                                  std::to_string(kMaxChunkLevels) + " repetition/definition levels");
    }
  }

  EncodedPage page;
  std::vector<uint8_t> meta;
  std::vector<uint8_t> data;
  std::vector<uint64_t> rep_index;
  std::vector<std::vector<uint8_t>> vbufs;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const auto [a, b] = chunks[c];
    const bool final = c + 1 == chunks.size();
    const uint64_t l0 = any_levels ? level_begin(a) : 0;
    const uint64_t l1 = any_levels ? level_end(b, final) : 0;
    vbufs.clear();
    RETURN_IF_ERROR(enc->Write(a, b, &vbufs));
    const size_t start = data.size();
    Put<uint16_t>(&data, static_cast<uint16_t>(l1 - l0));
    if (lv.has_rep) Put<uint16_t>(&data, static_cast<uint16_t>((l1 - l0) * 2));
    if (lv.has_def) Put<uint16_t>(&data, static_cast<uint16_t>((l1 - l0) * 2));
    for (const auto& vb : vbufs) {
      if (vb.size() > UINT32_MAX) return Status::NotSupported(context + ": mini-block chunk buffer over 4 GiB");
      Put<uint32_t>(&data, static_cast<uint32_t>(vb.size()));
    }
    PadTo(&data, start, 8, kMiniBlockPad);
    if (lv.has_rep) {
      const auto* p = reinterpret_cast<const uint8_t*>(in.rep->data() + l0);
      data.insert(data.end(), p, p + (l1 - l0) * 2);
      PadTo(&data, start, 8, kMiniBlockPad);
    }
    if (lv.has_def) {
      const auto* p = reinterpret_cast<const uint8_t*>(in.def->data() + l0);
      data.insert(data.end(), p, p + (l1 - l0) * 2);
      PadTo(&data, start, 8, kMiniBlockPad);
    }
    for (const auto& vb : vbufs) {
      data.insert(data.end(), vb.begin(), vb.end());
      PadTo(&data, start, 8, kMiniBlockPad);
    }
    const uint64_t chunk_bytes = data.size() - start;
    const uint64_t words = chunk_bytes / 8 - 1;
    if (words >= (1ULL << 28)) return Status::NotSupported(context + ": mini-block chunk too large");
    const uint32_t log2 = final ? 0 : static_cast<uint32_t>(std::countr_zero(b - a));
    Put<uint32_t>(&meta, static_cast<uint32_t>((words << 4) | log2));

    if (lv.has_rep) {
      // Repetition index, depth 1 (reference `compress_levels`): rows that finish in
      // the chunk, and the levels left over after the last row start.
      const uint16_t max_rep = in.max_rep;
      std::span<const uint16_t> reps(in.rep->data() + l0, l1 - l0);
      uint64_t rows = 0;
      for (size_t i = 1; i < reps.size(); ++i) rows += reps[i] == max_rep;
      uint64_t leftovers = 0;
      if (!final) {
        leftovers = reps.size();
        for (size_t i = reps.size(); i-- > 0;) {
          if (reps[i] == max_rep) {
            leftovers = reps.size() - i;
            break;
          }
        }
      }
      if (c != 0 && !reps.empty() && reps[0] == max_rep && rep_index.back() != 0) {
        rep_index[rep_index.size() - 2] += 1;
        rep_index.back() = 0;
      }
      if (final) rows += 1;
      rep_index.push_back(rows);
      rep_index.push_back(leftovers);
    }
  }

  auto* mb = page.layout.mutable_mini_block_layout();
  if (lv.has_rep) *mb->mutable_rep_compression() = FlatEncoding(16);
  if (lv.has_def) *mb->mutable_def_compression() = FlatEncoding(16);
  *mb->mutable_value_compression() = enc->encoding;
  for (auto layer : *in.layers) mb->add_layers(layer);
  mb->set_num_buffers(enc->num_buffers);
  if (lv.has_rep) mb->set_repetition_index_depth(1);
  mb->set_num_items(n);
  mb->set_has_large_chunk(true);

  page.buffers.push_back(std::move(meta));
  page.buffers.push_back(std::move(data));
  if (lv.has_rep) {
    std::vector<uint8_t> ri(rep_index.size() * 8);
    std::memcpy(ri.data(), rep_index.data(), ri.size());
    page.buffers.push_back(std::move(ri));
  }
  page.description = "miniblock " + encoding::DescribeEncoding(enc->encoding);
  return page;
}

// ---------------------------------------------------------------------------------
// Full-zip layout (docs/format §7.4).

Result<EncodedPage> EncodeFullZip(const PageInput& in, const ColumnEncodingOptions& options,
                                  const std::string& context) {
  const PageValues& values = *in.values;
  const uint64_t n = values.num_values();
  const bool has_rep = in.max_rep > 0;
  const bool has_def = in.max_def > 0;
  const uint32_t bits_rep = has_rep ? BitLength(in.max_rep) : 0;
  const uint32_t bits_def = has_def ? BitLength(in.max_def) : 0;
  const uint32_t ctrl_bits = bits_rep + bits_def;
  const uint32_t ctrl_bytes = ctrl_bits == 0 ? 0 : ctrl_bits <= 8 ? 1 : ctrl_bits <= 16 ? 2 : 4;
  const uint64_t num_levels = has_rep ? in.rep->size() : has_def ? in.def->size() : n;

  EncodedPage page;
  auto* fz = page.layout.mutable_full_zip_layout();
  pb::CompressiveEncoding enc;
  bool variable = false;
  uint64_t fixed_bytes = 0;
  bool compress_values = false;
  pb::CompressionScheme scheme = pb::COMPRESSION_ALGORITHM_ZSTD;
  int32_t level = options.has_compression_level ? options.compression_level : 0;
  switch (values.kind()) {
    case PageValues::Kind::kFixed:
      if (values.bits() % 8 != 0) return Status::NotSupported(context + ": bit-sized values in a full-zip page");
      enc = FlatEncoding(values.bits());
      fixed_bytes = values.bits() / 8;
      break;
    case PageValues::Kind::kFixedSizeList: {
      if (values.bits() % 8 != 0) return Status::NotSupported(context + ": bit-sized items in a full-zip page");
      auto* fsl = enc.mutable_fixed_size_list();
      fsl->set_items_per_value(values.dimension());
      *fsl->mutable_values() = FlatEncoding(values.bits());
      fsl->set_has_validity(values.any_item_null());
      fixed_bytes = values.dimension() * values.bits() / 8 + (values.any_item_null() ? (values.dimension() + 7) / 8 : 0);
      break;
    }
    case PageValues::Kind::kVariable:
      variable = true;
      enc = VariableEncoding(values.offset_bits());
      if (ExplicitCompression(options)) {
        compress_values = true;
        scheme = SchemeOf(options);
      } else if (options.compression == ColumnEncodingOptions::Compression::kDefault &&
                 values.max_value_bytes() >= kFullZipCompressBytes) {
        compress_values = true;
      }
      if (compress_values) enc = WrapGeneral(std::move(enc), scheme, options);
      break;
    case PageValues::Kind::kStruct: {
      variable = true;
      auto* vps = enc.mutable_variable_packed_struct();
      for (const auto& child : values.children()) {
        auto* f = vps->add_fields();
        if (child.kind() == PageValues::Kind::kFixed) {
          if (child.bits() % 8 != 0) return Status::NotSupported(context + ": bit-sized member in a packed struct");
          *f->mutable_value() = FlatEncoding(child.bits());
          f->set_bits_per_value(child.bits());
        } else if (child.kind() == PageValues::Kind::kVariable) {
          *f->mutable_value() = VariableEncoding(32);
          f->set_bits_per_length(32);
        } else {
          return Status::NotSupported(context + ": packed struct members must be fixed-width or binary");
        }
      }
      break;
    }
    default:
      return Status::NotSupported(context + ": this type cannot be stored in a full-zip page");
  }

  // One value's stored bytes (variable widths, without the length prefix).
  std::vector<uint8_t> scratch;
  auto value_bytes = [&](uint64_t v) -> Result<std::span<const uint8_t>> {
    if (values.kind() == PageValues::Kind::kVariable) {
      const auto& off = values.offsets();
      std::span<const uint8_t> raw(values.data().data() + off[v], off[v + 1] - off[v]);
      if (!compress_values) return raw;
      ASSIGN_OR_RETURN(scratch, encoding::CompressGeneral(scheme, level, raw));
      return std::span<const uint8_t>(scratch);
    }
    scratch.clear();
    for (const auto& child : values.children()) {
      if (child.kind() == PageValues::Kind::kFixed) {
        const uint64_t w = child.bits() / 8;
        scratch.insert(scratch.end(), child.data().begin() + static_cast<ptrdiff_t>(v * w),
                       child.data().begin() + static_cast<ptrdiff_t>((v + 1) * w));
      } else {
        const auto& off = child.offsets();
        Put<uint32_t>(&scratch, static_cast<uint32_t>(off[v + 1] - off[v]));
        scratch.insert(scratch.end(), child.data().begin() + static_cast<ptrdiff_t>(off[v]),
                       child.data().begin() + static_cast<ptrdiff_t>(off[v + 1]));
      }
    }
    return std::span<const uint8_t>(scratch);
  };

  const bool long_lengths = values.kind() == PageValues::Kind::kVariable && values.offset_bits() == 64;
  std::vector<uint8_t> zipped;
  std::vector<uint64_t> row_starts;
  const bool need_rep_index = variable || has_rep;
  uint64_t v = 0;  // next value slot
  const uint64_t dim = values.dimension();
  for (uint64_t l = 0; l < num_levels; ++l) {
    const uint16_t r = has_rep ? (*in.rep)[l] : 0;
    const uint16_t d = has_def ? (*in.def)[l] : 0;
    if (need_rep_index && (!has_rep || r == in.max_rep)) row_starts.push_back(zipped.size());
    if (ctrl_bytes > 0) {
      const uint32_t word = (static_cast<uint32_t>(r) << bits_def) | d;
      if (ctrl_bytes == 1) {
        Put<uint8_t>(&zipped, static_cast<uint8_t>(word));
      } else if (ctrl_bytes == 2) {
        Put<uint16_t>(&zipped, static_cast<uint16_t>(word));
      } else {
        Put<uint32_t>(&zipped, word);
      }
    }
    const bool visible = in.max_visible_def < 0 || d <= in.max_visible_def;
    if (!visible) continue;
    const bool null_item = d != 0;
    if (variable) {
      if (!null_item) {
        ASSIGN_OR_RETURN(auto bytes, value_bytes(v));
        if (long_lengths) {
          Put<uint64_t>(&zipped, bytes.size());
        } else {
          if (bytes.size() > UINT32_MAX) return Status::NotSupported(context + ": value over 4 GiB");
          Put<uint32_t>(&zipped, static_cast<uint32_t>(bytes.size()));
        }
        zipped.insert(zipped.end(), bytes.begin(), bytes.end());
      }
    } else if (values.kind() == PageValues::Kind::kFixedSizeList) {
      if (values.any_item_null()) {
        auto bits = CopyBits(values.item_validity(), v * dim, dim);
        zipped.insert(zipped.end(), bits.begin(), bits.end());
      }
      const uint64_t w = dim * values.bits() / 8;
      zipped.insert(zipped.end(), values.data().begin() + static_cast<ptrdiff_t>(v * w),
                    values.data().begin() + static_cast<ptrdiff_t>((v + 1) * w));
    } else {
      zipped.insert(zipped.end(), values.data().begin() + static_cast<ptrdiff_t>(v * fixed_bytes),
                    values.data().begin() + static_cast<ptrdiff_t>((v + 1) * fixed_bytes));
    }
    ++v;
  }
  if (v != n) return Status::Internal(context + ": full-zip level/value count mismatch");

  fz->set_bits_rep(bits_rep);
  fz->set_bits_def(bits_def);
  if (variable) {
    fz->set_bits_per_offset(values.kind() == PageValues::Kind::kVariable ? values.offset_bits() : 32);
  } else {
    fz->set_bits_per_value(static_cast<uint32_t>(fixed_bytes * 8));
  }
  if (num_levels > UINT32_MAX) return Status::NotSupported(context + ": full-zip page with over 2^32 levels");
  fz->set_num_items(static_cast<uint32_t>(num_levels));
  fz->set_num_visible_items(static_cast<uint32_t>(n));
  *fz->mutable_value_compression() = enc;
  for (auto layer : *in.layers) fz->add_layers(layer);

  page.buffers.push_back(std::move(zipped));
  if (need_rep_index) {
    const uint64_t total = page.buffers[0].size();
    row_starts.push_back(total);
    const int width = total <= 0xFF ? 1 : total <= 0xFFFF ? 2 : total <= 0xFFFFFFFFULL ? 4 : 8;
    std::vector<uint8_t> index(row_starts.size() * width);
    for (size_t i = 0; i < row_starts.size(); ++i) std::memcpy(index.data() + i * width, &row_starts[i], width);
    page.buffers.push_back(std::move(index));
  }
  page.description = "fullzip " + encoding::DescribeEncoding(enc);
  return page;
}

// All values null: no value buffers, levels raw u16 when there are any beyond the
// leaf's own null (docs/format §7.5).
Result<EncodedPage> EncodeConstantNull(const PageInput& in) {
  EncodedPage page;
  auto* cl = page.layout.mutable_constant_layout();
  for (auto layer : *in.layers) cl->add_layers(layer);
  const bool simple =
      in.max_rep == 0 && std::all_of(in.def->begin(), in.def->end(), [](uint16_t d) { return d == 1; });
  if (!simple) {
    std::vector<uint8_t> rep(in.rep->size() * 2), def(in.def->size() * 2);
    if (!rep.empty()) std::memcpy(rep.data(), in.rep->data(), rep.size());
    if (!def.empty()) std::memcpy(def.data(), in.def->data(), def.size());
    cl->set_num_rep_values(in.rep->size());
    cl->set_num_def_values(in.def->size());
    page.buffers.push_back(std::move(rep));
    page.buffers.push_back(std::move(def));
  }
  page.description = "constant null";
  return page;
}

}  // namespace

// ---------------------------------------------------------------------------------
// PageValues

Result<PageValues> PageValues::ForType(const DataType& type) {
  PageValues v;
  switch (type.id) {
    case TypeId::kNull:
      v.kind_ = Kind::kNull;
      return v;
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
      v.kind_ = Kind::kVariable;
      v.offset_bits_ = type.IsLargeBinaryLike() ? 64 : 32;
      v.offsets_.push_back(0);
      return v;
    case TypeId::kFixedSizeList: {
      const DataType& item = type.children.at(0).type;
      if (item.id == TypeId::kFixedSizeList || item.IsNested() || item.BitWidth() <= 0) {
        return Status::NotSupported("fixed_size_list of " + item.ToString() + " cannot be written yet");
      }
      if (type.list_size <= 0) return Status::InvalidArgument("fixed_size_list of size " + std::to_string(type.list_size));
      v.kind_ = Kind::kFixedSizeList;
      v.bits_ = static_cast<uint32_t>(item.BitWidth());
      v.dimension_ = static_cast<uint64_t>(type.list_size);
      return v;
    }
    case TypeId::kStruct: {
      v.kind_ = Kind::kStruct;
      for (const auto& child : type.children) {
        ASSIGN_OR_RETURN(PageValues c, ForType(child.type));
        if (c.kind_ != Kind::kFixed && c.kind_ != Kind::kVariable) {
          return Status::NotSupported("packed struct member '" + child.name + "' of type " + child.type.ToString());
        }
        v.children_.push_back(std::move(c));
      }
      return v;
    }
    case TypeId::kDictionary:
      if (!type.value_type) return Status::InvalidArgument("dictionary type without a value type");
      return ForType(*type.value_type);
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return Status::Internal("list type reached the value gatherer");
    default: {
      const int bits = type.BitWidth();
      if (bits <= 0) return Status::NotSupported("type " + type.ToString() + " cannot be written");
      v.kind_ = Kind::kFixed;
      v.bits_ = static_cast<uint32_t>(bits);
      return v;
    }
  }
}

void PageValues::AppendBits(const uint8_t* bitmap, int64_t bit_offset, int64_t n, std::vector<uint8_t>* dst,
                            uint64_t* dst_bits) {
  for (int64_t i = 0; i < n; ++i) {
    if (*dst_bits % 8 == 0) dst->push_back(0);
    const int64_t j = bit_offset + i;
    const bool bit = bitmap == nullptr ? true : ((bitmap[j >> 3] >> (j & 7)) & 1);
    if (bit) dst->back() |= static_cast<uint8_t>(1u << (*dst_bits % 8));
    ++*dst_bits;
  }
}

Status PageValues::Append(const Array& leaf, int64_t index, bool is_null) {
  if (leaf.type.id == TypeId::kDictionary && kind_ != Kind::kNull) {
    if (is_null || !leaf.dictionary) return AppendFrom(leaf, index, true);
    const int bits = leaf.type.index_type ? leaf.type.index_type->BitWidth() : 0;
    const uint8_t* p = leaf.buffers[1]->data() + (leaf.offset + index) * (bits / 8);
    int64_t key = 0;
    switch (bits) {
      case 8: key = *reinterpret_cast<const int8_t*>(p); break;
      case 16: key = *reinterpret_cast<const int16_t*>(p); break;
      case 32: key = *reinterpret_cast<const int32_t*>(p); break;
      case 64: key = *reinterpret_cast<const int64_t*>(p); break;
      default: return Status::InvalidArgument("dictionary indices of " + std::to_string(bits) + " bits");
    }
    if (key < 0 || key >= leaf.dictionary->length) {
      return Status::InvalidArgument("dictionary index " + std::to_string(key) + " out of range");
    }
    return AppendFrom(*leaf.dictionary, key, false);
  }
  return AppendFrom(leaf, index, is_null);
}

Status PageValues::AppendFrom(const Array& leaf, int64_t index, bool is_null) {
  ++num_values_;
  switch (kind_) {
    case Kind::kNull:
      return Status::OK();
    case Kind::kFixed: {
      if (bits_ == 1) {
        if (data_bits_ % 8 == 0) data_.push_back(0);
        if (!is_null && leaf.GetBool(index)) data_.back() |= static_cast<uint8_t>(1u << (data_bits_ % 8));
        ++data_bits_;
        return Status::OK();
      }
      const uint64_t w = bits_ / 8;
      const size_t at = data_.size();
      data_.resize(at + w, 0);
      if (!is_null) std::memcpy(data_.data() + at, leaf.buffers[1]->data() + (leaf.offset + index) * w, w);
      return Status::OK();
    }
    case Kind::kVariable: {
      if (!is_null) {
        std::string_view s = leaf.GetView(index);
        data_.insert(data_.end(), s.begin(), s.end());
        max_len_ = std::max<uint64_t>(max_len_, s.size());
      }
      offsets_.push_back(data_.size());
      return Status::OK();
    }
    case Kind::kFixedSizeList: {
      const Array& child = leaf.children[0];
      const int64_t start = (leaf.offset + index) * static_cast<int64_t>(dimension_);
      const int64_t dim = static_cast<int64_t>(dimension_);
      if (is_null) {
        // A null list's items are placeholders: zero values, marked valid.
        AppendBits(nullptr, 0, dim, &item_validity_, &validity_bits_);
        if (bits_ == 1 || bits_ % 8 != 0) {
          for (int64_t i = 0; i < dim; ++i) {
            if (data_bits_ % 8 == 0) data_.push_back(0);
            ++data_bits_;
          }
        } else {
          data_.resize(data_.size() + dimension_ * bits_ / 8, 0);
        }
        return Status::OK();
      }
      const uint8_t* validity = child.buffers.empty() || !child.buffers[0] ? nullptr : child.buffers[0]->data();
      if (validity != nullptr && !any_item_null_) {
        for (int64_t i = 0; i < dim; ++i) any_item_null_ |= child.IsNull(start + i);
      }
      AppendBits(validity, child.offset + start, dim, &item_validity_, &validity_bits_);
      if (bits_ == 1) {
        AppendBits(child.buffers[1]->data(), child.offset + start, dim, &data_, &data_bits_);
      } else {
        const uint64_t w = bits_ / 8;
        const uint8_t* p = child.buffers[1]->data() + (child.offset + start) * w;
        data_.insert(data_.end(), p, p + dim * w);
      }
      return Status::OK();
    }
    case Kind::kStruct: {
      for (size_t k = 0; k < children_.size(); ++k) {
        const Array& child = leaf.children[k];
        const int64_t j = leaf.offset + index;
        RETURN_IF_ERROR(children_[k].Append(child, j, is_null || child.IsNull(j)));
      }
      return Status::OK();
    }
  }
  return Status::OK();
}

void PageValues::Clear() {
  num_values_ = 0;
  data_bits_ = 0;
  validity_bits_ = 0;
  max_len_ = 0;
  any_item_null_ = false;
  data_.clear();
  item_validity_.clear();
  offsets_.clear();
  if (kind_ == Kind::kVariable) offsets_.push_back(0);
  for (auto& c : children_) c.Clear();
}

uint64_t PageValues::bytes() const {
  switch (kind_) {
    case Kind::kVariable: return data_.size() + offsets_.size() * 4;
    case Kind::kStruct: {
      uint64_t total = 0;
      for (const auto& c : children_) total += c.bytes();
      return total;
    }
    default: return data_.size() + item_validity_.size();
  }
}

uint64_t PageValues::max_value_bytes() const {
  switch (kind_) {
    case Kind::kNull: return 0;
    case Kind::kFixed: return (bits_ + 7) / 8;
    case Kind::kVariable: return max_len_;
    case Kind::kFixedSizeList: return (dimension_ * bits_ + 7) / 8;
    case Kind::kStruct: {
      uint64_t total = 0;
      for (const auto& c : children_) total += c.max_value_bytes();
      return total;
    }
  }
  return 0;
}

Result<ColumnEncodingOptions> EncodingOptionsFor(const Field& field, ColumnEncodingOptions base) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = field.metadata.find(key);
    return it == field.metadata.end() ? nullptr : &it->second;
  };
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  if (const std::string* s = get("lance-encoding:structural-encoding")) {
    const std::string v = lower(*s);
    if (v == "miniblock") {
      base.structural = ColumnEncodingOptions::Structural::kMiniBlock;
    } else if (v == "fullzip") {
      base.structural = ColumnEncodingOptions::Structural::kFullZip;
    } else {
      return Status::InvalidArgument("field '" + field.name + "': unknown lance-encoding:structural-encoding '" +
                                     *s + "' (expected miniblock or fullzip)");
    }
  }
  if (const std::string* s = get("lance-encoding:compression")) {
    const std::string v = lower(*s);
    if (v == "zstd") {
      base.compression = ColumnEncodingOptions::Compression::kZstd;
    } else if (v == "lz4") {
      base.compression = ColumnEncodingOptions::Compression::kLz4;
    } else if (v == "none") {
      base.compression = ColumnEncodingOptions::Compression::kNone;
    } else if (v == "fsst") {
      base.compression = ColumnEncodingOptions::Compression::kDefault;  // plain strings are a valid choice
    } else {
      return Status::InvalidArgument("field '" + field.name + "': unknown lance-encoding:compression '" + *s +
                                     "' (expected zstd, lz4 or none)");
    }
  }
  if (const std::string* s = get("lance-encoding:compression-level")) {
    char* end = nullptr;
    const long level = std::strtol(s->c_str(), &end, 10);
    if (s->empty() || *end != '\0' || level < -131072 || level > 22) {
      return Status::InvalidArgument("field '" + field.name + "': bad lance-encoding:compression-level '" + *s + "'");
    }
    base.compression_level = static_cast<int32_t>(level);
    base.has_compression_level = true;
  }
  return base;
}

Result<EncodedPage> EncodePage(const PageInput& in, const ColumnEncodingOptions& options, const std::string& context) {
  static const std::vector<uint16_t> kNoLevels;
  PageInput input = in;
  if (input.rep == nullptr) input.rep = &kNoLevels;
  if (input.def == nullptr) input.def = &kNoLevels;
  const PageValues& values = *input.values;
  if (values.kind() == PageValues::Kind::kNull) return EncodeConstantNull(input);
  bool full_zip;
  switch (options.structural) {
    case ColumnEncodingOptions::Structural::kMiniBlock:
      full_zip = false;
      break;
    case ColumnEncodingOptions::Structural::kFullZip:
      full_zip = true;
      break;
    default:
      full_zip = values.max_value_bytes() >= kMiniBlockMaxValueBytes;
      break;
  }
  // Packed structs only have a full-zip form; bit-sized values only a mini-block one.
  if (values.kind() == PageValues::Kind::kStruct) full_zip = true;
  if (values.bits() % 8 != 0 &&
      (values.kind() == PageValues::Kind::kFixed || values.kind() == PageValues::Kind::kFixedSizeList)) {
    full_zip = false;
  }
  return full_zip ? EncodeFullZip(input, options, context) : EncodeMiniBlock(input, options, context);
}

}  // namespace lancet::format::internal
