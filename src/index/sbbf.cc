#include "index/sbbf.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace lancet::index {
namespace {

// Parquet's salts: the odd constants that pick one bit per word from the low 32 bits.
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

uint32_t WordBit(uint32_t key, int word) { return uint32_t{1} << ((key * kSalt[word]) >> 27); }

uint32_t LoadWord(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

void StoreWord(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Putze, Sanders and Singler's estimate for a blocked filter of 8 words of 32 bits:
// a Poisson number of keys lands in a block, each setting one bit per word.
double FalsePositiveRate(uint64_t ndv, int log2_bytes) {
  if (ndv == 0) return 0.0;
  const double bits = std::ldexp(8.0, log2_bytes), n = static_cast<double>(ndv);
  if (n / bits > 2.0) return 1.0;
  const double lambda = 8.0 * 32.0 / (bits / n), log_lambda = std::log(lambda);
  double sum = 0.0;
  // Smallest terms first, as the reference sums them, so the sizes agree to the last bit.
  for (int i = 749; i >= 0; --i) {
    const double log_p = i * log_lambda - lambda - std::lgamma(i + 1.0);
    const double log_miss = 8.0 * std::log(1.0 - std::pow(1.0 - 1.0 / 32.0, i));
    sum += std::exp(log_p + log_miss);
  }
  return std::min(sum, 1.0);
}

bool ValidSize(uint64_t n) { return n % Sbbf::kBlockBytes == 0 && n >= Sbbf::kMinBytes && n <= Sbbf::kMaxBytes; }

}  // namespace

Result<uint64_t> Sbbf::BytesFor(uint64_t ndv, double fpp) {
  if (!(fpp >= 0.0 && fpp < 1.0)) {
    return Status::InvalidArgument("bloom filter probability must be in [0, 1), got " + std::to_string(fpp));
  }
  int low = 0, high = 64;
  while (high > low + 1) {
    const int mid = (low + high) / 2;
    (FalsePositiveRate(ndv, mid) <= fpp ? high : low) = mid;
  }
  return uint64_t{1} << std::clamp(high, 5, 27);
}

Result<Sbbf> Sbbf::Empty(uint64_t num_bytes) {
  if (!ValidSize(num_bytes)) return Status::InvalidArgument("bad bloom filter size " + std::to_string(num_bytes));
  return Sbbf(std::vector<uint8_t>(num_bytes, 0));
}

Result<Sbbf> Sbbf::Load(std::span<const uint8_t> bytes) {
  if (!ValidSize(bytes.size())) {
    return Status::InvalidArgument("bloom filter of " + std::to_string(bytes.size()) +
                                   " bytes (want a multiple of 32 in [32, 128 MiB])");
  }
  return Sbbf(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

// The block is chosen by the high 32 bits scaled to the block count, the bits by the low 32.
const uint8_t* Sbbf::Block(uint64_t hash) const {
  const uint64_t blocks = bytes_.size() / kBlockBytes;
  return bytes_.data() + (((hash >> 32) * blocks) >> 32) * kBlockBytes;
}

uint8_t* Sbbf::Block(uint64_t hash) { return const_cast<uint8_t*>(std::as_const(*this).Block(hash)); }

void Sbbf::Insert(uint64_t hash) {
  uint8_t* block = Block(hash);
  const auto key = static_cast<uint32_t>(hash);
  for (int w = 0; w < 8; ++w) StoreWord(block + 4 * w, LoadWord(block + 4 * w) | WordBit(key, w));
}

bool Sbbf::Check(uint64_t hash) const {
  const uint8_t* block = Block(hash);
  const auto key = static_cast<uint32_t>(hash);
  for (int w = 0; w < 8; ++w) {
    if ((LoadWord(block + 4 * w) & WordBit(key, w)) == 0) return false;
  }
  return true;
}

}  // namespace lancet::index
