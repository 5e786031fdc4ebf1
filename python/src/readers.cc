#include "readers.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "capsules.h"
#include "errors.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

// Keeps `owner` (a dataset) alive for as long as the reader, which borrows from it.
class KeepAliveReader : public RecordBatchReader {
 public:
  KeepAliveReader(std::unique_ptr<RecordBatchReader> inner, std::shared_ptr<const void> owner)
      : owner_(std::move(owner)), inner_(std::move(inner)) {}
  const Schema& schema() const override { return inner_->schema(); }
  Result<std::optional<RecordBatch>> Next() override { return inner_->Next(); }

 private:
  std::shared_ptr<const void> owner_;  // declared first: destroyed after inner_
  std::unique_ptr<RecordBatchReader> inner_;
};

// Pulls lancet RecordBatch objects from a Python iterator. Next() may run on a thread
// without the GIL (a writer), so it takes the GIL itself; a Python exception is kept
// and re-raised once the writer returns.
class PyIterReader : public RecordBatchReader {
 public:
  PyIterReader(Schema schema, py::iterator it) : schema_(std::move(schema)), it_(std::move(it)) {}
  ~PyIterReader() override {
    py::gil_scoped_acquire gil;
    it_ = py::iterator();
    error_.reset();
  }
  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    py::gil_scoped_acquire gil;
    if (done_) return std::optional<RecordBatch>();
    try {
      PyObject* item = PyIter_Next(it_.ptr());
      if (item == nullptr) {
        if (PyErr_Occurred() != nullptr) throw py::error_already_set();
        done_ = true;
        return std::optional<RecordBatch>();
      }
      py::object value = py::reinterpret_steal<py::object>(item);
      RecordBatch batch = py::cast<RecordBatch>(value);
      if (batch.schema.fields != schema_.fields) {
        done_ = true;
        return Status::InvalidArgument("a batch of the input has schema\n" + batch.schema.ToString() +
                                       "\nbut the stream's is\n" + schema_.ToString());
      }
      return std::optional<RecordBatch>(std::move(batch));
    } catch (py::error_already_set& e) {
      done_ = true;
      std::string msg = e.what();
      error_ = std::make_unique<py::error_already_set>(std::move(e));
      return Status::InvalidArgument("the input iterator raised: " + msg);
    } catch (const py::cast_error& e) {
      done_ = true;
      return Status::InvalidArgument(std::string("the input iterator gave something that is not a batch: ") + e.what());
    }
  }

  std::unique_ptr<py::error_already_set> TakeError() { return std::move(error_); }

 private:
  Schema schema_;
  py::iterator it_;
  bool done_ = false;
  std::unique_ptr<py::error_already_set> error_;
};

void BindReader(py::module_& m) {
  py::class_<PyReader>(m, "RecordBatchReader")
      .def_property_readonly("schema", &PyReader::schema)
      .def("__iter__", [](PyReader& r) -> PyReader& { return r; })
      .def("__next__",
           [](PyReader& r) {
             std::optional<RecordBatch> b = r.Next();
             if (!b) throw py::stop_iteration();
             return std::move(*b);
           })
      .def("read_next", &PyReader::Next)
      .def("close", &PyReader::Close)
      .def("__enter__", [](PyReader& r) -> PyReader& { return r; })
      .def("__exit__", [](PyReader& r, py::args) { r.Close(); })
      .def(
          "__arrow_c_stream__", [](PyReader& r, py::object requested_schema) { return StreamCapsule(r.Take()); },
          py::arg("requested_schema") = py::none())
      .def("__arrow_c_schema__", [](const PyReader& r) { return SchemaCapsule(r.schema()); });
}

}  // namespace

PyReader::PyReader(std::unique_ptr<RecordBatchReader> reader, std::shared_ptr<const void> keep_alive)
    : schema_(reader->schema()), keep_alive_(std::move(keep_alive)), reader_(std::move(reader)) {}

PyReader::~PyReader() {
  // A scan's destructor waits for its in-flight reads; they need no Python.
  py::gil_scoped_release nogil;
  reader_.reset();
  keep_alive_.reset();
}

std::optional<RecordBatch> PyReader::Next() {
  Result<std::optional<RecordBatch>> next = WithoutGil([&]() -> Result<std::optional<RecordBatch>> {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reader_) return std::optional<RecordBatch>();
    Result<std::optional<RecordBatch>> got = reader_->Next();
    // At the end, or after an error, the stream is spent: free it now.
    if (!got.ok() || !*got) reader_.reset();
    return got;
  });
  Check(next.status());
  return std::move(*next);
}

void PyReader::Close() {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(mu_);
  reader_.reset();
}

std::unique_ptr<RecordBatchReader> PyReader::Take() {
  std::unique_ptr<RecordBatchReader> inner;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mu_);
    inner = std::move(reader_);
  }
  if (!inner) {
    throw StatusError(Status::InvalidArgument("this stream was already consumed or closed"),
                      NotFoundMeans::kBadArgument);
  }
  if (!keep_alive_) return inner;
  return std::make_unique<KeepAliveReader>(std::move(inner), keep_alive_);
}

void RethrowSourceError(RecordBatchReader& reader) {
  auto* it = dynamic_cast<PyIterReader*>(&reader);
  if (it == nullptr) return;
  if (std::unique_ptr<py::error_already_set> error = it->TakeError()) {
    error->restore();
    throw py::error_already_set();
  }
}

void RegisterReaders(py::module_& m) {
  BindReader(m);
  m.def("reader_from_batches", [](Schema schema, std::vector<RecordBatch> batches) {
    return std::make_unique<PyReader>(MakeBatchVectorReader(std::move(schema), std::move(batches)), nullptr);
  });
  m.def("reader_from_iterator", [](Schema schema, py::iterable batches) {
    return std::make_unique<PyReader>(std::make_unique<PyIterReader>(std::move(schema), py::iter(batches)), nullptr);
  });
  m.def("reader_from_stream_capsule",
        [](py::capsule stream) { return std::make_unique<PyReader>(ImportStreamCapsule(stream), nullptr); });
}

}  // namespace lancet::python
