// Just enough XML for S3's responses: the text of named elements, entities decoded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lancet::io::s3 {

/// The raw content of every <tag>...</tag> in `doc`, in order (not nested in itself).
std::vector<std::string_view> XmlElements(std::string_view doc, std::string_view tag);
/// Whether `doc` holds the end of element `root`: its closing tag, or the element
/// written self-closed as servers do for an empty answer.
bool XmlClosed(std::string_view doc, std::string_view root);
/// The decoded text of the first <tag>, or nullopt.
std::optional<std::string> XmlText(std::string_view doc, std::string_view tag);
/// &amp; &lt; &gt; &quot; &apos; and numeric references decoded.
std::string XmlDecode(std::string_view s);
/// Escapes & < > for element text we send.
std::string XmlEscape(std::string_view s);
/// "2026-12-01T09:00:00.000Z" → ms since the epoch; nullopt if malformed.
std::optional<int64_t> ParseIsoTimeMs(std::string_view s);

}  // namespace lancet::io::s3
