// bitmap_page_lookup.lance, the file Bitmap and LabelList segments share (docs
// index-format-notes §2.2-2.3): one row per distinct key (one null key included), its
// rows as a RowAddrTreeMap. Internal to the index layer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/index_file.h"

namespace lancet::index {

inline constexpr const char* kBitmapFile = "bitmap_page_lookup.lance";

/// \brief Collects key -> rows in memory. Memory grows with the distinct keys, not
/// the rows' count (Roaring), so the key count is what is bounded: estimated bytes of
/// keys past `budget` are refused with InvalidArgument (use a BTree for such columns).
class BitmapAccumulator {
 public:
  BitmapAccumulator(DataType type, uint64_t budget, std::string what);
  /// Row `row` holds key `keys[i]` (a null key included).
  Status AddOne(const Array& keys, int64_t i, uint64_t row);
  /// The file, keys ascending (null first), with `metadata` and the index stats; when
  /// `global_buffer` is set it is written first as global buffer 1.
  Result<IndexFileEntry> Write(std::shared_ptr<io::ObjectStore> store, const std::string& dir, Metadata metadata,
                               const std::optional<std::vector<uint8_t>>& global_buffer);

 private:
  DataType type_;
  uint64_t budget_;
  std::string what_;
  uint64_t bytes_ = 0;
  std::unordered_map<std::string, Roaring64Map> keys_;
  std::optional<Roaring64Map> null_rows_;
};

/// \brief An opened bitmap_page_lookup.lance: the keys in memory, each bitmap read
/// when a query needs it. Thread-safe.
class BitmapLookup {
 public:
  static Result<std::unique_ptr<BitmapLookup>> Open(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                    const DataType& type);
  const format::FileReader& file() const { return *file_; }
  /// Rows whose key equals `lit[i]` (none for a null literal).
  Result<Roaring64Map> Equal(const Array& lit, int64_t i) const;
  /// Rows whose valid key lies within the bounds (absent: unbounded).
  Result<Roaring64Map> Range(const Array* lo, bool lo_inclusive, const Array* hi, bool hi_inclusive) const;
  /// Rows of the null key.
  Result<Roaring64Map> Nulls() const;

 private:
  // The union of the bitmaps in rows [first, last) of `sorted_`.
  Result<Roaring64Map> Load(size_t first, size_t last) const;
  // Rows of the file (any order) whose bitmaps are unioned.
  Result<Roaring64Map> LoadRows(std::span<const uint64_t> rows) const;

  std::unique_ptr<format::FileReader> file_;
  Array keys_;
  std::vector<int64_t> sorted_;  // the valid keys' rows, in key order
  std::vector<uint64_t> null_rows_;
};

}  // namespace lancet::index
