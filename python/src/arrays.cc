// Arrays and record batches as Python classes. The package does the numpy and pandas
// conversions from the buffers these expose (zero-copy) and builds arrays from buffers
// it computed with numpy.
#include "arrays.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "capsules.h"
#include "errors.h"
#include "lancet/array.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

struct PyBuffer {
  BufferPtr buffer;
};

void BindBuffer(py::module_& m) {
  py::class_<PyBuffer>(m, "Buffer", py::buffer_protocol())
      .def_buffer([](PyBuffer& b) {
        // A zero-length view still needs a non-null pointer for some consumers.
        static const uint8_t kEmpty = 0;
        const uint8_t* data = b.buffer->size() == 0 ? &kEmpty : b.buffer->data();
        return py::buffer_info(const_cast<uint8_t*>(data), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.buffer->size())}, {1}, /*readonly=*/true);
      })
      .def("__len__", [](const PyBuffer& b) { return b.buffer->size(); })
      .def("to_bytes", [](const PyBuffer& b) {
        return py::bytes(reinterpret_cast<const char*>(b.buffer->data()), b.buffer->size());
      });
}

Array MakeArray(DataType type, int64_t length, int64_t null_count, int64_t offset, const py::list& buffers,
                std::vector<Array> children, std::optional<Array> dictionary) {
  Array a;
  a.type = std::move(type);
  a.length = length;
  a.null_count = null_count;
  a.offset = offset;
  for (py::handle b : buffers) a.buffers.push_back(b.is_none() ? nullptr : CopyBuffer(b));
  a.children = std::move(children);
  if (dictionary) a.dictionary = std::make_shared<Array>(std::move(*dictionary));
  // A malformed layout here is the caller's input, not a corrupt file.
  if (Status st = a.Validate(); !st.ok()) {
    throw StatusError(Status::InvalidArgument(st.message()), NotFoundMeans::kBadArgument);
  }
  return a;
}

py::list BuffersOf(const Array& a) {
  py::list out;
  for (const BufferPtr& b : a.buffers) out.append(BufferObject(b));
  return out;
}

void BindArray(py::module_& m) {
  py::class_<Array>(m, "Array")
      .def(py::init(&MakeArray), py::arg("type"), py::arg("length"), py::arg("null_count"), py::arg("offset"),
           py::arg("buffers"), py::arg("children") = std::vector<Array>{}, py::arg("dictionary") = std::nullopt)
      .def_readonly("type", &Array::type)
      .def_readonly("length", &Array::length)
      .def_readonly("null_count", &Array::null_count)
      .def_readonly("offset", &Array::offset)
      .def_readonly("children", &Array::children)
      .def_property_readonly("dictionary",
                             [](const Array& a) -> std::optional<Array> {
                               if (!a.dictionary) return std::nullopt;
                               return *a.dictionary;
                             })
      .def_property_readonly("buffers", &BuffersOf)
      .def("__len__", [](const Array& a) { return a.length; })
      .def("slice",
           [](const Array& a, int64_t begin, int64_t length) {
             if (begin < 0 || length < 0 || begin + length > a.length) {
               throw StatusError(Status::OutOfRange("slice out of bounds"), NotFoundMeans::kBadArgument);
             }
             return ArraySlice(a, begin, length);
           })
      .def("take",
           [](const Array& a, const std::vector<int64_t>& indices) {
             return Unwrap(TakeRows(a, indices), NotFoundMeans::kBadArgument);
           })
      .def("equals", [](const Array& a, const Array& b) { return ArraysEqual(a, b); })
      .def_static(
          "concat",
          [](const std::vector<Array>& arrays) { return Unwrap(Concatenate(arrays), NotFoundMeans::kBadArgument); })
      .def_static("nulls", [](const DataType& type, int64_t length) {
        return Unwrap(MakeNullArray(type, length), NotFoundMeans::kBadArgument);
      });
}

RecordBatch MakeBatch(Schema schema, std::vector<Array> columns, std::optional<int64_t> num_rows) {
  if (schema.fields.size() != columns.size()) {
    throw StatusError(Status::InvalidArgument("the schema has " + std::to_string(schema.fields.size()) +
                                              " fields but " + std::to_string(columns.size()) + " columns were given"),
                      NotFoundMeans::kBadArgument);
  }
  RecordBatch b;
  b.num_rows = num_rows ? *num_rows : (columns.empty() ? 0 : columns[0].length);
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = schema.fields[i];
    if (columns[i].type != f.type) {
      throw StatusError(Status::InvalidArgument("column '" + f.name + "' is " + columns[i].type.ToString() +
                                                " but its field says " + f.type.ToString()),
                        NotFoundMeans::kBadArgument);
    }
    if (columns[i].length != b.num_rows) {
      throw StatusError(Status::InvalidArgument("column '" + f.name + "' has " + std::to_string(columns[i].length) +
                                                " rows, not " + std::to_string(b.num_rows)),
                        NotFoundMeans::kBadArgument);
    }
  }
  b.schema = std::move(schema);
  b.columns = std::move(columns);
  return b;
}

RecordBatch SliceBatch(const RecordBatch& b, int64_t begin, int64_t length) {
  if (begin < 0 || length < 0 || begin + length > b.num_rows) {
    throw StatusError(Status::OutOfRange("slice out of bounds"), NotFoundMeans::kBadArgument);
  }
  RecordBatch out;
  out.schema = b.schema;
  out.num_rows = length;
  for (const Array& c : b.columns) out.columns.push_back(ArraySlice(c, begin, length));
  return out;
}

// Values of a utf8/binary (or large_*) array as str/bytes, None for nulls: one C call per
// value instead of a Python-level slice and decode.
template <typename Offset>
py::list StringValuesOf(const Array& a, bool text) {
  const Offset* offsets = a.buffers[1]->data_as<Offset>() + a.offset;
  const char* data = a.buffers.size() > 2 && a.buffers[2] ? reinterpret_cast<const char*>(a.buffers[2]->data()) : "";
  py::list out(a.length);
  for (int64_t i = 0; i < a.length; ++i) {
    PyObject* value = nullptr;
    if (a.IsNull(i)) {
      Py_INCREF(Py_None);
      value = Py_None;
    } else {
      const char* begin = data + offsets[i];
      const auto size = static_cast<Py_ssize_t>(offsets[i + 1] - offsets[i]);
      value = text ? PyUnicode_DecodeUTF8(begin, size, "strict") : PyBytes_FromStringAndSize(begin, size);
      if (value == nullptr) throw py::error_already_set();
    }
    PyList_SET_ITEM(out.ptr(), i, value);
  }
  return out;
}

py::list StringValues(const Array& a) {
  switch (a.type.id) {
    case TypeId::kUtf8:
      return StringValuesOf<int32_t>(a, true);
    case TypeId::kBinary:
      return StringValuesOf<int32_t>(a, false);
    case TypeId::kLargeUtf8:
      return StringValuesOf<int64_t>(a, true);
    case TypeId::kLargeBinary:
      return StringValuesOf<int64_t>(a, false);
    default:
      throw StatusError(Status::InvalidArgument("not a string or binary array: " + a.type.ToString()),
                        NotFoundMeans::kBadArgument);
  }
}

void BindRecordBatch(py::module_& m) {
  py::class_<RecordBatch>(m, "RecordBatch")
      .def(py::init(&MakeBatch), py::arg("schema"), py::arg("columns"), py::arg("num_rows") = std::nullopt)
      .def_readonly("schema", &RecordBatch::schema)
      .def_readonly("num_rows", &RecordBatch::num_rows)
      .def_readonly("columns", &RecordBatch::columns)
      .def("slice", &SliceBatch)
      .def("__arrow_c_schema__", [](const RecordBatch& b) { return SchemaCapsule(b.schema); })
      .def(
          "__arrow_c_array__", [](const RecordBatch& b, py::object requested_schema) { return BatchCapsules(b); },
          py::arg("requested_schema") = py::none())
      .def_static("_import_capsules", &ImportBatchCapsules);
  m.def("_array_capsules", &ArrayCapsules);
  m.def("_import_array_capsules", &ImportArrayCapsules);
  m.def("_string_values", &StringValues);
}

}  // namespace

py::object BufferObject(BufferPtr buffer) {
  if (!buffer) return py::none();
  return py::cast(PyBuffer{std::move(buffer)});
}

BufferPtr CopyBuffer(const py::handle& object) {
  Py_buffer view;
  if (PyObject_GetBuffer(object.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
  BufferPtr out =
      Buffer::Copy(std::span<const uint8_t>(static_cast<const uint8_t*>(view.buf), static_cast<size_t>(view.len)));
  PyBuffer_Release(&view);
  return out;
}

void RegisterArrays(py::module_& m) {
  BindBuffer(m);
  BindArray(m);
  BindRecordBatch(m);
}

}  // namespace lancet::python
