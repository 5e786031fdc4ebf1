// Builds a BTree segment: the pairs go through an ExternalSorter, so memory stays
// within BuildOptions::memory_budget however long the column is.
#include <charconv>

#include "index/btree.h"
#include "index/external_sort.h"
#include "index/index_file.h"
#include "index/value_order.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

class BTreeBuilder final : public ScalarIndexBuilder {
 public:
  BTreeBuilder(const Field& field, std::shared_ptr<io::ObjectStore> store, std::string dir, uint64_t batch_size,
               const BuildOptions& options)
      : type_(field.type),
        store_(std::move(store)),
        dir_(std::move(dir)),
        batch_size_(batch_size),
        sorter_(field.type, options.memory_budget, options.spill_dir) {}

  Status Add(const Array& values, std::span<const uint64_t> rows) override {
    if (values.type != type_) {
      return Status::InvalidArgument("BTree index: values are " + values.type.ToString() + ", the column " +
                                     type_.ToString());
    }
    if (values.length != static_cast<int64_t>(rows.size())) {
      return Status::InvalidArgument("BTree index: " + std::to_string(values.length) + " values but " +
                                     std::to_string(rows.size()) + " rows");
    }
    return sorter_.Add(values, rows);
  }

  Result<std::vector<IndexFileEntry>> Finish() override {
    Schema data_schema;
    data_schema.fields = {MakeField("values", type_, true), MakeField("ids", MakeType(TypeId::kUInt64), false)};
    ASSIGN_OR_RETURN(auto data, CreateIndexFile(store_, dir_, kBTreePageData, data_schema));
    const Schema& schema = data->schema();
    RETURN_IF_ERROR(sorter_.Finish(static_cast<int64_t>(batch_size_),
                                   [&](const Array& values, std::span<const uint64_t> ids) -> Status {
                                     RETURN_IF_ERROR(AddPage(values));
                                     std::vector<uint64_t> copy(ids.begin(), ids.end());
                                     ASSIGN_OR_RETURN(Array id_array, ArrayFromVector(MakeType(TypeId::kUInt64), copy));
                                     return data->Write(RecordBatch{schema, values.length, {values, id_array}});
                                   }));
    std::vector<IndexFileEntry> files;
    ASSIGN_OR_RETURN(IndexFileEntry data_entry, FinishIndexFile(*data, kBTreePageData));
    files.push_back(data_entry);
    ASSIGN_OR_RETURN(IndexFileEntry lookup_entry, WriteLookup());
    files.push_back(lookup_entry);
    return files;
  }

 private:
  Status AddPage(const Array& page) {
    // Copies, so that the lookup does not keep every page's buffers alive.
    ASSIGN_OR_RETURN(Array ends, TakeRows(page, {0, page.length - 1}));
    ends_.push_back(std::move(ends));
    uint32_t nulls = 0;
    for (int64_t i = 0; i < page.length; ++i) nulls += page.IsNull(i) ? 1 : 0;
    null_counts_.push_back(nulls);
    return Status::OK();
  }

  Result<IndexFileEntry> WriteLookup() {
    const uint32_t pages = static_cast<uint32_t>(ends_.size());
    std::vector<int64_t> firsts, lasts;
    std::vector<uint32_t> page_idx(pages);
    for (uint32_t p = 0; p < pages; ++p) {
      firsts.push_back(2 * p);
      lasts.push_back(2 * p + 1);
      page_idx[p] = p;
    }
    Array mins, maxs;
    if (pages == 0) {
      ASSIGN_OR_RETURN(mins, MakeNullArray(type_, 0));
      maxs = mins;
    } else {
      ASSIGN_OR_RETURN(Array all, Concatenate(ends_));
      ASSIGN_OR_RETURN(mins, TakeRows(all, firsts));
      ASSIGN_OR_RETURN(maxs, TakeRows(all, lasts));
    }
    ASSIGN_OR_RETURN(Array counts, ArrayFromVector(MakeType(TypeId::kUInt32), null_counts_));
    ASSIGN_OR_RETURN(Array idx, ArrayFromVector(MakeType(TypeId::kUInt32), page_idx));
    Schema schema;
    schema.fields = {MakeField("min", type_, true), MakeField("max", type_, true),
                     MakeField("null_count", MakeType(TypeId::kUInt32), false),
                     MakeField("page_idx", MakeType(TypeId::kUInt32), false)};
    schema.metadata[kBTreeBatchSizeKey] = std::to_string(batch_size_);
    schema.metadata[kBTreeRangePartitionedKey] = "false";
    ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store_, dir_, kBTreePageLookup, schema));
    RETURN_IF_ERROR(writer->Write(RecordBatch{writer->schema(), pages, {mins, maxs, counts, idx}}));
    return FinishIndexFile(*writer, kBTreePageLookup);
  }

  DataType type_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string dir_;
  uint64_t batch_size_;
  ExternalSorter sorter_;
  std::vector<Array> ends_;  // per page: its first and last value
  std::vector<uint32_t> null_counts_;
};

}  // namespace

Result<std::unique_ptr<ScalarIndexBuilder>> MakeBTreeBuilder(const Field& field, std::shared_ptr<io::ObjectStore> store,
                                                             const std::string& dir, const BuildOptions& options) {
  if (!IsOrderable(field.type)) {
    return Status::InvalidArgument("BTree index: column '" + field.name + "' of type " + field.type.ToString() +
                                   " cannot be ordered");
  }
  uint64_t batch_size = kBTreeDefaultBatchSize;
  for (const auto& [key, value] : options.params) {
    if (key != kBTreeBatchSizeKey) return Status::InvalidArgument("BTree index: unknown param '" + key + "'");
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), batch_size);
    if (ec != std::errc() || end != value.data() + value.size() || batch_size == 0 || batch_size > (1u << 30)) {
      return Status::InvalidArgument("BTree index: batch_size '" + value + "' is not a row count");
    }
  }
  return std::unique_ptr<ScalarIndexBuilder>(new BTreeBuilder(field, std::move(store), dir, batch_size, options));
}

}  // namespace lancet::index
