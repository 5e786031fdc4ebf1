// Manifest rows are unique by object_id although the table layer has no unique keys:
// a writer checks, appends, and then looks at the version it committed. The row of the
// earliest commit wins; a writer whose row is not that one deletes it and reports
// AlreadyExists. Every writer decides from its own committed version, so two writers
// never both win, and readers skip a duplicate left by a writer that died in between.
#include "catalog/manifest_table.h"

#include <map>
#include <mutex>
#include <set>

#include "lancet/table/dataset.h"
#include "lancet/table/update.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::catalog {
namespace {

constexpr int kInsertAttempts = 20;

// One lock for the manifest writes of every DirectoryNamespace in the process: writers
// in one process then never race each other, only other processes.
std::mutex& WriteMutex() {
  static std::mutex mutex;
  return mutex;
}

struct AddressedRow {
  ManifestRow row;
  uint64_t address = 0;
};

std::optional<std::string> OptionalString(const Array& column, int64_t i) {
  if (column.IsNull(i)) return std::nullopt;
  return std::string(column.GetView(i));
}

bool IsStringType(const DataType& type) { return type.IsBinaryLike() || type.IsLargeBinaryLike(); }

// Every row of `dataset` in address order.
Result<std::vector<AddressedRow>> ScanRows(const table::Dataset& dataset) {
  table::ScanOptions scan;
  const Schema& schema = dataset.schema();
  for (const char* name : {"object_id", "object_type", "location", "metadata"}) {
    const int idx = schema.FieldIndex(name);
    if (idx >= 0 && IsStringType(schema.fields[idx].type)) {
      scan.columns.push_back(name);
    } else if (std::string_view(name) == "object_id" || std::string_view(name) == "object_type") {
      return Status::Corruption(dataset.uri() + ": no string column '" + name + "' in the namespace manifest");
    }
  }
  scan.with_row_addr = true;
  ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, dataset.Scan(scan));
  std::vector<AddressedRow> rows;
  for (const RecordBatch& batch : batches) {
    auto column = [&](const std::string& name) -> const Array* {
      const int idx = batch.schema.FieldIndex(name);
      return idx < 0 ? nullptr : &batch.columns[idx];
    };
    const Array* id = column("object_id");
    const Array* type = column("object_type");
    const Array* location = column("location");
    const Array* metadata = column("metadata");
    const Array* address = column("_rowaddr");
    if (!id || !type || !address) return Status::Corruption(dataset.uri() + ": manifest scan lacks columns");
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      if (id->IsNull(i) || type->IsNull(i)) continue;
      AddressedRow r;
      r.row.object_id = std::string(id->GetView(i));
      r.row.object_type = std::string(type->GetView(i));
      if (location) r.row.location = OptionalString(*location, i);
      if (metadata) r.row.metadata = OptionalString(*metadata, i);
      r.address = address->values<uint64_t>()[0 + i];
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

// One row of `row` in `schema`'s columns: the known ones filled, others null.
Result<RecordBatch> RowBatch(const Schema& schema, const ManifestRow& row) {
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = 1;
  for (const Field& field : schema.fields) {
    std::optional<std::optional<std::string>> value;
    if (field.name == "object_id") value = row.object_id;
    if (field.name == "object_type") value = row.object_type;
    if (field.name == "location") value = row.location;
    if (field.name == "metadata") value = row.metadata;
    if (value && IsStringType(field.type)) {
      ASSIGN_OR_RETURN(Array a, MakeBinaryArray(field.type, {*value}));
      batch.columns.push_back(std::move(a));
    } else {
      if (!field.nullable) {
        return Status::NotSupported("namespace manifest column '" + field.name +
                                    "' is not nullable and unknown to Lancet");
      }
      ASSIGN_OR_RETURN(Array a, MakeNullArray(field.type, 1));
      batch.columns.push_back(std::move(a));
    }
  }
  return batch;
}

std::string Quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

Result<std::unique_ptr<table::Dataset>> OpenLatest(const std::string& uri) { return table::Dataset::Open(uri); }

// Whether this writer's row for `object_id`, committed as `version`, is the first one
// there; if not, it is deleted again.
Result<bool> KeepIfFirst(const std::string& uri, uint64_t version, const std::string& object_id) {
  table::OpenOptions at;
  at.version = version;
  ASSIGN_OR_RETURN(std::unique_ptr<table::Dataset> committed, table::Dataset::Open(uri, at));
  std::set<uint64_t> before;
  if (version > 1) {
    ASSIGN_OR_RETURN(std::unique_ptr<table::Dataset> previous, committed->Checkout(version - 1));
    for (const table::FragmentInfo& f : previous->fragments()) before.insert(f.id);
  }
  ASSIGN_OR_RETURN(std::vector<AddressedRow> rows, ScanRows(*committed));
  std::vector<uint64_t> mine;
  bool first_is_mine = false, seen = false;
  for (const AddressedRow& r : rows) {
    if (r.row.object_id != object_id) continue;
    const bool is_mine = !before.count(r.address >> 32);
    if (!seen) first_is_mine = is_mine;
    seen = true;
    if (is_mine) mine.push_back(r.address);
  }
  if (first_is_mine) return true;
  if (!mine.empty()) RETURN_IF_ERROR(table::DeleteRows(*committed, mine).status());
  return false;
}

}  // namespace

Schema ManifestSchema() {
  Schema schema;
  Field id = MakeField("object_id", MakeType(TypeId::kUtf8), false);
  id.metadata[kPrimaryKeyPositionKey] = "0";
  schema.fields.push_back(std::move(id));
  schema.fields.push_back(MakeField("object_type", MakeType(TypeId::kUtf8), false));
  schema.fields.push_back(MakeField("location", MakeType(TypeId::kUtf8)));
  schema.fields.push_back(MakeField("metadata", MakeType(TypeId::kUtf8)));
  schema.fields.push_back(MakeField("base_objects", ListOf(MakeField("item", MakeType(TypeId::kUtf8)))));
  return schema;
}

Result<std::vector<ManifestRow>> ManifestTable::Read() const {
  auto dataset = OpenLatest(uri_);
  if (!dataset.ok()) {
    if (dataset.status().IsNotFound()) return std::vector<ManifestRow>{};
    return dataset.status();
  }
  ASSIGN_OR_RETURN(std::vector<AddressedRow> rows, ScanRows(**dataset));
  std::vector<ManifestRow> out;
  std::set<std::string> seen;
  for (AddressedRow& r : rows) {
    if (seen.insert(r.row.object_id).second) out.push_back(std::move(r.row));
  }
  return out;
}

Status ManifestTable::Insert(const ManifestRow& row) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  for (int attempt = 0; attempt < kInsertAttempts; ++attempt) {
    auto dataset = OpenLatest(uri_);
    if (!dataset.ok() && !dataset.status().IsNotFound()) return dataset.status();
    if (!dataset.ok()) {
      const Schema schema = ManifestSchema();
      ASSIGN_OR_RETURN(RecordBatch batch, RowBatch(schema, row));
      table::WriteParams params;
      params.mode = table::WriteMode::kCreate;
      auto created = table::WriteDataset(uri_, schema, {std::move(batch)}, params);
      if (created.ok()) return Status::OK();
      if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
      continue;  // another process created it: check and append
    }
    ASSIGN_OR_RETURN(std::vector<AddressedRow> rows, ScanRows(**dataset));
    for (const AddressedRow& r : rows) {
      if (r.row.object_id == row.object_id) {
        return Status::AlreadyExists("'" + row.object_id + "' is already in the namespace manifest (a " +
                                     r.row.object_type + ")");
      }
    }
    ASSIGN_OR_RETURN(RecordBatch batch, RowBatch((*dataset)->schema(), row));
    table::WriteParams params;
    params.mode = table::WriteMode::kAppend;
    ASSIGN_OR_RETURN(uint64_t version, table::WriteDataset(uri_, (*dataset)->schema(), {std::move(batch)}, params));
    ASSIGN_OR_RETURN(bool kept, KeepIfFirst(uri_, version, row.object_id));
    if (kept) return Status::OK();
    return Status::AlreadyExists("'" + row.object_id + "' was added to the namespace manifest by a concurrent writer");
  }
  return Status::CommitConflict(uri_ + ": could not add '" + row.object_id + "' after " +
                                std::to_string(kInsertAttempts) + " attempts");
}

Result<size_t> ManifestTable::Remove(const std::function<bool(const ManifestRow&)>& remove) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  auto dataset = OpenLatest(uri_);
  if (!dataset.ok()) return dataset.status().IsNotFound() ? Result<size_t>(size_t{0}) : dataset.status();
  ASSIGN_OR_RETURN(std::vector<AddressedRow> rows, ScanRows(**dataset));
  std::vector<uint64_t> addresses;
  for (const AddressedRow& r : rows) {
    if (remove(r.row)) addresses.push_back(r.address);
  }
  if (addresses.empty()) return size_t{0};
  RETURN_IF_ERROR(table::DeleteRows(**dataset, addresses).status());
  return addresses.size();
}

Status ManifestTable::SetMetadata(const std::string& object_id, const std::optional<std::string>& metadata) {
  std::lock_guard<std::mutex> lock(WriteMutex());
  ASSIGN_OR_RETURN(std::unique_ptr<table::Dataset> dataset, OpenLatest(uri_));
  ASSIGN_OR_RETURN(table::UpdateResult result,
                   table::Update(*dataset, "object_id = " + Quote(object_id),
                                 {{"metadata", metadata ? Quote(*metadata) : std::string("NULL")}}));
  if (result.rows_updated == 0) return Status::NotFound("'" + object_id + "' is not in the namespace manifest");
  return Status::OK();
}

}  // namespace lancet::catalog
