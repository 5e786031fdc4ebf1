// FileReader for Lance file format 2.0 (footer version 0.3). The container is the
// 2.x one (the format notes §6); pages carry a lance.encodings.ArrayEncoding tree, and
// every field, struct and list ones included, has its own column in pre-order: a list
// column holds offsets into the rows of its item column, a struct column holds no data.
// Private to the format layer; FileReader::Open dispatches here.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lancet/format/file_reader.h"

namespace lancet::format::internal {

/// Builds a 2.0 reader from the parts FileReader::Open already parsed: the file's
/// `size`, `num_rows` and `schema` (global buffer 0) and the raw ColumnMetadata bytes
/// of every column. Parses all page encodings (no page I/O). Corruption names the path.
Result<std::unique_ptr<FileReader>> OpenV20File(std::shared_ptr<io::RandomAccessFile> file, uint64_t size,
                                                uint64_t num_rows, Schema schema,
                                                const std::vector<BufferPtr>& column_metadata);

}  // namespace lancet::format::internal
