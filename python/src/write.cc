// Writes: new datasets and appends, deletes, updates, merge-insert, tags and restore.
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dataset.h"
#include "errors.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/update.h"
#include "lancet/table/write.h"
#include "module.h"
#include "readers.h"
#include "write_mode.h"

namespace lancet::python {

table::WriteMode ParseWriteMode(const std::string& mode) {
  if (mode == "create") return table::WriteMode::kCreate;
  if (mode == "append") return table::WriteMode::kAppend;
  if (mode == "overwrite") return table::WriteMode::kOverwrite;
  throw StatusError(Status::InvalidArgument("mode '" + mode + "': expected create, append or overwrite"),
                    NotFoundMeans::kBadArgument);
}

namespace {

namespace py = pybind11;

table::StorageVersion ParseStorageVersion(const std::string& v) {
  if (v == "2.2" || v == "stable") return table::StorageVersion::k2_2;
  if (v == "2.3" || v == "next") return table::StorageVersion::k2_3;
  throw StatusError(Status::InvalidArgument("data_storage_version '" + v + "': expected 2.2 or 2.3"),
                    NotFoundMeans::kBadArgument);
}

// Thresholds per blob column: (inline max, dedicated min, pack file max), None for a default.
using Thresholds = std::tuple<std::optional<uint64_t>, std::optional<uint64_t>, std::optional<uint64_t>>;

uint64_t WriteDataset(const std::string& uri, PyReader& source, const std::string& mode, uint64_t max_rows_per_file,
                      bool enable_stable_row_ids, const std::string& storage_version,
                      const std::map<std::string, Thresholds>& blob_columns, const io::StorageOptions& storage_options,
                      const std::map<std::string, std::string>& media, int max_commit_attempts) {
  table::WriteParams params;
  params.mode = ParseWriteMode(mode);
  params.max_rows_per_file = max_rows_per_file;
  params.enable_stable_row_ids = enable_stable_row_ids;
  params.storage_version = ParseStorageVersion(storage_version);
  params.storage_options = storage_options;
  params.max_commit_attempts = max_commit_attempts;
  for (const auto& [column, t] : blob_columns) {
    table::BlobThresholds thresholds;
    if (std::get<0>(t)) thresholds.inline_max = *std::get<0>(t);
    if (std::get<1>(t)) thresholds.dedicated_min = *std::get<1>(t);
    if (std::get<2>(t)) thresholds.pack_file_max = *std::get<2>(t);
    params.blobs.binary_as_blob[column] = thresholds;
  }
  media::MediaOptions media_options;
  for (const auto& [column, library] : media) media_options[column].library = library;

  Result<uint64_t> version = DrainSource<uint64_t>(source, [&](RecordBatchReader& reader) {
    return media_options.empty() ? table::WriteDataset(uri, reader, params)
                                 : media::WriteDatasetWithBlobInfo(uri, reader, params, media_options);
  });
  return Unwrap(std::move(version), NotFoundMeans::kBadArgument);
}

uint64_t DeleteWhere(const PyDataset& d, const std::string& predicate) {
  Result<uint64_t> version = WithoutGil([&] { return table::DeleteWhere(*d.dataset, predicate); });
  return Unwrap(std::move(version), NotFoundMeans::kBadArgument);
}

std::pair<uint64_t, uint64_t> Update(const PyDataset& d, const std::string& where,
                                     const std::vector<std::pair<std::string, std::string>>& set) {
  Result<table::UpdateResult> result = WithoutGil([&] { return table::Update(*d.dataset, where, set); });
  const table::UpdateResult r = Unwrap(std::move(result), NotFoundMeans::kBadArgument);
  return {r.version, r.rows_updated};
}

py::dict MergeInsert(const PyDataset& d, PyReader& source, std::vector<std::string> on, const std::string& when_matched,
                     std::vector<std::string> update_columns, std::string when_matched_condition,
                     const std::string& when_not_matched, const std::string& when_not_matched_by_source,
                     std::string by_source_condition) {
  table::MergeInsertOptions o;
  o.on = std::move(on);
  if (when_matched == "update_all") {
    o.when_matched = table::WhenMatched::kUpdateAll;
  } else if (when_matched == "update_columns") {
    o.when_matched = table::WhenMatched::kUpdateColumns;
  } else if (when_matched == "do_nothing") {
    o.when_matched = table::WhenMatched::kDoNothing;
  } else {
    throw StatusError(Status::InvalidArgument("when_matched '" + when_matched + "'"), NotFoundMeans::kBadArgument);
  }
  o.update_columns = std::move(update_columns);
  o.when_matched_condition = std::move(when_matched_condition);
  o.when_not_matched = when_not_matched == "insert" ? table::WhenNotMatched::kInsert : table::WhenNotMatched::kSkip;
  o.when_not_matched_by_source = when_not_matched_by_source == "delete" ? table::WhenNotMatchedBySource::kDelete
                                                                        : table::WhenNotMatchedBySource::kKeep;
  o.by_source_condition = std::move(by_source_condition);

  Result<table::MergeInsertResult> result = DrainSource<table::MergeInsertResult>(
      source, [&](RecordBatchReader& reader) { return table::MergeInsert(*d.dataset, reader, o); });
  const table::MergeInsertResult r = Unwrap(std::move(result), NotFoundMeans::kBadArgument);
  py::dict out;
  out["version"] = r.version;
  out["num_inserted_rows"] = r.rows_inserted;
  out["num_updated_rows"] = r.rows_updated;
  out["num_deleted_rows"] = r.rows_deleted;
  out["num_attempts"] = r.attempts;
  return out;
}

}  // namespace

void RegisterWrite(py::module_& m) {
  m.def("write_dataset", &WriteDataset, py::arg("uri"), py::arg("source"), py::arg("mode") = "create",
        py::arg("max_rows_per_file") = table::WriteParams{}.max_rows_per_file, py::arg("enable_stable_row_ids") = false,
        py::arg("storage_version") = "2.2", py::arg("blob_columns") = std::map<std::string, Thresholds>{},
        py::arg("storage_options") = io::StorageOptions{}, py::arg("media") = std::map<std::string, std::string>{},
        py::arg("max_commit_attempts") = table::WriteParams{}.max_commit_attempts);
  m.def("delete_where", &DeleteWhere);
  m.def("update", &Update);
  m.def("merge_insert", &MergeInsert, py::arg("dataset"), py::arg("source"), py::arg("on"),
        py::arg("when_matched") = "update_all", py::arg("update_columns") = std::vector<std::string>{},
        py::arg("when_matched_condition") = "", py::arg("when_not_matched") = "insert",
        py::arg("when_not_matched_by_source") = "keep", py::arg("by_source_condition") = "");
  m.def("create_tag", [](const PyDataset& d, const std::string& name, uint64_t version) {
    Check(table::CreateTag(*d.dataset, name, version), NotFoundMeans::kBadArgument);
  });
  m.def("delete_tag", [](const PyDataset& d, const std::string& name) {
    Check(table::DeleteTag(*d.dataset, name), NotFoundMeans::kBadArgument);
  });
  m.def("restore", [](const PyDataset& d, uint64_t version) {
    Result<uint64_t> r = WithoutGil([&] { return table::Restore(*d.dataset, version); });
    return Unwrap(std::move(r), NotFoundMeans::kBadArgument);
  });
}

}  // namespace lancet::python
