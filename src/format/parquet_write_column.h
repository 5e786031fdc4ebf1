// One leaf column of the Parquet writer: turns shredded batches into data pages
// (v1: RLE levels, then PLAIN or RLE_DICTIONARY values), compresses them and holds
// them until the row group is flushed, when its dictionary page goes first.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/parquet_metadata.h"
#include "format/parquet_schema_write.h"
#include "format/parquet_shred.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// \brief Min/max in a leaf's sort order (parquet.thrift, ColumnOrder TYPE_ORDER), null
/// count and, for floats, NaN count over one column chunk.
///
/// Floats (and FLOAT16) follow TYPE_ORDER's writer rules: NaN never bounds a chunk (one
/// of only NaN has no min/max), a zero min is written as -0 and a zero max as +0, and
/// nan_count is always set. Byte arrays compare as unsigned bytes and are not truncated.
/// Null columns have no bounds.
class ChunkStatistics {
 public:
  explicit ChunkStatistics(SortOrder order) : order_(order) {}
  /// `plain` is the value's PLAIN encoding (byte arrays without their length prefix).
  void Update(std::string_view plain);
  void AddNulls(int64_t n) { null_count_ += n; }
  /// Resets for the next chunk after returning this one's statistics.
  Statistics Take();

 private:
  bool Less(std::string_view a, std::string_view b) const;
  SortOrder order_;
  std::optional<std::string> min_, max_;
  int64_t null_count_ = 0;
  int64_t nan_count_ = 0;
};

struct ColumnWriteOptions {
  Codec codec = Codec::kSnappy;
  int compression_level = 0;
  uint64_t page_bytes = uint64_t{1} << 20;
  bool dictionary = true;
  bool statistics = true;
};

/// \brief Pages of one leaf column for the current row group. Not thread-safe.
class ColumnChunkWriter {
 public:
  ColumnChunkWriter(LeafPlan plan, const ColumnWriteOptions& options);

  /// Encodes a batch's slots; a page is cut at a row boundary once it passes page_bytes.
  /// The dictionary is given up for PLAIN (for the rest of the chunk) once its
  /// encoding passes page_bytes.
  Status Append(const LeafLevels& levels);

  /// Encoded bytes held for the current row group (finished pages plus the open one).
  uint64_t buffered_bytes() const;

  /// Passes the chunk's pages to `emit` (the dictionary page first) as they are to
  /// appear at file offset `file_offset`, and returns the chunk's metadata. The writer
  /// is then ready for the next row group.
  Result<ColumnMetaData> Flush(int64_t file_offset, const std::function<Status(std::string_view)>& emit);

 private:
  void EncodeValue(const Array& a, int64_t i);
  Status CutPage();
  Status AddPage(PageType type, std::string body, int32_t num_values, Encoding encoding, std::string* out);
  uint64_t OpenPageBytes() const;

  LeafPlan plan_;
  ColumnWriteOptions options_;
  int def_width_, rep_width_;
  std::string scratch_;

  // The open page.
  std::vector<uint32_t> page_def_, page_rep_, page_indices_;
  std::vector<uint8_t> page_bools_;
  std::string page_plain_;
  int32_t page_slots_ = 0;
  int32_t page_values_ = 0;
  int32_t next_size_check_ = 1;

  // The row group's chunk.
  bool use_dictionary_;
  bool fallback_pending_ = false;
  // Values of up to 8 bytes (every fixed width but wide FIXED_LEN_BYTE_ARRAY) are keyed
  // by their bits, the rest by their PLAIN bytes.
  std::unordered_map<uint64_t, uint32_t> dict_fixed_;
  std::unordered_map<std::string, uint32_t> dict_bytes_;
  uint32_t dict_size_ = 0;
  std::string dict_plain_;
  std::vector<std::string> pages_;  // header + compressed body each
  uint64_t pages_bytes_ = 0;
  int64_t num_slots_ = 0;
  int64_t uncompressed_bytes_ = 0;
  int32_t dict_pages_ = 0, plain_pages_ = 0;
  ChunkStatistics stats_;
};

/// Appends value `i` of `a` (a leaf array of plan.type) in Parquet PLAIN encoding;
/// booleans as one byte 0/1. Exposed for tests.
void AppendPlainValue(const LeafPlan& plan, const Array& a, int64_t i, std::string* out);

}  // namespace lancet::format::parquet
