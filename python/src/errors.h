// Status → Python exception mapping for the _lancet extension module.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <utility>

#include "lancet/result.h"
#include "lancet/status.h"

namespace lancet::python {

/// What a NotFound status means where it was returned: a missing file or dataset
/// (FileNotFoundError), or a name the caller passed that does not exist (ValueError).
enum class NotFoundMeans : uint8_t { kMissingData, kBadArgument };

/// Carries a non-OK Status out of a binding; the registered translator turns it into
/// the lancet exception class for its code, with the C++ message.
class StatusError : public std::exception {
 public:
  StatusError(Status status, NotFoundMeans not_found) : status_(std::move(status)), not_found_(not_found) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const Status& status() const { return status_; }
  NotFoundMeans not_found() const { return not_found_; }

 private:
  Status status_;
  NotFoundMeans not_found_;
};

/// Throws StatusError unless `st` is OK.
inline void Check(const Status& st, NotFoundMeans not_found = NotFoundMeans::kMissingData) {
  if (!st.ok()) throw StatusError(st, not_found);
}

/// The value of `r`, or throws StatusError.
template <typename T>
T Unwrap(Result<T> r, NotFoundMeans not_found = NotFoundMeans::kMissingData) {
  Check(r.status(), not_found);
  return std::move(r).value();
}

/// Runs `f` with the GIL released (I/O and decoding need no Python) and returns its result.
template <typename F>
auto WithoutGil(F&& f) -> decltype(f()) {
  pybind11::gil_scoped_release nogil;
  return f();
}

/// Adds `_set_error_classes` and the StatusError translator to `m`.
void RegisterErrors(pybind11::module_& m);

}  // namespace lancet::python
