// An index's statistics as a JSON object: `index list --format json` and the browser
// view's table page give the same keys.
#pragma once

#include "lancet/index/scalar_index.h"
#include "lancet/json_writer.h"

namespace lancet::cli {

/// {name, type, column, usable, segments, indexed_rows, unindexed_rows, size_bytes}
void WriteIndexStatsJson(JsonWriter& w, const index::IndexStats& s);

}  // namespace lancet::cli
