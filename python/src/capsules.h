// The Arrow PyCapsule interface: C Data Interface structs carried in named capsules
// ("arrow_schema", "arrow_array", "arrow_array_stream") that release what they hold
// when destroyed unless a consumer moved it out first.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <utility>

#include "lancet/array.h"
#include "lancet/c_data.h"
#include "lancet/record_batch_reader.h"

namespace lancet::python {

pybind11::capsule SchemaCapsule(const Schema& schema);
pybind11::capsule FieldCapsule(const Field& field);
/// (schema capsule, array capsule) of `batch` as a struct array; buffers are shared.
pybind11::tuple BatchCapsules(const RecordBatch& batch);
/// (schema capsule, array capsule) of one array, its schema node named `name`.
pybind11::tuple ArrayCapsules(const Field& field, const Array& array);
/// A stream pulling from `reader` one batch per get_next.
pybind11::capsule StreamCapsule(std::unique_ptr<RecordBatchReader> reader);

/// Imports (and consumes) the schema in an "arrow_schema" capsule.
Schema ImportSchemaCapsule(const pybind11::capsule& schema);
Field ImportFieldCapsule(const pybind11::capsule& schema);
/// Imports (and consumes) one array and the field its schema capsule describes.
std::pair<Field, Array> ImportArrayCapsules(const pybind11::capsule& schema, const pybind11::capsule& array);
/// Imports (and consumes) a struct array as a batch of the capsule's schema.
RecordBatch ImportBatchCapsules(const pybind11::capsule& schema, const pybind11::capsule& array);
/// Moves the stream out of an "arrow_array_stream" capsule into a reader that imports
/// one batch per Next(); the capsule is left released.
std::unique_ptr<RecordBatchReader> ImportStreamCapsule(const pybind11::capsule& stream);

}  // namespace lancet::python
