#include "lancet/status.h"

namespace lancet {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kAlreadyExists: return "Already exists";
    case StatusCode::kIOError: return "IO error";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kCommitConflict: return "Commit conflict";
    case StatusCode::kOutOfRange: return "Out of range";
    case StatusCode::kInternal: return "Internal error";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) state_ = std::make_shared<const State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return ok() ? kEmpty : state_->message;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(StatusCodeName(state_->code));
  s += ": ";
  s += state_->message;
  return s;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += state_->message;
  return Status(state_->code, std::move(m));
}

}  // namespace lancet
