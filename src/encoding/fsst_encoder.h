// FSST compression on the write side (docs/format §8, "Fsst"): a table of up to
// 255 symbols of 1-8 bytes, learned from a sample of the page, replaces byte
// strings by one-byte codes; code 255 escapes a literal byte. The table format
// is the one src/encoding/fsst.cc reads.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace lancet::encoding {

/// Bytes of a serialized symbol table.
inline constexpr uint64_t kFsstTableBytes = 8 + 256 * 8 + 256;

/// \brief A trained FSST symbol table that compresses strings. Immutable once
/// trained.
class FsstEncoder {
 public:
  /// Learns a table from a sample of values i = [0, offsets.size()-1), value i
  /// being data[offsets[i], offsets[i+1]).
  static FsstEncoder Train(std::span<const uint8_t> data, std::span<const uint64_t> offsets);

  /// Compressed size / raw size of the training sample with the final table.
  double sample_ratio() const { return sample_ratio_; }

  /// The kFsstTableBytes-byte table the Fsst encoding carries.
  std::vector<uint8_t> SerializeTable() const;

  /// Compresses every value; `out_offsets` gets offsets.size() entries from 0.
  void Compress(std::span<const uint8_t> data, std::span<const uint64_t> offsets, std::vector<uint8_t>* out,
                std::vector<uint64_t>* out_offsets) const;

 private:
  struct Symbol {
    uint64_t value = 0;  // little-endian bytes, zero above len
    uint8_t len = 0;
  };
  struct HashEntry {
    uint64_t value = 0;
    uint8_t len = 0;  // 0: empty
    uint8_t code = 0;
  };
  static constexpr uint32_t kHashBits = 12;
  static constexpr uint16_t kNoShort = 0xFFFF;

  void Clear();
  /// Adds a symbol unless it is a duplicate or its 3-byte prefix is taken.
  bool Add(Symbol s);
  /// Fills the 1-2 byte lookup after the symbols are in.
  void Finalize();
  /// Code (< 256) and length of the symbol at the start of `word` (`remaining`
  /// bytes valid), or len 0 for an escape.
  void Match(uint64_t word, uint64_t remaining, uint8_t* code, uint8_t* len) const;
  /// Greedy compression of one string into `out`; returns the bytes written.
  size_t CompressOne(const uint8_t* p, size_t n, uint8_t* out) const;

  std::vector<Symbol> symbols_;
  std::vector<HashEntry> hash_ = std::vector<HashEntry>(size_t{1} << kHashBits);
  // Index: the first two bytes (b0 | b1 << 8); value: code | len << 8, or
  // kNoShort.
  std::vector<uint16_t> short_ = std::vector<uint16_t>(1 << 16, kNoShort);
  std::array<uint16_t, 256> single_{};  // code of each 1-byte symbol, or kNoShort
  double sample_ratio_ = 1.0;
};

}  // namespace lancet::encoding
