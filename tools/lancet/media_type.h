// The media type `lancet ingest` records for a file, guessed from its extension.
#pragma once

#include <string_view>

namespace lancet::cli {

/// The IANA media type of common image, audio, video and document extensions
/// (case-insensitive, e.g. "a/b.JPG" → "image/jpeg"); "application/octet-stream"
/// for any other name.
std::string_view MediaTypeForPath(std::string_view path);

}  // namespace lancet::cli
