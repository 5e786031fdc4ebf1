// The reference's built-in stop-word lists. Internal to the index layer.
#pragma once

#include <span>
#include <string_view>

namespace lancet::index::fts {

/// The built-in list for `language` (a name of the reference's Language enum), or an empty
/// span when Lancet does not carry one.
std::span<const std::string_view> BuiltInStopWords(std::string_view language);

}  // namespace lancet::index::fts
