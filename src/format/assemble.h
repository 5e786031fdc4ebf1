// Turning repetition/definition levels plus leaf values into Arrow arrays
// (docs/format §7.2). Private to the format layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "lancet/array.h"

namespace lancet::format::internal {

/// Whether a rep/def layer is a list (offsets) or an item (struct or leaf validity).
enum class LayerKind : uint8_t { kItem, kList };

/// Canonical definition levels: 0 = valid at every layer; for layer i counted
/// innermost first, 2i+1 = null at layer i and 2i+2 = empty list at layer i. Pages
/// declare their own level numbering (which layers are nullable); converting to this
/// form lets pages with different layer flags be concatenated.
inline uint16_t CanonicalNull(size_t layer) { return static_cast<uint16_t>(2 * layer + 1); }
inline uint16_t CanonicalEmpty(size_t layer) { return static_cast<uint16_t>(2 * layer + 2); }

/// The levels and values of one leaf column over a run of whole rows.
struct LeafLevels {
  std::vector<uint16_t> rep;  // empty if the leaf has no list ancestors
  std::vector<uint16_t> def;  // canonical; empty = all 0
  uint64_t num_levels = 0;
  encoding::DataBlock values;  // one value per visible level
};

/// Slots of one layer of one leaf, outermost layer first.
struct LayerSlots {
  std::vector<uint8_t> valid;    // one byte per slot
  std::vector<int64_t> offsets;  // list layers: slots+1 offsets into the next layer
};

/// A leaf's layers and its leaf array, ready for assembly.
struct LeafData {
  std::vector<LayerSlots> layers;  // outermost first; the last one is the leaf
  Array leaf;
};

/// Layer kinds of every leaf under `field` (pre-order), outermost first.
void LeafLayerKinds(const Field& field, std::vector<std::vector<LayerKind>>* out,
                    std::vector<const Field*>* leaves);

/// Number of leaf columns under `field`.
size_t CountLeaves(const Field& field);

/// Replays `levels` through `kinds` (outermost first), then builds the leaf array of
/// `leaf_type`. Corruption naming `context` for levels that contradict the layers.
Result<LeafData> Unravel(const LeafLevels& levels, const std::vector<LayerKind>& kinds, const DataType& leaf_type,
                         const std::string& context);

/// Builds the array of `field` with `num_rows` rows from its leaves (pre-order; nullptr
/// for a leaf the file lacks, read as nulls).
Result<Array> AssembleField(const Field& field, const std::vector<const LeafData*>& leaves, int64_t num_rows,
                            const std::string& context);

}  // namespace lancet::format::internal
