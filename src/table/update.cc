// Update: scan the matching rows, compute the SET values, rewrite them through the
// RowRewriter; a run that meets a conflicting commit starts again on the latest version.
#include "lancet/table/update.h"

#include <set>

#include "lancet/expr/bound_expression.h"
#include "lancet/table/write.h"
#include "table/blob_info.h"
#include "table/blob_input.h"
#include "table/evolution_cast.h"
#include "table/manifest.h"
#include "table/row_rewrite.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

// One SET clause bound to a version's read schema.
struct Assignment {
  size_t column = 0;
  expr::BoundExpression value;
  bool cast_after = false;  // table-layer cast of the expression's type to the column's
};

// The filter-language type name the expression layer can CAST to that is closest to
// `type` (a table-layer cast covers the rest, e.g. utf8 to large_utf8).
std::optional<std::string> CastName(const DataType& type) {
  switch (type.id) {
    case TypeId::kInt8:
      return "TINYINT";
    case TypeId::kInt16:
      return "SMALLINT";
    case TypeId::kInt32:
      return "INT";
    case TypeId::kInt64:
      return "BIGINT";
    case TypeId::kUInt8:
      return "TINYINT UNSIGNED";
    case TypeId::kUInt16:
      return "SMALLINT UNSIGNED";
    case TypeId::kUInt32:
      return "INT UNSIGNED";
    case TypeId::kUInt64:
      return "BIGINT UNSIGNED";
    case TypeId::kFloat32:
      return "FLOAT";
    case TypeId::kFloat64:
      return "DOUBLE";
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      return "STRING";
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return "BINARY";
    case TypeId::kDate32:
      return "DATE";
    case TypeId::kBool:
      return "BOOLEAN";
    case TypeId::kTimestamp:
      if (type.unit == TimeUnit::kMicro) return "TIMESTAMP";
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool IsBytes(TypeId id) {
  return id == TypeId::kBinary || id == TypeId::kLargeBinary || id == TypeId::kUtf8 || id == TypeId::kLargeUtf8;
}

// The type an assignment must produce: a blob column takes its bytes.
DataType TargetType(const Field& logical, const Field& read) {
  return IsBlobV2Field(logical) ? MakeType(TypeId::kLargeBinary) : read.type;
}

bool StorableAs(const DataType& from, const DataType& to, bool* cast_after) {
  *cast_after = false;
  if (from == to || from.id == TypeId::kNull) return true;
  if (to.id == TypeId::kLargeBinary && IsBytes(from.id)) return true;  // blob bytes
  if (CanCast(from, to)) {
    *cast_after = true;
    return true;
  }
  return false;
}

Result<std::vector<Assignment>> BindAssignments(const Dataset& ds,
                                                const std::vector<std::pair<std::string, std::string>>& set) {
  const std::string& root = ds.uri();
  const Schema& read = ds.read_schema();
  const Schema& logical = ds.schema();
  if (set.empty()) return Status::InvalidArgument(root + ": update sets no column");
  std::vector<Assignment> out;
  std::set<std::string> seen;
  for (const auto& [name, text] : set) {
    if (name.starts_with("_row")) {
      return Status::InvalidArgument(root + ": cannot set '" + name +
                                     "': row ids, addresses and row versions are kept by the table, not stored");
    }
    const int idx = read.FieldIndex(name);
    if (idx < 0) {
      if (name.find('.') != std::string::npos) {
        return Status::InvalidArgument(root + ": cannot set '" + name +
                                       "': only top-level columns can be set (set the whole struct)");
      }
      return Status::InvalidArgument(root + ": cannot set '" + name + "': no such column");
    }
    if (!seen.insert(name).second) return Status::InvalidArgument(root + ": column '" + name + "' is set twice");
    const size_t c = static_cast<size_t>(idx);
    if (IsBlobInfoDescriptor(read.fields[c])) {
      return Status::InvalidArgument(root + ": cannot set blob column '" + name +
                                     "': in a format 2.3 dataset its values carry blob_info from a media "
                                     "plugin; write them again with ingest instead");
    }
    if (!IsBlobV2Field(logical.fields[c]) && HasBlobField(logical.fields[c])) {
      return Status::InvalidArgument(root + ": cannot set '" + name + "': it holds a blob column");
    }
    const DataType target = TargetType(logical.fields[c], read.fields[c]);
    auto bound = expr::BoundExpression::Bind(text, read);
    if (!bound.ok()) return bound.status().WithContext(root + ": SET " + name);
    Assignment a{c, std::move(*bound), false};
    if (!StorableAs(a.value.type(), target, &a.cast_after)) {
      // An explicit CAST in the filter language (integers to floats, strings to
      // dates...), then maybe a table-layer cast to the exact type.
      std::optional<std::string> cast = CastName(target);
      bool ok = false;
      if (cast) {
        auto recast = expr::BoundExpression::Bind("CAST((" + text + ") AS " + *cast + ")", read);
        if (recast.ok() && StorableAs(recast->type(), target, &a.cast_after)) {
          a.value = std::move(*recast);
          ok = true;
        }
      }
      if (!ok) {
        return Status::InvalidArgument(root + ": SET " + name + " = " + text + ": a value of type " +
                                       a.value.type().ToString() + " cannot be stored in column '" + name +
                                       "' of type " + target.ToString());
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

// The column an assignment gives one batch, in the read schema's shape (a blob
// column as a struct<data> input).
Result<Array> EvaluateAssignment(const Dataset& ds, const Assignment& a, const RecordBatch& batch) {
  const Field& logical = ds.schema().fields[a.column];
  const Field& read = ds.read_schema().fields[a.column];
  const std::string where = ds.uri() + ": SET " + read.name;
  ASSIGN_OR_RETURN(Array v, a.value.Evaluate(batch));
  const DataType target = TargetType(logical, read);
  if (v.type.id == TypeId::kNull) {
    ASSIGN_OR_RETURN(v, MakeNullArray(target, batch.num_rows));
  } else if (a.cast_after) {
    ASSIGN_OR_RETURN(v, CastArray(v, target, read.name));
  }
  if (!read.nullable) {
    for (int64_t i = 0; i < v.length; ++i) {
      if (v.IsNull(i)) {
        return Status::InvalidArgument(where + ": the value is null but the column is not nullable");
      }
    }
  }
  if (!IsBlobV2Field(logical)) return v;
  // Text and binary share a layout: the bytes are stored as they are.
  const bool large = v.type.id == TypeId::kLargeBinary || v.type.id == TypeId::kLargeUtf8;
  v.type = MakeType(large ? TypeId::kLargeBinary : TypeId::kBinary);
  std::vector<bool> valid(static_cast<size_t>(v.length));
  for (int64_t i = 0; i < v.length; ++i) valid[static_cast<size_t>(i)] = v.IsValid(i);
  return MakeStructArray(StructOf({MakeField("data", v.type)}), v.length, {v}, valid);
}

// One run of the update on `ds`.
Result<UpdateResult> RunOnce(const Dataset& ds, const std::string& where, const std::vector<Assignment>& set,
                             const UpdateOptions& options) {
  WriteParams params;
  params.max_rows_per_file = options.max_rows_per_file;
  params.max_commit_attempts = options.max_commit_attempts;
  ASSIGN_OR_RETURN(std::unique_ptr<RowRewriter> rewriter, RowRewriter::Make(ds, params));
  std::vector<uint32_t> fields;
  for (const Assignment& a : set) fields.push_back(static_cast<uint32_t>(ds.read_schema().fields[a.column].id));
  rewriter->set_modified_fields(std::move(fields));
  ScanOptions scan;
  scan.filter = where;
  scan.with_row_addr = true;
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, ds.NewScan(scan));
  const size_t data_cols = ds.read_schema().fields.size();
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
    if (!batch) break;
    if (batch->num_rows == 0) continue;
    RecordBatch rows{ds.read_schema(), batch->num_rows, {}};
    rows.columns.assign(batch->columns.begin(), batch->columns.begin() + static_cast<std::ptrdiff_t>(data_cols));
    for (const Assignment& a : set) {
      ASSIGN_OR_RETURN(rows.columns[a.column], EvaluateAssignment(ds, a, *batch));
    }
    const Array& addr = batch->columns[data_cols];
    RETURN_IF_ERROR(rewriter->Add(rows, {addr.values<uint64_t>(), static_cast<size_t>(batch->num_rows)}));
  }
  ASSIGN_OR_RETURN(uint64_t version, rewriter->Commit());
  return UpdateResult{version, rewriter->counts().updated};
}

}  // namespace

Result<UpdateResult> Update(const Dataset& dataset, const std::string& where,
                            const std::vector<std::pair<std::string, std::string>>& set, const UpdateOptions& options) {
  if (options.max_commit_attempts < 1) {
    return Status::InvalidArgument(dataset.uri() + ": max_commit_attempts must be at least 1");
  }
  std::unique_ptr<Dataset> latest;
  const Dataset* ds = &dataset;
  Status last;
  for (int run = 0; run < options.max_commit_attempts; ++run) {
    ASSIGN_OR_RETURN(std::vector<Assignment> bound, BindAssignments(*ds, set));
    auto result = RunOnce(*ds, where, bound, options);
    if (result.ok() || !result.status().IsCommitConflict()) return result;
    last = result.status();
    // Someone else's commit changed rows this run read: read them again.
    ASSIGN_OR_RETURN(latest, Dataset::Open(dataset.store(), dataset.root()));
    ds = latest.get();
  }
  return last;
}

}  // namespace lancet::table
