// Status: the error type that crosses every Lancet API. No exceptions cross an API.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace lancet {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kIOError,
  kCorruption,
  kNotSupported,
  kCommitConflict,
  kOutOfRange,
  kInternal,
};

/// Names a status code ("Corruption", "NotFound", ...).
std::string_view StatusCodeName(StatusCode code);

/// \brief The outcome of an operation: OK, or a code plus a message.
///
/// OK carries no allocation, so returning success is free. Messages name the
/// file (or object) and what was wrong with it.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) { return {StatusCode::kAlreadyExists, std::move(msg)}; }
  static Status IOError(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status NotSupported(std::string msg) { return {StatusCode::kNotSupported, std::move(msg)}; }
  static Status CommitConflict(std::string msg) { return {StatusCode::kCommitConflict, std::move(msg)}; }
  static Status OutOfRange(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return ok() ? StatusCode::kOk : state_->code; }
  const std::string& message() const;
  /// "Corruption: <message>", or "OK".
  std::string ToString() const;

  /// Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsNotSupported() const { return code() == StatusCode::kNotSupported; }
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsCommitConflict() const { return code() == StatusCode::kCommitConflict; }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

}  // namespace lancet

#define LANCET_CONCAT_INNER(a, b) a##b
#define LANCET_CONCAT(a, b) LANCET_CONCAT_INNER(a, b)

/// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                              \
  do {                                                     \
    ::lancet::Status _lancet_st = ::lancet::ToStatus(expr); \
    if (!_lancet_st.ok()) return _lancet_st;               \
  } while (0)

namespace lancet {
inline const Status& ToStatus(const Status& s) { return s; }
}  // namespace lancet
