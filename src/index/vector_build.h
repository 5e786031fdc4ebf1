// Rebuilding a vector index segment for OptimizeIndices. Internal to the index layer.
#pragma once

#include "lancet/index/vector_index.h"

namespace lancet::index {

/// A new segment of index `model` over every fragment of `dataset`, reusing `model`'s
/// IVF centroids and quantizer (PQ codebook, SQ bounds) without training, as the
/// reference's optimize merges new rows into an index. Writes the files; commits
/// nothing. NotSupported for kinds Lancet does not build.
Result<table::IndexMetadata> RebuildVectorSegment(const table::Dataset& dataset, const table::IndexMetadata& model);

}  // namespace lancet::index
