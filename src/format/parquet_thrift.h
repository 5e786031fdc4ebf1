// The Thrift compact protocol's type nibbles, shared by the Parquet footer's encoder
// (parquet_thrift_write.cc) and decoder (parquet_thrift_read.cc).
#pragma once

#include <cstdint>

namespace lancet::format::parquet {

enum class CompactType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

}  // namespace lancet::format::parquet
