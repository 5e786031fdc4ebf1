// Helpers shared by the encoding tests: encoding builders and byte/DataBlock accessors.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/decoders.h"

namespace lancet::encoding::testing {

inline pb::CompressiveEncoding FlatEnc(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}

inline pb::CompressiveEncoding VariableEnc(uint64_t offset_bits = 32) {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = FlatEnc(offset_bits);
  return e;
}

inline BufferPtr Bytes(const std::vector<uint8_t>& v) { return Buffer::Copy(std::span<const uint8_t>(v)); }
inline BufferPtr Bytes(const std::string& s) { return Buffer::Copy(std::string_view(s)); }

template <typename T>
void Put(std::vector<uint8_t>* out, T v) {
  size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &v, sizeof(T));
}

template <typename T>
std::vector<T> Values(const DataBlock& b) {
  EXPECT_EQ(b.kind, DataBlock::Kind::kFixed);
  EXPECT_EQ(b.bits_per_value, sizeof(T) * 8);
  std::vector<T> out(b.num_values);
  if (b.num_values > 0) std::memcpy(out.data(), b.data->data(), b.num_values * sizeof(T));
  return out;
}

inline std::vector<std::string> Strings(const DataBlock& b) {
  EXPECT_EQ(b.kind, DataBlock::Kind::kVariable);
  std::vector<std::string> out;
  for (uint64_t i = 0; i < b.num_values; ++i) {
    uint64_t s = b.OffsetAt(i), e = b.OffsetAt(i + 1);
    out.emplace_back(reinterpret_cast<const char*>(b.data->data()) + s, e - s);
  }
  return out;
}

/// A mini-block Variable chunk as the reference writes it: chunk-relative offsets
/// starting at (n+1)*width, the bytes, then 0x48 padding to the offset width.
template <typename O = uint32_t>
std::vector<uint8_t> VariableChunk(const std::vector<std::string>& values) {
  std::vector<uint8_t> out;
  O pos = static_cast<O>((values.size() + 1) * sizeof(O));
  Put<O>(&out, pos);
  for (const auto& v : values) {
    pos += static_cast<O>(v.size());
    Put<O>(&out, pos);
  }
  for (const auto& v : values) out.insert(out.end(), v.begin(), v.end());
  while (out.size() % sizeof(O) != 0) out.push_back(0x48);
  return out;
}

#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                     \
  auto LANCET_CONCAT(_r_, __LINE__) = (expr);                               \
  ASSERT_TRUE(LANCET_CONCAT(_r_, __LINE__).ok())                            \
      << LANCET_CONCAT(_r_, __LINE__).status().ToString();                  \
  lhs = std::move(LANCET_CONCAT(_r_, __LINE__)).value()

#define EXPECT_CORRUPT(expr)                                                            \
  do {                                                                                  \
    auto _st = ::lancet::ToStatus(expr);                                                \
    EXPECT_TRUE(_st.IsCorruption()) << "expected Corruption, got " << _st.ToString();   \
  } while (0)

#define EXPECT_NOT_SUPPORTED(expr)                                                       \
  do {                                                                                   \
    auto _st = ::lancet::ToStatus(expr);                                                 \
    EXPECT_TRUE(_st.IsNotSupported()) << "expected NotSupported, got " << _st.ToString(); \
  } while (0)

}  // namespace lancet::encoding::testing
