// The _lancet extension module: each binding file adds its part through one Register*.
#pragma once

#include <pybind11/pybind11.h>

namespace lancet::python {

void RegisterTypes(pybind11::module_& m);
void RegisterArrays(pybind11::module_& m);
void RegisterReaders(pybind11::module_& m);
void RegisterDataset(pybind11::module_& m);
void RegisterWrite(pybind11::module_& m);
void RegisterBlob(pybind11::module_& m);
void RegisterMedia(pybind11::module_& m);
void RegisterFragments(pybind11::module_& m);
void RegisterVideoInfo(pybind11::module_& m);
void RegisterSearch(pybind11::module_& m);

}  // namespace lancet::python
