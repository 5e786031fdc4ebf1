// TEMPORARY until the IVF branch merges: no vector index types are recognised.
#include "lancet/index/vector_index.h"

namespace lancet::index {
std::optional<VectorIndexType> VectorTypeOf(const table::IndexMetadata&) { return std::nullopt; }
const char* VectorIndexTypeName(VectorIndexType) { return "?"; }
Result<std::shared_ptr<const VectorIndex>> VectorIndex::Open(const table::Dataset&, const table::IndexMetadata&) {
  return Status::NotSupported("vector indexes");
}
}  // namespace lancet::index
