#include "format/page_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <span>

#include "encoding/bitpacking.h"
#include "encoding/decoders.h"
#include "encoding/dictionary_encoder.h"
#include "encoding/general_encoder.h"
#include "format/miniblock_values.h"

namespace lancet::format::internal {

namespace pb = ::lance::encodings21;

namespace {

// Mini-block is for values narrower than this (reference primitive.rs `is_narrow`).
constexpr uint64_t kMiniBlockMaxValueBytes = 256;
// Full-zip values at least this large are zstd-compressed one by one (docs/format §7.4).
constexpr uint64_t kFullZipCompressBytes = 32 * 1024;
constexpr uint8_t kMiniBlockPad = 0xFE;

uint32_t BitLength(uint32_t v) { return v == 0 ? 0 : 32 - static_cast<uint32_t>(std::countl_zero(v)); }

// ---------------------------------------------------------------------------------
// Mini-block layout (docs/format §7.3).

struct LevelView {
  const std::vector<uint16_t>* rep = nullptr;
  const std::vector<uint16_t>* def = nullptr;
  bool has_rep = false;
  bool has_def = false;
  uint64_t num_levels = 0;
};

// Level encoding of a page's rep or def levels: FastLanes bitpacking at the width
// of the page's largest level (what the reference's block compressor picks for
// levels), or raw u16.
struct LevelCodec {
  uint32_t width = 16;
  pb::CompressiveEncoding encoding;
  explicit LevelCodec(const std::vector<uint16_t>& levels) {
    uint16_t all = 0;
    for (uint16_t l : levels) all |= l;
    width = static_cast<uint32_t>(std::bit_width(all));
    if (width == 0 || width >= 16) {
      width = 16;
      encoding = FlatEncoding(16);
      return;
    }
    auto* bp = encoding.mutable_out_of_line_bitpacking();
    bp->set_uncompressed_bits_per_value(16);
    *bp->mutable_values() = FlatEncoding(width);
  }
  std::vector<uint8_t> Encode(const uint16_t* levels, uint64_t n) const {
    if (width == 16) {
      std::vector<uint8_t> raw(n * 2);
      if (n > 0) std::memcpy(raw.data(), levels, n * 2);
      return raw;
    }
    return encoding::OutOfLineBitpack<uint16_t>(std::span<const uint16_t>(levels, n), width);
  }
};

// A dictionary-encoded page's indices and items (variable-width or fixed-width).
struct DictionaryPage {
  encoding::VariableDictionary dict;
  uint32_t item_bits = 0;  // non-zero for fixed-width items, held in dict.item_data
  uint64_t num_items() const { return item_bits != 0 ? dict.item_data.size() * 8 / item_bits : dict.num_items(); }
};

// Dictionary-encode strings when the estimated encoded size is under 80% of the plain
// size (reference `should_dictionary_encode`: items + their offsets + u32 indices).
std::optional<DictionaryPage> MaybeDictionary(const PageValues& v, const ColumnEncodingOptions& o) {
  constexpr uint64_t kMinValues = 100;
  constexpr double kMaxSizeRatio = 0.8;
  constexpr uint64_t kSample = 1024;
  const uint64_t n = v.num_values();
  if (!o.enable_dictionary || n < kMinValues) return std::nullopt;
  if (v.kind() == PageValues::Kind::kFixed && v.bits() >= 64 && v.bits() % 8 == 0) {
    // Items of the value's width plus u32 indices: only 64-bit and wider values can
    // come out under the ratio (lance 12 does this for int64, not for int32).
    const uint64_t w = v.bits() / 8;
    const double budget = kMaxSizeRatio * static_cast<double>(n * w) - 4.0 * static_cast<double>(n);
    if (budget <= 0) return std::nullopt;
    const auto max_items = static_cast<uint64_t>(budget / static_cast<double>(w));
    const uint64_t sample = std::min(n, kSample);
    const uint64_t seen = encoding::SampleFixedCardinality(v.data().data(), sample, w);
    if (seen > max_items || (seen * 2 > sample && seen * n / sample > max_items)) return std::nullopt;
    auto dict = encoding::BuildFixedDictionary(v.data().data(), n, w, max_items);
    if (!dict) return std::nullopt;
    return DictionaryPage{std::move(*dict), v.bits()};
  }
  if (v.kind() != PageValues::Kind::kVariable || v.offset_bits() != 32) return std::nullopt;
  const uint64_t bytes = v.offsets().back() - v.offsets().front();
  const double plain = static_cast<double>(bytes + 4 * (n + 1));
  const double avg = static_cast<double>(bytes) / static_cast<double>(n);
  const double budget = kMaxSizeRatio * plain - 4.0 * static_cast<double>(n);
  if (budget <= 0) return std::nullopt;
  const auto max_items = static_cast<uint64_t>(budget / (avg + 4.0));
  if (max_items == 0) return std::nullopt;
  // A sample that is mostly distinct and extrapolates past the budget means high
  // cardinality: skip the full build.
  const uint64_t sample = std::min(n, kSample);
  const uint64_t seen = encoding::SampleCardinality(v.data(), v.offsets(), sample);
  if (seen > max_items || (seen * 2 > sample && seen * n / sample > max_items)) return std::nullopt;
  auto dict = encoding::BuildVariableDictionary(v.data(), v.offsets(), max_items);
  if (!dict) return std::nullopt;
  return DictionaryPage{std::move(*dict)};
}

Result<EncodedPage> EncodeMiniBlock(const PageInput& in, const ColumnEncodingOptions& options,
                                    const std::string& context, const DictionaryPage* dict) {
  const PageValues& values = *in.values;
  const uint64_t n = values.num_values();
  std::unique_ptr<MiniBlockValues> enc;
  if (dict != nullptr) {
    enc = ChooseFixed(FixedView{reinterpret_cast<const uint8_t*>(dict->dict.indices.data()), n, 32}, options);
  } else {
    switch (values.kind()) {
      case PageValues::Kind::kFixed:
        enc = ChooseFixed(FixedView{values.data().data(), n, values.bits()}, options);
        break;
      case PageValues::Kind::kVariable:
        enc = ChooseVariable(values, options);
        break;
      case PageValues::Kind::kFixedSizeList:
        enc = MakeFixedSizeListValues(values);
        break;
      default:
        return Status::NotSupported(context + ": this type cannot be stored in a mini-block page");
    }
  }
  if (ExplicitCompression(options)) enc = WrapGeneralValues(std::move(enc), options);

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
    const uint64_t max_values = enc->MaxChunkValues();
    uint64_t a = 0;
    while (a < n) {
      const uint64_t remaining = n - a;
      if (remaining <= max_values && enc->Bytes(a, n) <= target && levels_ok(a, n, true)) {
        chunks.emplace_back(a, n);
        break;
      }
      if (remaining == 1) {
        chunks.emplace_back(a, n);
        break;
      }
      uint64_t k = std::bit_floor(std::min(remaining, max_values));
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
        return EncodeMiniBlock(in, flat, context, dict);
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
  std::optional<LevelCodec> rep_codec, def_codec;
  if (lv.has_rep) rep_codec.emplace(*in.rep);
  if (lv.has_def) def_codec.emplace(*in.def);
  std::vector<uint8_t> rep_bytes, def_bytes;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const auto [a, b] = chunks[c];
    const bool final = c + 1 == chunks.size();
    const uint64_t l0 = any_levels ? level_begin(a) : 0;
    const uint64_t l1 = any_levels ? level_end(b, final) : 0;
    vbufs.clear();
    RETURN_IF_ERROR(enc->Write(a, b, &vbufs));
    if (lv.has_rep) rep_bytes = rep_codec->Encode(in.rep->data() + l0, l1 - l0);
    if (lv.has_def) def_bytes = def_codec->Encode(in.def->data() + l0, l1 - l0);
    const size_t start = data.size();
    Put<uint16_t>(&data, static_cast<uint16_t>(l1 - l0));
    if (lv.has_rep) Put<uint16_t>(&data, static_cast<uint16_t>(rep_bytes.size()));
    if (lv.has_def) Put<uint16_t>(&data, static_cast<uint16_t>(def_bytes.size()));
    for (const auto& vb : vbufs) {
      if (vb.size() > UINT32_MAX) return Status::NotSupported(context + ": mini-block chunk buffer over 4 GiB");
      Put<uint32_t>(&data, static_cast<uint32_t>(vb.size()));
    }
    PadTo(&data, start, 8, kMiniBlockPad);
    if (lv.has_rep) {
      data.insert(data.end(), rep_bytes.begin(), rep_bytes.end());
      PadTo(&data, start, 8, kMiniBlockPad);
    }
    if (lv.has_def) {
      data.insert(data.end(), def_bytes.begin(), def_bytes.end());
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
  if (lv.has_rep) *mb->mutable_rep_compression() = rep_codec->encoding;
  if (lv.has_def) *mb->mutable_def_compression() = def_codec->encoding;
  if (dict != nullptr) {
    *mb->mutable_dictionary() = dict->item_bits != 0 ? FlatEncoding(dict->item_bits) : VariableEncoding(32);
    mb->set_num_dictionary_items(dict->num_items());
  }
  *mb->mutable_value_compression() = enc->encoding;
  for (auto layer : *in.layers) mb->add_layers(layer);
  mb->set_num_buffers(enc->num_buffers);
  if (lv.has_rep) mb->set_repetition_index_depth(1);
  mb->set_num_items(n);
  mb->set_has_large_chunk(true);

  page.buffers.push_back(std::move(meta));
  page.buffers.push_back(std::move(data));
  if (dict != nullptr) {
    page.buffers.push_back(dict->item_bits != 0
                               ? dict->dict.item_data
                               : encoding::EncodeVariableBlock(dict->dict.item_offsets, dict->dict.item_data));
  }
  if (lv.has_rep) {
    std::vector<uint8_t> ri(rep_index.size() * 8);
    std::memcpy(ri.data(), rep_index.data(), ri.size());
    page.buffers.push_back(std::move(ri));
  }
  page.description = "miniblock " + encoding::DescribeEncoding(enc->encoding);
  if (dict != nullptr) page.description += " dictionary";
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
        auto bits = CopyBits(values.item_validity().data(), v * dim, dim);
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

// One value repeated over a page without nulls or lists (as lance 12 writes it, with
// every layer marked all-valid even in a nullable column): a
// fixed-width value of up to 32 bytes sits in the layout and the page has no
// buffers; a string or binary value is buffer 0, a one-value array (u32 buffer count
// 2, u32 buffer sizes, offsets [0, len] in the type's offset width, the bytes).
std::optional<EncodedPage> MaybeEncodeConstant(const PageInput& in) {
  constexpr uint64_t kMaxInlineBytes = 32;
  const PageValues& values = *in.values;
  const uint64_t n = values.num_values();
  if (in.max_rep != 0 || n == 0) return std::nullopt;
  if (std::any_of(in.def->begin(), in.def->end(), [](uint16_t d) { return d != 0; })) return std::nullopt;
  EncodedPage page;
  auto* cl = page.layout.mutable_constant_layout();
  for (size_t i = 0; i < in.layers->size(); ++i) cl->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  page.description = "constant value";
  const uint8_t* d = values.data().data();
  if (values.kind() == PageValues::Kind::kFixed && values.bits() % 8 == 0 && values.bits() / 8 <= kMaxInlineBytes) {
    const uint64_t w = values.bits() / 8;
    for (uint64_t i = 1; i < n; ++i) {
      if (std::memcmp(d, d + i * w, w) != 0) return std::nullopt;
    }
    cl->set_inline_value(d, w);
    return page;
  }
  if (values.kind() != PageValues::Kind::kVariable) return std::nullopt;
  const auto& off = values.offsets();
  const uint64_t len = off[1] - off[0];
  if (len > UINT32_MAX) return std::nullopt;
  for (uint64_t i = 1; i < n; ++i) {
    if (off[i + 1] - off[i] != len || std::memcmp(d + off[0], d + off[i], len) != 0) return std::nullopt;
  }
  const uint32_t width = values.offset_bits() / 8;
  std::vector<uint8_t> scalar;
  Put<uint32_t>(&scalar, 2);
  Put<uint32_t>(&scalar, 2 * width);
  Put<uint32_t>(&scalar, static_cast<uint32_t>(len));
  if (width == 8) {
    Put<uint64_t>(&scalar, 0);
    Put<uint64_t>(&scalar, len);
  } else {
    Put<uint32_t>(&scalar, 0);
    Put<uint32_t>(&scalar, static_cast<uint32_t>(len));
  }
  scalar.insert(scalar.end(), d + off[0], d + off[0] + len);
  page.buffers.push_back(std::move(scalar));
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
      base.compression = ColumnEncodingOptions::Compression::kDefault;
      base.force_fsst = true;
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
  if (options.compression == ColumnEncodingOptions::Compression::kDefault && options.enable_bitpacking) {
    if (auto page = MaybeEncodeConstant(input)) return std::move(*page);
  }
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
  if (options.structural != ColumnEncodingOptions::Structural::kFullZip) {
    // The reference tries a dictionary before choosing the structural layout.
    if (auto dict = MaybeDictionary(values, options)) return EncodeMiniBlock(input, options, context, &*dict);
  }
  return full_zip ? EncodeFullZip(input, options, context) : EncodeMiniBlock(input, options, context, nullptr);
}

}  // namespace lancet::format::internal
