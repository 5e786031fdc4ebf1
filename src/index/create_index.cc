// Building, dropping and optimizing scalar indexes: a streamed scan of the column feeds
// the type's builder, and the segment is committed as a CreateIndex transaction.
#include <set>

#include "index/fts_params.h"
#include "index/index_segment.h"
#include "index/index_types.h"
#include "index/scalar_index.h"
#include "index/text_build.h"
#include "index/value_order.h"
#include "index/vector_build.h"
#include "index/vector_details.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/text_index.h"
#include "lancet/index/vector_index.h"

namespace lancet::index {
namespace {

bool ZoneType(ScalarIndexType t) { return t == ScalarIndexType::kZoneMap || t == ScalarIndexType::kBloomFilter; }

Status CheckColumnType(const Field& field, ScalarIndexType type, const std::string& where) {
  if (type == ScalarIndexType::kLabelList) {
    const bool list = field.type.id == TypeId::kList || field.type.id == TypeId::kLargeList;
    if (list && !field.type.children.empty() && IsOrderable(field.type.children[0].type)) return Status::OK();
    return Status::InvalidArgument(where + ": a LabelList index needs a list of scalars, not " + field.type.ToString());
  }
  if (IsOrderable(field.type)) return Status::OK();
  return Status::InvalidArgument(where + ": a " + std::string(ScalarIndexTypeName(type)) +
                                 " index cannot hold values of type " + field.type.ToString());
}

// Builds one segment of `type` over every fragment of `dataset`; its files are written
// but nothing is committed.
Result<table::IndexMetadata> BuildSegment(const table::Dataset& dataset, const Field& field, ScalarIndexType type,
                                          const std::string& name, const CreateIndexOptions& options) {
  BuildOptions build;
  build.params = options.params;
  build.memory_budget = options.memory_budget;
  return WriteNewSegment(
      dataset, field, name, ScalarIndexTypeUrl(type), ScalarIndexVersion(type),
      [&](const std::string& dir, table::IndexMetadata&) -> Result<std::vector<IndexFileEntry>> {
        ASSIGN_OR_RETURN(std::unique_ptr<ScalarIndexBuilder> builder,
                         MakeScalarIndexBuilder(type, field, dataset.store(), dir, build));
        table::ScanOptions scan;
        scan.columns = {field.name};
        // Zones are physical runs of a fragment; exact indexes name rows as scans return them.
        (ZoneType(type) ? scan.with_row_addr : scan.with_row_id) = true;
        ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
        const uint64_t total = dataset.CountRows();
        uint64_t done = 0;
        for (;;) {
          ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          const Array& rows = batch->columns[1];
          RETURN_IF_ERROR(builder->Add(
              batch->columns[0], std::span<const uint64_t>(rows.values<uint64_t>(), static_cast<size_t>(rows.length))));
          done += static_cast<uint64_t>(batch->num_rows);
          if (options.progress) options.progress(done, total);
        }
        return builder->Finish();
      });
}

}  // namespace

Result<table::IndexMetadata> CreateScalarIndex(const table::Dataset& dataset, const std::string& column,
                                               ScalarIndexType type, const CreateIndexOptions& options) {
  const int pos = dataset.schema().FieldIndex(column);
  if (pos < 0) return Status::NotFound(dataset.uri() + ": no top-level column named '" + column + "'");
  const Field& field = dataset.schema().fields[static_cast<size_t>(pos)];
  RETURN_IF_ERROR(CheckColumnType(field, type, dataset.uri() + ": column '" + column + "'"));
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  ASSIGN_OR_RETURN(std::vector<std::string> removed, SegmentsToReplace(dataset, name, options.replace));
  ASSIGN_OR_RETURN(table::IndexMetadata meta, BuildSegment(dataset, field, type, name, options));
  return CommitSegment(dataset, std::move(meta), removed);
}

Result<uint64_t> DropIndex(const table::Dataset& dataset, const std::string& name) {
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> existing, dataset.ListIndices());
  std::vector<std::string> removed;
  for (const table::IndexMetadata& m : existing) {
    if (m.name == name) removed.push_back(m.uuid);
  }
  if (removed.empty()) return Status::NotFound(dataset.uri() + ": no index named '" + name + "'");
  return table::CommitIndexChange(dataset, {}, removed);
}

Result<OptimizeIndicesResult> OptimizeIndices(const table::Dataset& dataset,
                                              std::function<void(const std::string&)> progress) {
  OptimizeIndicesResult out;
  out.version = dataset.version();
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> existing, dataset.ListIndices());
  std::map<std::string, std::vector<const table::IndexMetadata*>> by_name;
  for (const table::IndexMetadata& m : existing) by_name[m.name].push_back(&m);
  std::vector<table::IndexMetadata> added;
  std::vector<std::string> removed;
  auto cleanup = [&] {
    for (const table::IndexMetadata& m : added) {
      auto dir = dataset.IndexDirectory(m);
      if (dir.ok()) DeleteSegment(*dataset.store(), *dir);
    }
  };
  for (const auto& [name, segments] : by_name) {
    const table::IndexMetadata& first = *segments.front();
    std::optional<ScalarIndexType> type = ScalarTypeOf(first);
    const bool vector = IsUsableVector(first);
    const bool text = IsTextIndex(first);
    if ((!vector && !text && (!IsUsable(first) || !type)) || first.fields.size() != 1) continue;
    std::set<uint64_t> covered;
    for (const table::IndexMetadata* s : segments) covered.insert(s->fragment_ids.begin(), s->fragment_ids.end());
    bool complete = segments.size() == 1;
    for (const table::FragmentInfo& f : dataset.fragments()) complete = complete && covered.count(f.id);
    if (complete) continue;
    const Field* field = FieldById(dataset.schema(), first.fields[0]);
    if (!field) continue;
    if (progress) progress(name);
    CreateIndexOptions options;
    // Vector segments keep their trained model (centroids, codebook) and re-partition
    // every row; scalar ones are rebuilt from the column.
    auto built = vector ? RebuildVectorSegment(dataset, first)
                 : text ? RebuildTextSegment(dataset, first)
                        : BuildSegment(dataset, *field, *type, name, options);
    if (!built.ok()) {
      cleanup();
      return built.status();
    }
    added.push_back(built.MoveValue());
    for (const table::IndexMetadata* s : segments) removed.push_back(s->uuid);
    out.rebuilt.push_back(name);
  }
  if (added.empty()) return out;
  auto committed = table::CommitIndexChange(dataset, added, removed);
  if (!committed.ok()) {
    cleanup();
    return committed.status();
  }
  out.version = *committed;
  return out;
}

Result<std::vector<IndexStats>> DescribeIndices(const table::Dataset& dataset) {
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> existing, dataset.ListIndices());
  std::vector<IndexStats> out;
  std::map<std::string, size_t> slot;
  std::map<std::string, std::set<uint64_t>> covered;
  for (const table::IndexMetadata& m : existing) {
    auto [it, fresh] = slot.emplace(m.name, out.size());
    if (fresh) {
      IndexStats s;
      s.name = m.name;
      std::optional<ScalarIndexType> type = ScalarTypeOf(m);
      std::optional<VectorIndexType> vector_type = VectorTypeOf(m);
      const bool text = IsTextIndex(m);
      s.type = type          ? ScalarIndexTypeName(*type)
               : vector_type ? VectorIndexTypeName(*vector_type)
               : text        ? "Inverted"
                             : m.type_url;
      const Field* field = m.fields.empty() ? nullptr : FieldById(dataset.schema(), m.fields[0]);
      s.column = field ? field->name : "";
      s.usable = IsUsable(m) || (vector_type && IsUsableVector(m)) ||
                 (text && m.index_version.value_or(0) == fts::kInvertedIndexVersion);
      out.push_back(std::move(s));
    }
    IndexStats& s = out[it->second];
    ++s.num_segments;
    for (const table::IndexFileInfo& f : m.files) s.size_bytes += f.size_bytes;
    covered[m.name].insert(m.fragment_ids.begin(), m.fragment_ids.end());
  }
  for (IndexStats& s : out) {
    for (const table::FragmentInfo& f : dataset.fragments()) {
      const uint64_t live = f.physical_rows - f.deleted_rows;
      (covered[s.name].count(f.id) ? s.num_indexed_rows : s.num_unindexed_rows) += live;
    }
  }
  return out;
}

}  // namespace lancet::index
