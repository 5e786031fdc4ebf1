// String functions and LIKE over UTF-8. Internal to the expr layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"

namespace lancet::expr {

/// Number of characters (code points) of UTF-8 `s`; a stray byte counts as one.
int64_t CharLength(std::string_view s);

/// Lower- or upper-cases `s` as Rust's str::to_lowercase/to_uppercase do for the scripts in
/// our tables (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic) and leaves caseless
/// characters (CJK, Hebrew, Arabic, marks, emoji...) alone. NotSupported naming the code
/// point for any other character, so a missing table entry never gives a wrong answer.
Result<std::string> ChangeCase(std::string_view s, bool upper);

/// A compiled LIKE pattern: `%` any run, `_` one character, `\` escapes the next character.
class LikePattern {
 public:
  explicit LikePattern(std::string_view pattern);
  bool Matches(std::string_view s) const;

 private:
  enum class Part : uint8_t { kByte, kAnyOne, kAnyRun };
  std::vector<std::pair<Part, char>> parts_;
};

}  // namespace lancet::expr
