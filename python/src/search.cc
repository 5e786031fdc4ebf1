// Indexes and search: create_index (scalar, vector and full-text, as `lancet index
// create`), list_indices, and the vector / BM25 searches behind Dataset.to_table's
// nearest= and full_text_query=.
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dataset.h"
#include "errors.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/text_index.h"
#include "lancet/index/vector_index.h"
#include "lancet/scan/search.h"
#include "lancet/scan/text_search.h"
#include "module.h"
#include "readers.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

[[noreturn]] void BadArgument(const std::string& what) {
  throw StatusError(Status::InvalidArgument(what), NotFoundMeans::kBadArgument);
}

// The name of the committed index (a new version of the dataset holds it).
std::string CreateIndex(const PyDataset& d, const std::string& column, const std::string& type, const std::string& name,
                        bool replace, const std::map<std::string, std::string>& params, const std::string& metric) {
  Result<table::IndexMetadata> built = Status::OK();
  if (auto vector_type = index::ParseVectorIndexType(type); vector_type.ok()) {
    index::CreateVectorIndexOptions o;
    o.name = name;
    o.replace = replace;
    o.params = params;
    if (!metric.empty()) o.distance = Unwrap(index::ParseDistanceType(metric), NotFoundMeans::kBadArgument);
    built = WithoutGil([&] { return index::CreateVectorIndex(*d.dataset, column, *vector_type, o); });
  } else if (type == "fts" || type == "inverted" || type == "FTS" || type == "INVERTED") {
    index::CreateTextIndexOptions o;
    o.name = name;
    o.replace = replace;
    o.params = params;
    built = WithoutGil([&] { return index::CreateTextIndex(*d.dataset, column, o); });
  } else {
    auto scalar = index::ParseScalarIndexType(type);
    if (!scalar.ok()) BadArgument("index type '" + type + "': not a scalar, vector or full-text index type");
    index::CreateIndexOptions o;
    o.name = name;
    o.replace = replace;
    o.params = params;
    built = WithoutGil([&] { return index::CreateScalarIndex(*d.dataset, column, *scalar, o); });
  }
  return Unwrap(std::move(built), NotFoundMeans::kBadArgument).name;
}

py::list ListIndices(const PyDataset& d) {
  auto stats = WithoutGil([&] { return index::DescribeIndices(*d.dataset); });
  py::list out;
  for (const index::IndexStats& s : Unwrap(std::move(stats))) {
    py::dict item;
    item["name"] = s.name;
    item["type"] = s.type;
    item["column"] = s.column;
    item["num_segments"] = s.num_segments;
    item["num_indexed_rows"] = s.num_indexed_rows;
    item["num_unindexed_rows"] = s.num_unindexed_rows;
    out.append(item);
  }
  return out;
}

table::ScanOptions Options(std::optional<std::vector<std::string>> columns, std::optional<std::string> filter,
                           uint64_t offset, bool with_row_id) {
  table::ScanOptions o;
  if (columns) o.columns = *columns;
  if (filter) o.filter = *filter;
  o.offset = offset;
  o.with_row_id = with_row_id;
  return o;
}

std::unique_ptr<PyReader> VectorSearch(const PyDataset& d, std::optional<std::vector<std::string>> columns,
                                       std::optional<std::string> filter, uint64_t offset, bool with_row_id,
                                       const std::string& column, std::vector<std::vector<float>> vectors, uint32_t k,
                                       const std::string& metric, uint32_t nprobes,
                                       std::optional<uint32_t> refine_factor, uint32_t ef, bool use_index,
                                       bool postfilter) {
  scan::VectorQuery q;
  q.column = column;
  q.vectors = std::move(vectors);
  q.k = k;
  if (!metric.empty()) q.distance = Unwrap(index::ParseDistanceType(metric), NotFoundMeans::kBadArgument);
  q.nprobes = nprobes;
  q.refine_factor = refine_factor;
  q.ef = ef;
  q.use_index = use_index;
  q.postfilter = postfilter;
  const table::ScanOptions o = Options(std::move(columns), std::move(filter), offset, with_row_id);
  auto reader = WithoutGil([&] { return scan::Search(*d.dataset, o, q); });
  return std::make_unique<PyReader>(Unwrap(std::move(reader), NotFoundMeans::kBadArgument), d.dataset);
}

std::unique_ptr<PyReader> TextSearch(const PyDataset& d, std::optional<std::vector<std::string>> columns,
                                     std::optional<std::string> filter, uint64_t offset, bool with_row_id,
                                     const std::string& column, const std::string& text, uint32_t k) {
  scan::TextSearchRequest r;
  r.column = column;
  r.query.text = text;
  r.k = k;
  const table::ScanOptions o = Options(std::move(columns), std::move(filter), offset, with_row_id);
  auto reader = WithoutGil([&] { return scan::TextSearch(*d.dataset, o, r); });
  return std::make_unique<PyReader>(Unwrap(std::move(reader), NotFoundMeans::kBadArgument), d.dataset);
}

}  // namespace

void RegisterSearch(py::module_& m) {
  m.def("create_index", &CreateIndex, py::arg("dataset"), py::arg("column"), py::arg("index_type"),
        py::arg("name") = "", py::arg("replace") = true, py::arg("params") = std::map<std::string, std::string>{},
        py::arg("metric") = "");
  m.def("list_indices", &ListIndices);
  m.def("vector_search", &VectorSearch, py::arg("dataset"), py::arg("columns"), py::arg("filter"), py::arg("offset"),
        py::arg("with_row_id"), py::arg("column"), py::arg("vectors"), py::arg("k"), py::arg("metric") = "",
        py::arg("nprobes") = 0, py::arg("refine_factor") = std::nullopt, py::arg("ef") = 0, py::arg("use_index") = true,
        py::arg("postfilter") = false);
  m.def("text_search", &TextSearch, py::arg("dataset"), py::arg("columns"), py::arg("filter"), py::arg("offset"),
        py::arg("with_row_id"), py::arg("column"), py::arg("text"), py::arg("k"));
}

}  // namespace lancet::python
