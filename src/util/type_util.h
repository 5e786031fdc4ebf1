// Small predicates over type ids shared by several layers. Internal.
#pragma once

#include "lancet/data_type.h"

namespace lancet {

/// Signed or unsigned integers of any width (not bool, not decimals).
constexpr bool IsIntegerType(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return true;
    default:
      return false;
  }
}

}  // namespace lancet
