// Shredding Arrow arrays into Lance leaf columns: repetition/definition levels and
// the value slots each column stores (docs/format §7.2). Format layer, private.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/array.h"

namespace lancet::format::internal {

/// \brief A leaf column of a schema and the layers above it.
///
/// `path` runs from the top-level field down to the leaf: struct members (non-packed
/// structs), list/large_list/map items, ending at the leaf field. Layers are listed
/// innermost first, as PageLayout wants them.
struct LeafColumn {
  struct Step {
    enum class Kind { kStruct, kList, kLeaf } kind = Kind::kLeaf;
    const Field* field = nullptr;
    int child_index = 0;     // struct: member taken; list: 0
    uint16_t null_def = 0;   // def level of a null at this step (0 = cannot be null)
    uint16_t empty_def = 0;  // lists: def level of an empty list
    uint16_t cont_rep = 0;   // lists: rep level of a continuation item
  };
  std::vector<Step> path;
  std::vector<::lance::encodings21::RepDefLayer> layers;
  uint16_t max_rep = 0;
  uint16_t max_def = 0;
  /// Def levels <= this have a value slot; -1 when there is no list (all visible).
  int32_t max_visible_def = -1;
  int top_level_index = 0;
  std::string name;  // dotted path
  const Field& leaf() const { return *path.back().field; }
};

/// True if `field` is stored as one column: anything but struct/list/large_list/map,
/// or a struct marked lance-encoding:packed.
bool IsLeafFieldForWrite(const Field& field);

/// The leaf columns of `schema` in pre-order. NotSupported for unstorable types.
/// The returned columns point into `schema`, which must outlive them.
Result<std::vector<LeafColumn>> LeafColumnsOf(const Schema& schema);

/// \brief Levels and value slots of rows [begin, end) of one column.
///
/// `rep`/`def` are empty when the column has no lists / no nullable layer.
/// `slots` holds one index into `leaf` per visible level (null items included),
/// `slot_null` whether that slot is a null item.
struct Shredded {
  std::vector<uint16_t> rep;
  std::vector<uint16_t> def;
  std::vector<int64_t> slots;
  std::vector<uint8_t> slot_null;
  Array leaf;
};

/// Shreds rows [begin, end) of `top` (the top-level array of column.top_level_index).
/// InvalidArgument for a null in a non-nullable field.
Status Shred(const LeafColumn& column, const Array& top, int64_t begin, int64_t end, Shredded* out);

}  // namespace lancet::format::internal
