// Definition and repetition levels to Arrow-layout arrays (the Dremel record assembly
// of the Parquet format): validity bitmaps from definition levels, list and map offsets
// from repetition levels, struct members from their own leaves.
#pragma once

#include <cstdint>
#include <vector>

#include "format/parquet_decode.h"
#include "format/parquet_read_schema.h"
#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet::format::parquet {

/// \brief One leaf column chunk decoded: its levels and its non-null values.
struct LeafColumn {
  uint64_t num_levels = 0;
  std::vector<int16_t> def, rep;  // empty when the leaf's max level is 0
  ValueBuffer values;

  int16_t Def(uint64_t i, int16_t max_def) const { return def.empty() ? max_def : def[i]; }
  int16_t Rep(uint64_t i) const { return rep.empty() ? 0 : rep[i]; }
};

/// \brief The part of a leaf column one batch covers: level positions [begin, end) and
/// the index of the first non-null value at `begin`.
struct LeafCursor {
  uint64_t begin = 0, end = 0, value = 0;
};

/// Assembles `node`'s array for the batch the cursors describe. `columns` and `cursors`
/// are indexed by leaf index and must be filled for every leaf under `node`. Corruption
/// when leaves disagree on row structure or values run out.
Result<Array> AssembleNode(const ReadNode& node, const std::vector<ReadLeaf>& leaves,
                           const std::vector<LeafColumn>& columns, const std::vector<LeafCursor>& cursors);

}  // namespace lancet::format::parquet
