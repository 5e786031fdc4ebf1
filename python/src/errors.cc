#include "errors.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

// The classes come from lancet/errors.py; the package hands them over at import so the
// hierarchy (LancetError plus the matching builtin) is defined once, in Python.
py::dict& ErrorClasses() {
  // Leaked on purpose: module teardown order must not run a py::dict destructor after
  // the interpreter is gone.
  static auto* classes = new py::dict();
  return *classes;
}

// Keys of the dict lancet/errors.py passes to _set_error_classes.
const char* ClassKey(const StatusError& e) {
  switch (e.status().code()) {
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return e.not_found() == NotFoundMeans::kBadArgument ? "InvalidArgument" : "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kNotSupported:
      return "NotSupported";
    case StatusCode::kCommitConflict:
      return "CommitConflict";
    case StatusCode::kOutOfRange:
      return "OutOfRange";
    default:
      return "Base";
  }
}

void SetPythonError(const StatusError& e) {
  const char* key = ClassKey(e);
  py::dict& classes = ErrorClasses();
  PyObject* type = PyExc_RuntimeError;
  if (classes.contains(key)) {
    type = classes[key].ptr();
  } else if (classes.contains("Base")) {
    type = classes["Base"].ptr();
  }
  PyErr_SetString(type, e.status().message().c_str());
}

}  // namespace

void RegisterErrors(py::module_& m) {
  m.def("_set_error_classes", [](py::dict classes) {
    ErrorClasses().clear();
    for (auto item : classes) ErrorClasses()[item.first] = item.second;
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      SetPythonError(e);
    }
  });
}

}  // namespace lancet::python
