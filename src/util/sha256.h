// SHA-256 (FIPS 180-4), used to digest long values and blob payloads in dumps.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace lancet {

/// \brief Incremental SHA-256 hasher.
///
/// Feed bytes with Update() any number of times, then call Finish() once.
/// Not thread-safe; one hasher per thread. After Finish() the hasher must be
/// Reset() before reuse.
class Sha256 {
 public:
  static constexpr size_t kDigestSize = 32;
  static constexpr size_t kBlockSize = 64;
  using Digest = std::array<uint8_t, kDigestSize>;

  Sha256() { Reset(); }

  /// Returns the hasher to its initial state (empty message).
  void Reset();
  void Update(std::span<const uint8_t> bytes);
  void Update(std::string_view bytes) {
    Update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  /// Pads the message and returns the digest.
  Digest Finish();
  /// Finish() as 64 lowercase hex characters.
  std::string FinishHex();

 private:
  void Compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, kBlockSize> pending_;
  size_t pending_size_ = 0;
  uint64_t total_bytes_ = 0;
};

/// Lowercase hex digest of `bytes`.
std::string Sha256Hex(std::span<const uint8_t> bytes);
std::string Sha256Hex(std::string_view bytes);

/// Lowercase hex of arbitrary bytes ("00ff...").
std::string ToHex(std::span<const uint8_t> bytes);

}  // namespace lancet
