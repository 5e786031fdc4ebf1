// Row-bound checks shared by the 2.0 and 2.1+ file readers (format layer, private).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "lancet/status.h"

namespace lancet::format::internal {

/// InvalidArgument naming `path` unless [begin, end) lies within `num_rows`.
inline Status CheckRowRange(const std::string& path, uint64_t begin, uint64_t end, uint64_t num_rows) {
  if (begin > end || end > num_rows) {
    return Status::InvalidArgument(path + ": rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                                   ") outside a file of " + std::to_string(num_rows) + " rows");
  }
  return Status::OK();
}

/// InvalidArgument naming `path` and the first row of `rows` at or past `num_rows`.
inline Status CheckRows(const std::string& path, std::span<const uint64_t> rows, uint64_t num_rows) {
  for (uint64_t r : rows) {
    if (r >= num_rows) {
      return Status::InvalidArgument(path + ": row " + std::to_string(r) + " outside a file of " +
                                     std::to_string(num_rows) + " rows");
    }
  }
  return Status::OK();
}

}  // namespace lancet::format::internal
