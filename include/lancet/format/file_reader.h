// FileReader: reads Lance data files (format 2.0, 2.1 and 2.2).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/io/object_store.h"

namespace lancet::format {

struct FileVersion {
  uint16_t major = 0;
  uint16_t minor = 0;
  std::string ToString() const { return std::to_string(major) + "." + std::to_string(minor); }
};

/// Metadata key on a struct field whose children are stored together in one column
/// (e.g. the Blob V2 descriptor).
inline constexpr const char* kPackedStructKey = "lance-encoding:packed";

/// True if `field` is stored as one column (a leaf in Lance's column order):
/// anything but struct/list/large_list/map, or a packed struct.
bool IsLeafField(const Field& field);

/// \brief Reader of one Lance 2.x data file. Thread-safe after Open.
///
/// A logical field maps to its leaf columns in pre-order (see IsLeafField); callers
/// (the table layer) pass the column index of each leaf, or -1 for a leaf the file
/// lacks (read as nulls).
class FileReader {
 public:
  virtual ~FileReader() = default;

  /// Reads the footer, offset tables, column metadata and global buffer 0.
  /// `known_size` (0 = unknown) saves a size request. Corruption/NotSupported name the path.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<io::RandomAccessFile> file, uint64_t known_size = 0);

  virtual const std::string& path() const = 0;
  /// Whether reads are as cheap as memory access (a mapped local file): callers then
  /// keep work on the CPU's threads instead of overlapping waits.
  virtual bool cheap_reads() const = 0;
  virtual FileVersion version() const = 0;
  virtual uint64_t num_rows() const = 0;
  virtual size_t num_columns() const = 0;
  /// The schema stored in the file (global buffer 0), converted to Lancet types.
  virtual const Schema& file_schema() const = 0;

  /// The bytes of global buffer `index` (0 is the FileDescriptor). Corruption naming the
  /// path for an index the file does not have.
  virtual Result<BufferPtr> ReadGlobalBuffer(uint32_t index) const = 0;

  /// Decodes rows [begin, end) of `field` from its leaf columns.
  virtual Result<Array> ReadRange(const Field& field, std::span<const int> leaf_columns, uint64_t begin,
                                  uint64_t end) const = 0;
  /// Decodes rows `rows` (any order, repeats allowed) of `field`, reading only the byte
  /// ranges those rows need: at most one range per fixed-width value and two per
  /// variable-width value before merging.
  virtual Result<Array> Take(const Field& field, std::span<const int> leaf_columns,
                             std::span<const uint64_t> rows) const = 0;

  /// Human-readable pages and encodings of column `column` (for `lancet info`).
  virtual Result<std::string> DescribeColumn(int column) const = 0;

  /// Column `column`'s pages in row order, for readers that cut their batches where a
  /// page ends (a range inside one page of a fixed-width column can be a view of the
  /// file's bytes). Empty when the file does not say (format 2.0).
  struct PageBounds {
    uint64_t end_row = 0;  // one past the page's last row
    uint64_t bytes = 0;
  };
  virtual Result<std::vector<PageBounds>> ColumnPages(int column) const = 0;
};

}  // namespace lancet::format
