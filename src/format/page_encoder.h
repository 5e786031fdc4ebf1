// Page encoding for the writer: gathers a column's values and levels for one page and
// lays them out as mini-block, full-zip or constant pages (docs/format §7, §8).
// Format layer, private.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/array.h"

namespace lancet::format::internal {

/// \brief Values of one page in Lance's physical form, copied out of Arrow arrays.
///
/// kFixed: `bits` per value (1 = LSB-first bitmap); kVariable: u64 offsets + bytes;
/// kFixedSizeList: `dimension` items of `bits` each plus an item-validity bitmap;
/// kStruct: a packed struct, one child per member; kNull: no stored values.
/// Null slots hold zeros (fixed) or nothing (variable). Not thread-safe.
class PageValues {
 public:
  enum class Kind { kNull, kFixed, kVariable, kFixedSizeList, kStruct };

  /// The physical shape of a leaf type. NotSupported for types with none.
  static Result<PageValues> ForType(const DataType& type);

  /// Appends slot `index` of `leaf` (a null item when `is_null`).
  Status Append(const Array& leaf, int64_t index, bool is_null);
  void Clear();

  Kind kind() const { return kind_; }
  uint64_t num_values() const { return num_values_; }
  /// Bytes held so far (drives page flushing).
  uint64_t bytes() const;
  /// Largest single value in bytes (decides mini-block vs full-zip).
  uint64_t max_value_bytes() const;

  uint32_t bits() const { return bits_; }
  /// Offset width of variable values: 64 for large_utf8/large_binary (the reference
  /// rejects 32-bit offsets for them), else 32.
  uint32_t offset_bits() const { return offset_bits_; }
  uint64_t dimension() const { return dimension_; }
  bool any_item_null() const { return any_item_null_; }
  const std::vector<uint8_t>& data() const { return data_; }
  const std::vector<uint64_t>& offsets() const { return offsets_; }
  const std::vector<uint8_t>& item_validity() const { return item_validity_; }
  const std::vector<PageValues>& children() const { return children_; }

 private:
  void AppendBits(const uint8_t* bitmap, int64_t bit_offset, int64_t n, std::vector<uint8_t>* dst, uint64_t* dst_bits);
  Status AppendFrom(const Array& leaf, int64_t index, bool is_null);

  Kind kind_ = Kind::kNull;
  uint32_t bits_ = 0;
  uint32_t offset_bits_ = 32;
  uint64_t dimension_ = 0;
  uint64_t num_values_ = 0;
  uint64_t data_bits_ = 0;  // bit-level fill of data_ for 1-bit values and FSL<bool>
  uint64_t validity_bits_ = 0;
  uint64_t max_len_ = 0;
  bool any_item_null_ = false;
  std::vector<uint8_t> data_;
  std::vector<uint64_t> offsets_;
  std::vector<uint8_t> item_validity_;
  std::vector<PageValues> children_;
};

/// How a column's pages are encoded (from field metadata and writer options).
struct ColumnEncodingOptions {
  enum class Structural { kAuto, kMiniBlock, kFullZip } structural = Structural::kAuto;
  enum class Compression { kDefault, kNone, kZstd, kLz4 } compression = Compression::kDefault;
  int32_t compression_level = 0;
  bool has_compression_level = false;
  bool enable_bitpacking = true;
  bool enable_dictionary = true;
  bool enable_fsst = true;
  bool force_fsst = false;  // lance-encoding:compression=fsst
};

/// Reads lance-encoding:* metadata of `field` over `base`. InvalidArgument for bad values.
Result<ColumnEncodingOptions> EncodingOptionsFor(const Field& field, ColumnEncodingOptions base);

/// One page's levels and values.
struct PageInput {
  const std::vector<::lance::encodings21::RepDefLayer>* layers = nullptr;
  uint16_t max_rep = 0;
  uint16_t max_def = 0;
  int32_t max_visible_def = -1;
  const std::vector<uint16_t>* rep = nullptr;  // empty when max_rep == 0
  const std::vector<uint16_t>* def = nullptr;  // empty when max_def == 0
  const PageValues* values = nullptr;
  uint64_t num_rows = 0;
};

struct EncodedPage {
  std::vector<std::vector<uint8_t>> buffers;
  ::lance::encodings21::PageLayout layout;
  std::string description;  // e.g. "miniblock Flat(32)"
};

/// Encodes one page. `context` (the column name) prefixes errors.
Result<EncodedPage> EncodePage(const PageInput& input, const ColumnEncodingOptions& options,
                               const std::string& context);

/// Level limit of one mini-block chunk with raw u16 levels (u16 byte counts).
inline constexpr uint64_t kMaxChunkLevels = 32767;

}  // namespace lancet::format::internal
