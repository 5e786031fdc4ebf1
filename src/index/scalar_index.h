// The scalar index plugin interface: what one index type builds and how it answers a
// leaf predicate. Internal to the index layer and the scan layer above it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <roaring/roaring64map.hh>

#include "lancet/array.h"
#include "lancet/index/scalar_index.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"

namespace lancet::index {


/// One leaf of a filter an index may answer, its literals already converted to the
/// indexed column's type (the list item type for kHasAny/kHasAll).
struct ScalarQuery {
  enum class Kind : uint8_t {
    kEquals,    // column = values[0]
    kIn,        // column IN (values...)
    kRange,     // lower/upper bounds, either may be absent
    kIsNull,    // column IS NULL
    kPrefix,    // column LIKE 'prefix%' (utf8 columns)
    kHasAny,    // array_has_any(column, values) / array_has(column, values[0])
    kHasAll,    // array_has_all(column, values)
  };
  struct Bound {
    Array value;  // length 1
    bool inclusive = true;
  };
  Kind kind = Kind::kEquals;
  Array values;
  std::optional<Bound> lower, upper;
  std::string prefix;
};

/// What a search found.
struct SearchResult {
  /// Row addresses ((fragment id << 32) | offset), or stable row ids when the index was
  /// built over them (exact indexes on a dataset with stable row ids).
  Roaring64Map rows;
  /// false: a superset to be rechecked by the scan (ZoneMap, BloomFilter).
  bool exact = true;
};

/// \brief An opened index segment. Thread-safe; pages are read on demand through io.
class ScalarIndexReader {
 public:
  virtual ~ScalarIndexReader() = default;
  virtual ScalarIndexType type() const = 0;
  /// Whether Search answers `query`; the scan evaluates the others itself. The exact
  /// types refuse literals of another type than the column's and NaN literals.
  virtual bool Supports(const ScalarQuery& query) const = 0;
  /// The rows that match (or may match). Corruption naming the index file when it is
  /// broken; never a wrong answer for a well-formed file.
  virtual Result<SearchResult> Search(const ScalarQuery& query) const = 0;
};

/// Opens the segment in directory `dir` of `store` (`<dataset>/_indices/<uuid>`) over a
/// column of `value_type` (the list's item type for a LabelList). Reads only what the
/// type keeps in memory (BTree's page lookup, Bitmap's keys, the zone rows).
/// NotFound/Corruption name the file.
Result<std::unique_ptr<ScalarIndexReader>> OpenScalarIndex(ScalarIndexType type,
                                                           std::shared_ptr<io::ObjectStore> store,
                                                           const std::string& dir, const DataType& value_type);

/// A file of a segment, as IndexMetadata.files records it.
struct IndexFileEntry {
  std::string path;  // relative to the segment directory
  uint64_t size_bytes = 0;
};

struct BuildOptions {
  /// The reference's params of the type (BTree: none; ZoneMap: rows_per_zone;
  /// BloomFilter: number_of_items, probability). InvalidArgument for unknown keys.
  std::map<std::string, std::string> params;
  /// Bytes of values a builder may hold before it spills sorted runs.
  uint64_t memory_budget = 256ULL << 20;
  /// A local directory for spilled runs (deleted by the builder); empty = $TMPDIR.
  std::string spill_dir;
};

/// \brief Builds one segment. Not thread-safe.
class ScalarIndexBuilder {
 public:
  virtual ~ScalarIndexBuilder() = default;
  /// Appends values with their rows (parallel): row addresses for ZoneMap/BloomFilter,
  /// in ascending address order; row ids for the others, in any order.
  virtual Status Add(const Array& values, std::span<const uint64_t> rows) = 0;
  /// Writes the segment's files into the directory and returns them with their sizes.
  virtual Result<std::vector<IndexFileEntry>> Finish() = 0;
};

/// A builder for a column `field` (its type; a list field for LabelList) writing into
/// `dir` of `store`. InvalidArgument for a type the index cannot hold or a bad param.
Result<std::unique_ptr<ScalarIndexBuilder>> MakeScalarIndexBuilder(ScalarIndexType type, const Field& field,
                                                                   std::shared_ptr<io::ObjectStore> store,
                                                                   const std::string& dir,
                                                                   const BuildOptions& options);

// Per-type factories behind OpenScalarIndex / MakeScalarIndexBuilder, one pair per
// type file (btree.cc, bitmap.cc, label_list.cc, zonemap.cc, bloom_filter.cc).
#define LANCET_SCALAR_INDEX_FACTORIES(Name)                                                                   \
  Result<std::unique_ptr<ScalarIndexReader>> Open##Name##Index(std::shared_ptr<io::ObjectStore> store,        \
                                                               const std::string& dir, const DataType& value_type); \
  Result<std::unique_ptr<ScalarIndexBuilder>> Make##Name##Builder(const Field& field,                         \
                                                                  std::shared_ptr<io::ObjectStore> store,     \
                                                                  const std::string& dir, const BuildOptions& options);
LANCET_SCALAR_INDEX_FACTORIES(BTree)
LANCET_SCALAR_INDEX_FACTORIES(Bitmap)
LANCET_SCALAR_INDEX_FACTORIES(LabelList)
LANCET_SCALAR_INDEX_FACTORIES(ZoneMap)
LANCET_SCALAR_INDEX_FACTORIES(BloomFilter)
#undef LANCET_SCALAR_INDEX_FACTORIES

}  // namespace lancet::index
