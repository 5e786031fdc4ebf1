// Result<T>: a value or an error Status.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "lancet/status.h"

namespace lancet {

/// \brief Either a value of type T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  /// REQUIRES: ok().
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T ValueOr(T fallback) const& { return ok() ? *value_ : std::move(fallback); }
  /// Moves the value out. REQUIRES: ok().
  T MoveValue() { return std::move(*value_); }

 private:
  Status status_;
  std::optional<T> value_;
};

template <typename T>
const Status& ToStatus(const Result<T>& r) { return r.status(); }

}  // namespace lancet

#define LANCET_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value();

/// `ASSIGN_OR_RETURN(auto x, F());` declares x from F()'s value, or returns its error.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  LANCET_ASSIGN_OR_RETURN_IMPL(LANCET_CONCAT(_lancet_r_, __LINE__), lhs, rexpr)
