// File-like access to one blob: the package's BlobFile (an io.RawIOBase) reads through
// this, so a decoder that seeks and reads small pieces fetches only what it touches.
#include <cstring>
#include <memory>
#include <string>

#include "dataset.h"
#include "errors.h"
#include "lancet/blob/blob_file.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

struct PyBlobReader {
  std::shared_ptr<const table::Dataset> dataset;  // the blob's object store lives there
  std::unique_ptr<blob::BlobFile> file;

  blob::BlobFile& Get() {
    if (!file) {
      throw StatusError(Status::InvalidArgument("I/O operation on a closed blob file"), NotFoundMeans::kBadArgument);
    }
    return *file;
  }
};

PyBlobReader OpenBlob(const PyDataset& d, const std::string& column, uint64_t row, bool by_address,
                      uint64_t read_ahead) {
  blob::BlobFileOptions options;
  options.read_ahead = read_ahead;
  Result<std::unique_ptr<blob::BlobFile>> file = WithoutGil([&] {
    return blob::BlobFile::Open(*d.dataset, column, row,
                                by_address ? table::RowKey::kRowAddress : table::RowKey::kRowId, options);
  });
  Check(file.status(), NotFoundMeans::kBadArgument);
  PyBlobReader reader;
  reader.dataset = d.dataset;
  reader.file = file.MoveValue();
  return reader;
}

py::bytes Read(PyBlobReader& r, int64_t n) {
  blob::BlobFile& f = r.Get();
  const uint64_t want = n < 0 ? f.size() - f.tell() : static_cast<uint64_t>(n);
  Result<BufferPtr> got = WithoutGil([&] { return f.read(want); });
  BufferPtr b = Unwrap(std::move(got));
  return py::bytes(reinterpret_cast<const char*>(b->data()), b->size());
}

// Fills as much of `target` as one read gives, as RawIOBase.readinto does.
uint64_t ReadInto(PyBlobReader& r, const py::buffer& target) {
  blob::BlobFile& f = r.Get();
  Py_buffer view;
  if (PyObject_GetBuffer(target.ptr(), &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
    throw py::error_already_set();
  }
  Result<BufferPtr> got = WithoutGil([&]() -> Result<BufferPtr> {
    ASSIGN_OR_RETURN(BufferPtr bytes, f.read(static_cast<uint64_t>(view.len)));
    if (bytes->size() > 0) std::memcpy(view.buf, bytes->data(), bytes->size());
    return bytes;
  });
  PyBuffer_Release(&view);
  return Unwrap(std::move(got))->size();
}

}  // namespace

void RegisterBlob(py::module_& m) {
  py::class_<PyBlobReader>(m, "BlobReader")
      .def("size", [](PyBlobReader& r) { return r.Get().size(); })
      .def("tell", [](PyBlobReader& r) { return r.Get().tell(); })
      .def("seek", [](PyBlobReader& r, uint64_t pos) { Check(r.Get().seek(pos), NotFoundMeans::kBadArgument); })
      .def("read", &Read, py::arg("n") = -1)
      .def("readinto", &ReadInto)
      .def("close", [](PyBlobReader& r) { r.file.reset(); })
      .def_property_readonly("closed", [](const PyBlobReader& r) { return !r.file; });
  m.def("open_blob", &OpenBlob, py::arg("dataset"), py::arg("column"), py::arg("row"), py::arg("by_address") = false,
        py::arg("read_ahead") = blob::BlobFileOptions{}.read_ahead);
}

}  // namespace lancet::python
