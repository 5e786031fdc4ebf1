#include "lancet/catalog/names.h"

#include <cstdio>
#include <string>

namespace lancet::catalog {
namespace {

// Control characters and quotes shown escaped, so the message itself is safe to print.
std::string Printable(std::string_view name) {
  std::string out;
  for (const char c : name.substr(0, 64)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  if (name.size() > 64) out += "...";
  return out;
}

Status Invalid(std::string_view name, const std::string& why) {
  return NamespaceError(ErrorCode::kInvalidInput, "invalid name '" + Printable(name) + "': " + why);
}

}  // namespace

Status ValidateName(std::string_view name) {
  if (name.empty()) return NamespaceError(ErrorCode::kInvalidInput, "invalid name: it is empty");
  if (name == "." || name == "..") return Invalid(name, "'.' and '..' are not names");
  if (name.size() > kMaxNameBytes) {
    return Invalid(name, "longer than " + std::to_string(kMaxNameBytes) + " bytes");
  }
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\') return Invalid(name, std::string("it contains '") + c + "'");
    if (c == '$') return Invalid(name, "it contains '$', the delimiter of namespace ids");
    if (u < 0x20 || u == 0x7f) return Invalid(name, "it contains a control character");
  }
  return Status::OK();
}

Status ValidateId(const Id& id, bool allow_root) {
  if (id.empty() && !allow_root) {
    return NamespaceError(ErrorCode::kInvalidInput, "an empty id (the root namespace) is not allowed here");
  }
  for (const std::string& part : id) RETURN_IF_ERROR(ValidateName(part));
  return Status::OK();
}

}  // namespace lancet::catalog
