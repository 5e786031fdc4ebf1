#include "capsules.h"

#include <functional>
#include <string>
#include <utility>

#include "errors.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

constexpr const char* kSchemaName = "arrow_schema";
constexpr const char* kArrayName = "arrow_array";
constexpr const char* kStreamName = "arrow_array_stream";

// Capsule destructors: a consumer that moved the struct out set its release to null,
// so only what nobody took is released here. They run with the GIL held, and the
// release callbacks only drop Lancet buffers, which needs no Python.
void DeleteSchema(PyObject* capsule) {
  auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, kSchemaName));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

void DeleteArray(PyObject* capsule) {
  auto* a = static_cast<ArrowArray*>(PyCapsule_GetPointer(capsule, kArrayName));
  if (a == nullptr) {
    PyErr_Clear();
    return;
  }
  if (a->release != nullptr) a->release(a);
  delete a;
}

void DeleteStream(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, kStreamName));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

// Hands `owned` to a new capsule; if the capsule cannot be made, releases it here.
template <typename T>
py::capsule Wrap(std::unique_ptr<T> owned, const char* name, void (*destructor)(PyObject*)) {
  PyObject* cap = PyCapsule_New(owned.get(), name, destructor);
  if (cap == nullptr) {
    if (owned->release != nullptr) owned->release(owned.get());
    throw py::error_already_set();
  }
  owned.release();
  return py::reinterpret_steal<py::capsule>(cap);
}

py::capsule NewSchemaCapsule(const std::function<Status(ArrowSchema*)>& fill) {
  auto owned = std::make_unique<ArrowSchema>();
  owned->release = nullptr;
  Check(fill(owned.get()));
  return Wrap(std::move(owned), kSchemaName, &DeleteSchema);
}

py::capsule NewArrayCapsule(const std::function<Status(ArrowArray*)>& fill) {
  auto owned = std::make_unique<ArrowArray>();
  owned->release = nullptr;
  Check(fill(owned.get()));
  return Wrap(std::move(owned), kArrayName, &DeleteArray);
}

template <typename T>
T* Pointer(const py::capsule& capsule, const char* name) {
  void* p = PyCapsule_GetPointer(capsule.ptr(), name);
  if (p == nullptr) {
    PyErr_Clear();
    throw StatusError(Status::InvalidArgument(std::string("expected a PyCapsule named '") + name + "'"),
                      NotFoundMeans::kBadArgument);
  }
  auto* t = static_cast<T*>(p);
  if (t->release == nullptr) {
    throw StatusError(Status::InvalidArgument(std::string("the '") + name + "' capsule was already consumed"),
                      NotFoundMeans::kBadArgument);
  }
  return t;
}

// Reads an ArrowArrayStream batch by batch, importing each batch as it arrives.
class CStreamReader : public RecordBatchReader {
 public:
  CStreamReader(ArrowArrayStream stream, Schema schema) : stream_(stream), schema_(std::move(schema)) {}
  ~CStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (stream_.release == nullptr) return std::optional<RecordBatch>();
    ArrowArray array;
    array.release = nullptr;
    const int rc = stream_.get_next(&stream_, &array);
    if (rc != 0) {
      const char* msg = stream_.get_last_error != nullptr ? stream_.get_last_error(&stream_) : nullptr;
      Status st = Status::IOError("the Arrow stream failed (errno " + std::to_string(rc) +
                                  "): " + (msg != nullptr ? msg : "no message"));
      stream_.release(&stream_);
      return st;
    }
    if (array.release == nullptr) {
      // The end: releasing now frees the producer early, not at our destruction.
      stream_.release(&stream_);
      return std::optional<RecordBatch>();
    }
    ASSIGN_OR_RETURN(RecordBatch batch, ImportRecordBatch(&array, schema_));
    return std::optional<RecordBatch>(std::move(batch));
  }

 private:
  ArrowArrayStream stream_;
  Schema schema_;
};

}  // namespace

py::capsule SchemaCapsule(const Schema& schema) {
  return NewSchemaCapsule([&](ArrowSchema* out) { return ExportSchema(schema, out); });
}

py::capsule FieldCapsule(const Field& field) {
  return NewSchemaCapsule([&](ArrowSchema* out) { return ExportField(field, out); });
}

py::tuple BatchCapsules(const RecordBatch& batch) {
  py::capsule schema = SchemaCapsule(batch.schema);
  py::capsule array = NewArrayCapsule([&](ArrowArray* out) { return ExportRecordBatch(batch, out); });
  return py::make_tuple(schema, array);
}

py::tuple ArrayCapsules(const Field& field, const Array& array) {
  py::capsule schema = FieldCapsule(field);
  py::capsule arr = NewArrayCapsule([&](ArrowArray* out) { return ExportArray(array, out); });
  return py::make_tuple(schema, arr);
}

py::capsule StreamCapsule(std::unique_ptr<RecordBatchReader> reader) {
  auto owned = std::make_unique<ArrowArrayStream>();
  owned->release = nullptr;
  Check(ExportBatchStream(std::move(reader), owned.get()));
  return Wrap(std::move(owned), kStreamName, &DeleteStream);
}

Schema ImportSchemaCapsule(const py::capsule& schema) {
  return Unwrap(ImportSchema(Pointer<ArrowSchema>(schema, kSchemaName)));
}

Field ImportFieldCapsule(const py::capsule& schema) {
  return Unwrap(ImportField(Pointer<ArrowSchema>(schema, kSchemaName)));
}

std::pair<Field, Array> ImportArrayCapsules(const py::capsule& schema, const py::capsule& array) {
  ArrowArray* a = Pointer<ArrowArray>(array, kArrayName);
  Result<Field> field = ImportField(Pointer<ArrowSchema>(schema, kSchemaName));
  if (!field.ok()) {
    a->release(a);
    Check(field.status(), NotFoundMeans::kBadArgument);
  }
  Array imported = Unwrap(ImportArray(a, field->type), NotFoundMeans::kBadArgument);
  return {std::move(field).value(), std::move(imported)};
}

RecordBatch ImportBatchCapsules(const py::capsule& schema, const py::capsule& array) {
  ArrowSchema* s = Pointer<ArrowSchema>(schema, kSchemaName);
  ArrowArray* a = Pointer<ArrowArray>(array, kArrayName);
  return Unwrap(ImportRecordBatch(a, s), NotFoundMeans::kBadArgument);
}

std::unique_ptr<RecordBatchReader> ImportStreamCapsule(const py::capsule& stream) {
  ArrowArrayStream* s = Pointer<ArrowArrayStream>(stream, kStreamName);
  ArrowArrayStream moved = *s;
  s->release = nullptr;
  ArrowSchema schema;
  schema.release = nullptr;
  if (int rc = moved.get_schema(&moved, &schema); rc != 0) {
    const char* msg = moved.get_last_error != nullptr ? moved.get_last_error(&moved) : nullptr;
    Status st = Status::IOError("the Arrow stream gave no schema (errno " + std::to_string(rc) +
                                "): " + (msg != nullptr ? msg : "no message"));
    moved.release(&moved);
    Check(st);
  }
  auto imported = ImportSchema(&schema);
  if (!imported.ok()) {
    moved.release(&moved);
    Check(imported.status(), NotFoundMeans::kBadArgument);
  }
  return std::make_unique<CStreamReader>(moved, std::move(imported).value());
}

}  // namespace lancet::python
