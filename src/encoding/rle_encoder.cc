#include "encoding/rle_encoder.h"

#include <cstring>

namespace lancet::encoding {

template <typename T>
uint64_t CountRuns(std::span<const T> values) {
  if (values.empty()) return 0;
  uint64_t runs = 1;
  // Compare bit patterns so NaNs and -0.0 count as the values they are stored
  // as.
  for (size_t i = 1; i < values.size(); ++i) runs += std::memcmp(&values[i], &values[i - 1], sizeof(T)) != 0;
  return runs;
}

template <typename T>
void RleEncode(std::span<const T> values, std::vector<uint8_t>* run_values, std::vector<uint8_t>* run_lengths) {
  auto emit = [&](const T& v, uint64_t len) {
    const size_t at = run_values->size();
    run_values->resize(at + sizeof(T));
    std::memcpy(run_values->data() + at, &v, sizeof(T));
    run_lengths->push_back(static_cast<uint8_t>(len));
  };
  size_t i = 0;
  while (i < values.size()) {
    size_t j = i + 1;
    while (j < values.size() && j - i < kMaxRleRun && std::memcmp(&values[j], &values[i], sizeof(T)) == 0) ++j;
    emit(values[i], j - i);
    i = j;
  }
}

#define LANCET_INSTANTIATE_RLE(T)                     \
  template uint64_t CountRuns<T>(std::span<const T>); \
  template void RleEncode<T>(std::span<const T>, std::vector<uint8_t>*, std::vector<uint8_t>*);
LANCET_INSTANTIATE_RLE(uint8_t)
LANCET_INSTANTIATE_RLE(uint16_t)
LANCET_INSTANTIATE_RLE(uint32_t)
LANCET_INSTANTIATE_RLE(uint64_t)
#undef LANCET_INSTANTIATE_RLE

}  // namespace lancet::encoding
