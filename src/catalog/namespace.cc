#include "lancet/catalog/namespace.h"

namespace lancet::catalog {
namespace {

// The spec code travels in the message as "[namespace error N] ...": Status has no room
// for it, and callers above this layer only need ErrorCodeOf.
constexpr std::string_view kTag = "[namespace error ";

StatusCode StatusCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNamespaceNotFound:
    case ErrorCode::kTableNotFound:
      return StatusCode::kNotFound;
    case ErrorCode::kNamespaceAlreadyExists:
    case ErrorCode::kTableAlreadyExists:
      return StatusCode::kAlreadyExists;
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNamespaceNotEmpty:
      return StatusCode::kInvalidArgument;
    case ErrorCode::kUnsupported:
      return StatusCode::kNotSupported;
    case ErrorCode::kConcurrentModification:
      return StatusCode::kCommitConflict;
    default:
      return StatusCode::kInternal;
  }
}

}  // namespace

Status NamespaceError(ErrorCode code, std::string message) {
  return Status(StatusCodeFor(code),
                std::string(kTag) + std::to_string(static_cast<int>(code)) + "] " + std::move(message));
}

ErrorCode ErrorCodeOf(const Status& status) {
  const std::string& m = status.message();
  const size_t at = m.find(kTag);
  if (at != std::string::npos) {
    const int code = std::atoi(m.c_str() + at + kTag.size());
    if (code >= 0 && code <= 23) return static_cast<ErrorCode>(code);
  }
  switch (status.code()) {
    case StatusCode::kNotFound:
      return ErrorCode::kTableNotFound;
    case StatusCode::kAlreadyExists:
      return ErrorCode::kTableAlreadyExists;
    case StatusCode::kInvalidArgument:
      return ErrorCode::kInvalidInput;
    case StatusCode::kNotSupported:
      return ErrorCode::kUnsupported;
    case StatusCode::kCommitConflict:
      return ErrorCode::kConcurrentModification;
    default:
      return ErrorCode::kInternal;
  }
}

std::string JoinId(const Id& id, const std::string& delimiter) {
  std::string out;
  for (size_t i = 0; i < id.size(); ++i) out += (i ? delimiter : "") + id[i];
  return out;
}

Id SplitId(const std::string& text, const std::string& delimiter) {
  Id out;
  if (text.empty() || text == delimiter || delimiter.empty()) return text.empty() || text == delimiter ? out : Id{text};
  size_t begin = 0;
  for (;;) {
    const size_t at = text.find(delimiter, begin);
    out.push_back(text.substr(begin, at == std::string::npos ? std::string::npos : at - begin));
    if (at == std::string::npos) break;
    begin = at + delimiter.size();
  }
  return out;
}

}  // namespace lancet::catalog
