#include "encoding/dictionary_encoder.h"

#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace lancet::encoding {

namespace {

std::string_view ValueAt(std::span<const uint8_t> data, std::span<const uint64_t> offsets, size_t i) {
  return {reinterpret_cast<const char*>(data.data()) + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
}

}  // namespace

std::optional<VariableDictionary> BuildVariableDictionary(std::span<const uint8_t> data,
                                                          std::span<const uint64_t> offsets, uint64_t max_items) {
  if (offsets.empty()) return std::nullopt;
  const size_t n = offsets.size() - 1;
  VariableDictionary dict;
  dict.indices.reserve(n);
  dict.item_offsets.push_back(0);
  std::unordered_map<std::string_view, uint32_t> ids;
  ids.reserve(std::min<uint64_t>(max_items, n) * 2);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view v = ValueAt(data, offsets, i);
    auto [it, inserted] = ids.try_emplace(v, static_cast<uint32_t>(ids.size()));
    if (inserted) {
      if (ids.size() > max_items || dict.item_data.size() + v.size() > UINT32_MAX) return std::nullopt;
      dict.item_data.insert(dict.item_data.end(), v.begin(), v.end());
      dict.item_offsets.push_back(static_cast<uint32_t>(dict.item_data.size()));
    }
    dict.indices.push_back(it->second);
  }
  return dict;
}

uint64_t SampleCardinality(std::span<const uint8_t> data, std::span<const uint64_t> offsets, uint64_t sample) {
  if (offsets.empty()) return 0;
  const size_t n = std::min<uint64_t>(offsets.size() - 1, sample);
  std::unordered_set<std::string_view> seen;
  seen.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) seen.insert(ValueAt(data, offsets, i));
  return seen.size();
}

std::optional<VariableDictionary> BuildFixedDictionary(const uint8_t* data, uint64_t n, uint64_t width,
                                                       uint64_t max_items) {
  VariableDictionary dict;
  dict.indices.reserve(n);
  dict.item_offsets.push_back(0);
  std::unordered_map<std::string_view, uint32_t> ids;
  ids.reserve(std::min(max_items, n) * 2);
  for (uint64_t i = 0; i < n; ++i) {
    const std::string_view v(reinterpret_cast<const char*>(data) + i * width, width);
    auto [it, inserted] = ids.try_emplace(v, static_cast<uint32_t>(ids.size()));
    if (inserted) {
      if (ids.size() > max_items) return std::nullopt;
      dict.item_data.insert(dict.item_data.end(), v.begin(), v.end());
    }
    dict.indices.push_back(it->second);
  }
  return dict;
}

uint64_t SampleFixedCardinality(const uint8_t* data, uint64_t sample, uint64_t width) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(sample * 2);
  for (uint64_t i = 0; i < sample; ++i) seen.emplace(reinterpret_cast<const char*>(data) + i * width, width);
  return seen.size();
}

std::vector<uint8_t> EncodeVariableBlock(std::span<const uint32_t> offsets, std::span<const uint8_t> data) {
  const uint32_t bytes_start = static_cast<uint32_t>(8 + offsets.size() * 4);
  std::vector<uint8_t> out(bytes_start + data.size());
  const uint32_t bits = 32;
  std::memcpy(out.data(), &bits, 4);
  std::memcpy(out.data() + 4, &bytes_start, 4);
  if (!offsets.empty()) std::memcpy(out.data() + 8, offsets.data(), offsets.size() * 4);
  if (!data.empty()) std::memcpy(out.data() + bytes_start, data.data(), data.size());
  return out;
}

}  // namespace lancet::encoding
