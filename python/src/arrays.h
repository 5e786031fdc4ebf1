// Lancet Buffers seen from Python: read-only buffer-protocol objects that keep the
// Buffer alive, so numpy can view column data without copying it.
#pragma once

#include <pybind11/pybind11.h>

#include "lancet/buffer.h"

namespace lancet::python {

/// A Python object exposing `buffer`'s bytes read-only (None for a null buffer).
pybind11::object BufferObject(BufferPtr buffer);

/// Copies the bytes of any C-contiguous buffer-protocol object into a Buffer.
BufferPtr CopyBuffer(const pybind11::handle& object);

}  // namespace lancet::python
