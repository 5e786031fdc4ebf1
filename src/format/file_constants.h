// Constants of the Lance 2.x file container shared by its reader and writer (format
// layer, private): the footer magic and the type URLs of the protobuf Any wrappers.
#pragma once

namespace lancet::format {

inline constexpr char kMagic[4] = {'L', 'A', 'N', 'C'};
inline constexpr const char* kPageLayoutUrl = "/lance.encodings21.PageLayout";
inline constexpr const char* kColumnEncodingUrl = "/lance.encodings.ColumnEncoding";

}  // namespace lancet::format
