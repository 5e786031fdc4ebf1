// The LabelList index over list<T>: a Bitmap over the unnested items (a row is in the
// bitmap of every item its list holds), plus the rows whose list is NULL in global
// buffer 1, named by lance:label_list_nulls (index_version 1).
#include <charconv>

#include "index/bitmap_file.h"
#include "index/float_nan.h"
#include "index/row_addr_map.h"
#include "index/value_order.h"

namespace lancet::index {
namespace {

constexpr const char* kNullsKey = "lance:label_list_nulls";

bool IsListType(const DataType& t) {
  return (t.id == TypeId::kList || t.id == TypeId::kLargeList) && t.children.size() == 1;
}

class LabelListBuilder final : public ScalarIndexBuilder {
 public:
  LabelListBuilder(const Field& field, std::shared_ptr<io::ObjectStore> store, std::string dir, uint64_t budget)
      : type_(field.type),
        store_(std::move(store)),
        dir_(std::move(dir)),
        acc_(field.type.children[0].type, budget, "LabelList index") {}

  Status Add(const Array& values, std::span<const uint64_t> rows) override {
    if (values.type != type_ || values.length != static_cast<int64_t>(rows.size()) || values.children.size() != 1) {
      return Status::InvalidArgument("LabelList index: " + std::to_string(values.length) + " values of " +
                                     values.type.ToString() + " for " + std::to_string(rows.size()) +
                                     " rows of a " + type_.ToString() + " column");
    }
    const Array& items = values.children[0];
    for (int64_t i = 0; i < values.length; ++i) {
      if (values.IsNull(i)) {
        nulls_.add(rows[i]);
        continue;
      }
      auto [begin, end] = values.ListRange(i);
      for (int64_t j = begin; j < end; ++j) RETURN_IF_ERROR(acc_.AddOne(items, j, rows[i]));
    }
    return Status::OK();
  }

  Result<std::vector<IndexFileEntry>> Finish() override {
    // The reference writes the buffer before the pages, so it is global buffer 1.
    ASSIGN_OR_RETURN(IndexFileEntry file, acc_.Write(store_, dir_, {{kNullsKey, "1"}}, EncodeRowAddrMap(nulls_)));
    return std::vector<IndexFileEntry>{file};
  }

 private:
  DataType type_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string dir_;
  BitmapAccumulator acc_;
  Roaring64Map nulls_;
};

class LabelListReader final : public ScalarIndexReader {
 public:
  LabelListReader(DataType type, std::unique_ptr<BitmapLookup> lookup, std::optional<Roaring64Map> nulls)
      : type_(std::move(type)), lookup_(std::move(lookup)), nulls_(std::move(nulls)) {}

  ScalarIndexType type() const override { return ScalarIndexType::kLabelList; }

  bool Supports(const ScalarQuery& q) const override {
    switch (q.kind) {
      case ScalarQuery::Kind::kHasAny:
        return q.values.type == type_ && q.values.null_count == 0 && !HasNaN(q.values);
      case ScalarQuery::Kind::kHasAll:
        // array_has_all(x, []) holds for every non-null list, which no bitmap lists.
        return q.values.type == type_ && q.values.length > 0 && q.values.null_count == 0 && !HasNaN(q.values);
      case ScalarQuery::Kind::kIsNull:
        return nulls_.has_value();  // version 0 files do not record the null lists
      default:
        return false;
    }
  }

  Result<SearchResult> Search(const ScalarQuery& q) const override {
    if (!Supports(q)) {
      return Status::InvalidArgument(lookup_->file().path() + ": the LabelList index cannot answer this query");
    }
    SearchResult out;
    if (q.kind == ScalarQuery::Kind::kIsNull) {
      out.rows = *nulls_;
      return out;
    }
    for (int64_t i = 0; i < q.values.length; ++i) {
      ASSIGN_OR_RETURN(Roaring64Map rows, lookup_->Equal(q.values, i));
      if (q.kind == ScalarQuery::Kind::kHasAny || i == 0) {
        out.rows |= rows;
      } else {
        out.rows &= rows;
      }
    }
    return out;
  }

 private:
  DataType type_;
  std::unique_ptr<BitmapLookup> lookup_;
  std::optional<Roaring64Map> nulls_;
};

Result<std::optional<Roaring64Map>> ReadNulls(const format::FileReader& file) {
  const std::string text = IndexFileMetadata(file, kNullsKey);
  if (text.empty()) return std::optional<Roaring64Map>();
  uint32_t index = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Corruption(file.path() + ": " + kNullsKey + " '" + text + "' is not a global buffer index");
  }
  ASSIGN_OR_RETURN(BufferPtr bytes, file.ReadGlobalBuffer(index));
  ASSIGN_OR_RETURN(Roaring64Map nulls, DecodeRowAddrMap(std::span<const uint8_t>(bytes->data(), bytes->size()),
                                                        file.path() + " null lists"));
  return std::optional<Roaring64Map>(std::move(nulls));
}

}  // namespace

Result<std::unique_ptr<ScalarIndexReader>> OpenLabelListIndex(std::shared_ptr<io::ObjectStore> store,
                                                              const std::string& dir, const DataType& value_type) {
  if (!IsOrderable(value_type)) {
    return Status::InvalidArgument("LabelList index over items of " + value_type.ToString() + " is not supported");
  }
  ASSIGN_OR_RETURN(auto lookup, BitmapLookup::Open(std::move(store), dir, value_type));
  ASSIGN_OR_RETURN(auto nulls, ReadNulls(lookup->file()));
  return std::unique_ptr<ScalarIndexReader>(new LabelListReader(value_type, std::move(lookup), std::move(nulls)));
}

Result<std::unique_ptr<ScalarIndexBuilder>> MakeLabelListBuilder(const Field& field,
                                                                 std::shared_ptr<io::ObjectStore> store,
                                                                 const std::string& dir, const BuildOptions& options) {
  if (!IsListType(field.type) || !IsOrderable(field.type.children[0].type)) {
    return Status::InvalidArgument("LabelList index: column '" + field.name + "' of type " + field.type.ToString() +
                                   " is not a list of orderable items");
  }
  if (!options.params.empty()) {
    return Status::InvalidArgument("LabelList index: unknown param '" + options.params.begin()->first + "'");
  }
  return std::unique_ptr<ScalarIndexBuilder>(new LabelListBuilder(field, std::move(store), dir, options.memory_budget));
}

}  // namespace lancet::index
