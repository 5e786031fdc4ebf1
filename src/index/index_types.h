// The reference's identifiers of each scalar index type. Internal to the index layer.
#pragma once

#include <cstdint>

#include "lancet/index/scalar_index.h"

namespace lancet::index {

/// index_details.type_url the reference writes for `type`.
const char* ScalarIndexTypeUrl(ScalarIndexType type);
/// index_version the reference writes for `type` (and the newest Lancet reads).
int32_t ScalarIndexVersion(ScalarIndexType type);

}  // namespace lancet::index
