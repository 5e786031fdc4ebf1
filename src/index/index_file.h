// Reading and writing the Lance files an index segment consists of. Internal to the
// index layer.
#pragma once

#include <memory>
#include <string>

#include "index/scalar_index.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"

namespace lancet::index {

/// Opens `<dir>/<name>` of `store`.
Result<std::unique_ptr<format::FileReader>> OpenIndexFile(const io::ObjectStore& store, const std::string& dir,
                                                          const std::string& name);

/// Corruption naming the file unless its top-level field `index` is called `name`, has
/// type `type` and is stored as one column (so its leaf column is `index`, as long as
/// the fields before it are leaves too).
Status CheckIndexColumn(const format::FileReader& file, int index, const std::string& name, const DataType& type);

/// Rows [begin, end) of top-level leaf field `index`.
Result<Array> ReadIndexColumn(const format::FileReader& file, int index, uint64_t begin, uint64_t end);
/// Rows `rows` (ascending, absolute) of column `index`, reading only what they need.
Result<Array> TakeIndexColumn(const format::FileReader& file, int index, std::span<const uint64_t> rows);

/// The schema metadata value under `key`, or empty.
std::string IndexFileMetadata(const format::FileReader& file, const std::string& key);

/// Starts `<dir>/<name>` of `store` with `schema`.
Result<std::unique_ptr<format::FileWriter>> CreateIndexFile(std::shared_ptr<io::ObjectStore> store,
                                                            const std::string& dir, const std::string& name,
                                                            const Schema& schema);

/// Finishes `writer` and names the file it wrote as IndexMetadata records it.
Result<IndexFileEntry> FinishIndexFile(format::FileWriter& writer, const std::string& name);

/// `{"num_bitmaps":N}`-style JSON stats the reference stores under lance:index_stats.
inline constexpr const char* kIndexStatsKey = "lance:index_stats";

}  // namespace lancet::index
