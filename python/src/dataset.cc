// Opening datasets, versions, scans and takes.
#include "dataset.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "lancet/scan/scanner.h"
#include "module.h"
#include "readers.h"

namespace lancet::python {
namespace {

namespace py = pybind11;
using table::Dataset;

PyDataset OpenDataset(const std::string& uri, std::optional<uint64_t> version, std::optional<std::string> tag,
                      std::optional<io::StorageOptions> storage_options) {
  table::OpenOptions options;
  options.version = version;
  options.tag = std::move(tag);
  if (storage_options) options.storage_options = *storage_options;
  Result<std::unique_ptr<Dataset>> opened = WithoutGil([&] { return Dataset::Open(uri, options); });
  return PyDataset{Unwrap(std::move(opened)), options.storage_options};
}

PyDataset Wrap(const PyDataset& from, Result<std::unique_ptr<Dataset>> r) {
  return PyDataset{Unwrap(std::move(r), NotFoundMeans::kBadArgument), from.storage_options};
}

std::vector<uint64_t> ToU64(const py::array_t<uint64_t, py::array::c_style | py::array::forcecast>& a) {
  return std::vector<uint64_t>(a.data(), a.data() + a.size());
}

struct ScanArgs {
  std::optional<std::vector<std::string>> columns;
  std::optional<std::string> filter;
  std::optional<uint64_t> limit;
  std::optional<uint64_t> offset;
  std::optional<uint64_t> batch_size;
  bool with_row_id = false;
  bool with_row_addr = false;
  std::optional<std::vector<uint64_t>> fragment_ids;
  std::optional<uint32_t> io_parallelism;
  std::optional<uint32_t> batch_readahead;
};

table::ScanOptions MakeScanOptions(const ScanArgs& a) {
  table::ScanOptions o;
  if (a.columns) o.columns = *a.columns;
  if (a.filter) o.filter = *a.filter;
  o.limit = a.limit;
  if (a.offset) o.offset = *a.offset;
  if (a.batch_size) o.batch_size = *a.batch_size;
  o.with_row_id = a.with_row_id;
  o.with_row_addr = a.with_row_addr;
  if (a.fragment_ids) o.fragment_ids = *a.fragment_ids;
  if (a.io_parallelism) o.io_parallelism = *a.io_parallelism;
  if (a.batch_readahead) o.batch_readahead = *a.batch_readahead;
  return o;
}

std::unique_ptr<PyReader> Scan(const PyDataset& d, const ScanArgs& args) {
  const table::ScanOptions options = MakeScanOptions(args);
  Result<std::unique_ptr<RecordBatchReader>> reader = WithoutGil([&] { return scan::NewScan(*d.dataset, options); });
  // Planning errors name what the caller passed: an unknown column, a bad filter.
  return std::make_unique<PyReader>(Unwrap(std::move(reader), NotFoundMeans::kBadArgument), d.dataset);
}

uint64_t CountRows(const PyDataset& d, std::optional<std::string> filter) {
  if (!filter || filter->empty()) return d.dataset->CountRows();
  ScanArgs args;
  args.columns = std::vector<std::string>{"_rowaddr"};
  args.filter = filter;
  std::unique_ptr<PyReader> reader = Scan(d, args);
  uint64_t rows = 0;
  while (std::optional<RecordBatch> b = reader->Next()) rows += b->num_rows;
  return rows;
}

py::list Versions(const PyDataset& d) {
  Result<std::vector<table::VersionInfo>> versions = WithoutGil([&] { return d.dataset->ListVersions(); });
  py::list out;
  for (const table::VersionInfo& v : Unwrap(std::move(versions))) {
    py::dict item;
    item["version"] = v.version;
    item["timestamp_ms"] = v.timestamp_ms;
    item["num_rows"] = v.num_rows;
    out.append(item);
  }
  return out;
}

py::list Fragments(const PyDataset& d) {
  py::list out;
  for (const table::FragmentInfo& f : d.dataset->fragments()) {
    py::dict item;
    item["id"] = f.id;
    item["physical_rows"] = f.physical_rows;
    item["deleted_rows"] = f.deleted_rows;
    item["num_rows"] = f.physical_rows - f.deleted_rows;
    py::list files;
    for (const table::DataFileInfo& file : f.files) files.append(file.location);
    item["files"] = files;
    item["deletion_file"] = f.deletion_file;
    out.append(item);
  }
  return out;
}

RecordBatch Take(const PyDataset& d, const py::array_t<uint64_t, py::array::c_style | py::array::forcecast>& rows,
                 std::optional<std::vector<std::string>> columns, bool by_address) {
  const std::vector<uint64_t> keys = ToU64(rows);
  const std::vector<std::string> cols = columns ? *columns : std::vector<std::string>{};
  Result<RecordBatch> batch = WithoutGil(
      [&] { return by_address ? d.dataset->TakeRowAddresses(keys, cols) : d.dataset->TakeRowIds(keys, cols); });
  return Unwrap(std::move(batch), NotFoundMeans::kBadArgument);
}

py::list TakeBlobs(const PyDataset& d, const std::string& column,
                   const py::array_t<uint64_t, py::array::c_style | py::array::forcecast>& rows, bool by_address) {
  const std::vector<uint64_t> keys = ToU64(rows);
  Result<std::vector<std::optional<BufferPtr>>> blobs = WithoutGil([&] {
    return d.dataset->TakeBlobs(column, keys, by_address ? table::RowKey::kRowAddress : table::RowKey::kRowId);
  });
  py::list out;
  for (const std::optional<BufferPtr>& b : Unwrap(std::move(blobs), NotFoundMeans::kBadArgument)) {
    if (!b) {
      out.append(py::none());
    } else {
      out.append(py::bytes(reinterpret_cast<const char*>((*b)->data()), (*b)->size()));
    }
  }
  return out;
}

py::dict Describe(const PyDataset& d) {
  py::dict out;
  for (const auto& [k, v] : d.dataset->Describe()) out[py::str(k)] = v;
  return out;
}

}  // namespace

void RegisterDataset(py::module_& m) {
  py::class_<PyDataset>(m, "Dataset")
      .def_static("open", &OpenDataset, py::arg("uri"), py::arg("version") = std::nullopt,
                  py::arg("tag") = std::nullopt, py::arg("storage_options") = std::nullopt)
      .def_property_readonly("uri", [](const PyDataset& d) { return d.dataset->uri(); })
      .def_property_readonly("version", [](const PyDataset& d) { return d.dataset->version(); })
      .def_property_readonly("schema", [](const PyDataset& d) { return d.dataset->schema(); })
      .def_property_readonly("read_schema", [](const PyDataset& d) { return d.dataset->read_schema(); })
      .def_property_readonly("stable_row_ids", [](const PyDataset& d) { return d.dataset->stable_row_ids(); })
      // Writes through a Dataset (insert) reach the store it was opened with.
      .def_property_readonly("storage_options", [](const PyDataset& d) { return d.storage_options; })
      .def("versions", &Versions)
      .def("tags", [](const PyDataset& d) { return Unwrap(d.dataset->ListTags()); })
      .def("checkout",
           [](const PyDataset& d, uint64_t version) {
             Result<std::unique_ptr<Dataset>> r = WithoutGil([&] { return d.dataset->Checkout(version); });
             return Wrap(d, std::move(r));
           })
      .def("checkout_tag",
           [](const PyDataset& d, const std::string& tag) {
             Result<std::unique_ptr<Dataset>> r = WithoutGil([&] { return d.dataset->CheckoutTag(tag); });
             return Wrap(d, std::move(r));
           })
      .def("latest",
           [](const PyDataset& d) {
             return OpenDataset(d.dataset->uri(), std::nullopt, std::nullopt, d.storage_options);
           })
      .def("fragments", &Fragments)
      .def("describe", &Describe)
      .def("count_rows", &CountRows, py::arg("filter") = std::nullopt)
      .def(
          "scan",
          [](const PyDataset& d, std::optional<std::vector<std::string>> columns, std::optional<std::string> filter,
             std::optional<uint64_t> limit, std::optional<uint64_t> offset, std::optional<uint64_t> batch_size,
             bool with_row_id, bool with_row_addr, std::optional<std::vector<uint64_t>> fragment_ids,
             std::optional<uint32_t> io_parallelism, std::optional<uint32_t> batch_readahead) {
            const ScanArgs a{.columns = std::move(columns),
                             .filter = std::move(filter),
                             .limit = limit,
                             .offset = offset,
                             .batch_size = batch_size,
                             .with_row_id = with_row_id,
                             .with_row_addr = with_row_addr,
                             .fragment_ids = std::move(fragment_ids),
                             .io_parallelism = io_parallelism,
                             .batch_readahead = batch_readahead};
            return Scan(d, a);
          },
          py::arg("columns") = std::nullopt, py::arg("filter") = std::nullopt, py::arg("limit") = std::nullopt,
          py::arg("offset") = std::nullopt, py::arg("batch_size") = std::nullopt, py::arg("with_row_id") = false,
          py::arg("with_row_addr") = false, py::arg("fragment_ids") = std::nullopt,
          py::arg("io_parallelism") = std::nullopt, py::arg("batch_readahead") = std::nullopt)
      .def("take", &Take, py::arg("rows"), py::arg("columns") = std::nullopt, py::arg("by_address") = false)
      .def("take_blobs", &TakeBlobs, py::arg("column"), py::arg("rows"), py::arg("by_address") = false);
}

}  // namespace lancet::python
