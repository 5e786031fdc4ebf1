// Rebuilding a full-text index segment for OptimizeIndices. Internal to the index layer.
#pragma once

#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/index_metadata.h"

namespace lancet::index {

/// A new segment (not committed) with `model`'s name and tokenizer settings over every
/// fragment of `dataset`: what optimize puts in place of segments that miss fragments.
Result<table::IndexMetadata> RebuildTextSegment(const table::Dataset& dataset, const table::IndexMetadata& model);

}  // namespace lancet::index
