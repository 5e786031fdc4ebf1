// The Unicode facts the full-text analyzer needs, as tables generated from the same
// sources the reference uses (scripts/gen-fts-unicode.rs, scripts/gen-fts-folding.mjs),
// and lookups over them. Internal to the index layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lancet::index::fts {

struct CodeRange {
  uint32_t first;
  uint32_t last;  // inclusive
};
struct LowerMapping {
  uint32_t from;
  uint32_t to;
  uint32_t to2;  // 0 unless the lower case is two characters
};
struct FoldMapping {
  uint32_t from;
  const char* to;
};

extern const CodeRange kAlphanumeric[];
extern const size_t kAlphanumericSize;
extern const LowerMapping kLower[];
extern const size_t kLowerSize;
extern const FoldMapping kFold[];
extern const size_t kFoldSize;

/// Rust's char::is_alphanumeric (Alphabetic or a Nd/Nl/No number).
bool IsAlphanumeric(uint32_t cp);
/// Appends Rust's char::to_lowercase of `cp` (context-free; one or two characters) as UTF-8.
void AppendLower(uint32_t cp, std::string* out);
/// What the reference's ASCII folding makes of non-ASCII `cp`, or nullptr when it stays.
const char* FoldToAscii(uint32_t cp);

/// Appends `cp` as UTF-8.
void AppendUtf8(uint32_t cp, std::string* out);

/// Decodes the character at `*pos` of `s` and advances past it. Invalid UTF-8 decodes
/// as U+FFFD, one per maximal invalid subsequence, as Rust's from_utf8_lossy does.
uint32_t NextCodePoint(std::string_view s, size_t* pos);

}  // namespace lancet::index::fts
