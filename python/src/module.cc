#include "module.h"
#include "errors.h"

PYBIND11_MODULE(_lancet, m) {
  m.doc() = "Lancet's C++ core; use the `lancet` package, not this module.";
  lancet::python::RegisterErrors(m);
  lancet::python::RegisterTypes(m);
  lancet::python::RegisterArrays(m);
  lancet::python::RegisterReaders(m);
  lancet::python::RegisterDataset(m);
  lancet::python::RegisterWrite(m);
  lancet::python::RegisterBlob(m);
  lancet::python::RegisterMedia(m);
  lancet::python::RegisterFragments(m);
  lancet::python::RegisterVideoInfo(m);
  lancet::python::RegisterSearch(m);
}
