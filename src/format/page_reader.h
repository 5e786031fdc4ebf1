// Readers of the structural page layouts of Lance 2.1/2.2 (docs/format §7.3-7.6):
// mini-block, full-zip and constant. Private to the format layer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "format/assemble.h"
#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/io/object_store.h"

namespace lancet::format::internal {

namespace pb = ::lance::encodings21;

/// A decoded piece of a page (a mini-block chunk, a full-zip span, ...): its levels
/// and its visible values. Immutable once built; shared by the slices that use it.
struct DecodedUnit {
  std::vector<uint16_t> rep;  // empty if the page has no repetition
  std::vector<uint16_t> def;  // canonical (see CanonicalNull); empty = all 0
  uint64_t num_levels = 0;    // == values.num_values when rep and def are empty
  encoding::DataBlock values;
};

/// Levels [level_begin, level_end) and values [value_begin, value_end) of a unit.
struct Slice {
  std::shared_ptr<const DecodedUnit> unit;
  uint64_t level_begin = 0, level_end = 0;
  uint64_t value_begin = 0, value_end = 0;
};

/// Page-relative rows [begin, end).
struct RowRange {
  uint64_t begin = 0, end = 0;
};

/// Where a page lives and how to name it in errors.
struct PageSource {
  std::shared_ptr<io::RandomAccessFile> file;
  std::string context;  // "<path>: column c page p"
  std::vector<io::ByteRange> buffers;
  uint64_t num_rows = 0;
};

/// \brief Decodes rows of one page. Thread-safe; page-level metadata (chunk tables,
/// dictionaries, constant-layout levels) is loaded on first use and cached.
class PageReader {
 public:
  virtual ~PageReader() = default;
  /// For each range (sorted, disjoint, within the page) appends to (*out)[i] the slices
  /// covering exactly its rows, reading only the bytes those rows need.
  virtual Status Read(std::span<const RowRange> ranges, std::vector<std::vector<Slice>>* out) const = 0;
  /// The page's layers, innermost first.
  virtual const std::vector<LayerKind>& layer_kinds() const = 0;
  /// "mini-block", "full-zip" or "constant", with its encodings.
  virtual std::string Describe() const = 0;
};

/// Parses `layout` (no I/O). NotSupported for Blob V1 and unknown layouts; Corruption
/// for layouts whose buffers do not match the page.
Result<std::unique_ptr<PageReader>> MakePageReader(PageSource source, const pb::PageLayout& layout);

}  // namespace lancet::format::internal
