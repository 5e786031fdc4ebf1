// Snowball's English ("Porter2") stemmer as the reference runs it: lance 12 stems with
// frostem, generated from Snowball's 2025 English algorithm, which Debian's libstemmer
// (Snowball 2.2) predates. Internal to the index layer.
#pragma once

#include <string>
#include <string_view>

namespace lancet::index::fts {

/// The stem of `word` (valid UTF-8; the algorithm treats any non-ASCII character as a
/// consonant and counts lengths in characters).
std::string StemEnglish(std::string_view word);

}  // namespace lancet::index::fts
