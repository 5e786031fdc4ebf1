// Distributed writes (lancet/table/fragment_write.h) for lancet.dask: a worker writes
// fragments and returns their bytes, the driver commits every worker's bytes at once.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "errors.h"
#include "lancet/io/storage_options.h"
#include "lancet/table/fragment_write.h"
#include "module.h"
#include "readers.h"
#include "write_mode.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

table::WriteParams Params(const std::string& mode, uint64_t max_rows_per_file, bool enable_stable_row_ids,
                          const io::StorageOptions& storage_options) {
  table::WriteParams params;
  params.mode = ParseWriteMode(mode);
  params.max_rows_per_file = max_rows_per_file;
  params.enable_stable_row_ids = enable_stable_row_ids;
  params.storage_options = storage_options;
  return params;
}

std::vector<table::UncommittedFragments> Parts(const std::vector<py::bytes>& parts) {
  std::vector<table::UncommittedFragments> out;
  for (const py::bytes& b : parts) out.push_back({std::string(b), 0, 0});
  return out;
}

}  // namespace

void RegisterFragments(py::module_& m) {
  m.def(
      "write_fragments",
      [](const std::string& uri, PyReader& source, const std::string& mode, uint64_t max_rows_per_file,
         const io::StorageOptions& storage_options) {
        const table::WriteParams params = Params(mode, max_rows_per_file, false, storage_options);
        Result<table::UncommittedFragments> written = DrainSource<table::UncommittedFragments>(
            source, [&](RecordBatchReader& reader) { return table::WriteFragments(uri, reader, params); });
        const table::UncommittedFragments w = Unwrap(std::move(written), NotFoundMeans::kBadArgument);
        return py::make_tuple(py::bytes(w.bytes), w.rows, w.fragments);
      },
      py::arg("uri"), py::arg("source"), py::arg("mode") = "append",
      py::arg("max_rows_per_file") = table::WriteParams{}.max_rows_per_file,
      py::arg("storage_options") = io::StorageOptions{});
  m.def(
      "commit_fragments",
      [](const std::string& uri, const std::vector<py::bytes>& parts, const std::string& mode,
         bool enable_stable_row_ids, const io::StorageOptions& storage_options) {
        const table::WriteParams params = Params(mode, 1, enable_stable_row_ids, storage_options);
        const std::vector<table::UncommittedFragments> p = Parts(parts);
        Result<uint64_t> version = WithoutGil([&] { return table::CommitFragments(uri, p, params); });
        return Unwrap(std::move(version), NotFoundMeans::kBadArgument);
      },
      py::arg("uri"), py::arg("parts"), py::arg("mode") = "append", py::arg("enable_stable_row_ids") = false,
      py::arg("storage_options") = io::StorageOptions{});
  m.def(
      "abort_fragments",
      [](const std::string& uri, const std::vector<py::bytes>& parts, const io::StorageOptions& storage_options) {
        table::WriteParams params;
        params.storage_options = storage_options;
        const std::vector<table::UncommittedFragments> p = Parts(parts);
        Check(WithoutGil([&] { return table::AbortFragments(uri, p, params); }), NotFoundMeans::kBadArgument);
      },
      py::arg("uri"), py::arg("parts"), py::arg("storage_options") = io::StorageOptions{});
}

}  // namespace lancet::python
