// The Bitmap index: one RowAddrTreeMap per distinct value (bitmap_file.h).
#include "index/bitmap_file.h"
#include "index/float_nan.h"
#include "index/value_order.h"

namespace lancet::index {
namespace {

class BitmapBuilder final : public ScalarIndexBuilder {
 public:
  BitmapBuilder(const Field& field, std::shared_ptr<io::ObjectStore> store, std::string dir, uint64_t budget)
      : type_(field.type), store_(std::move(store)), dir_(std::move(dir)), acc_(field.type, budget, "Bitmap index") {}

  Status Add(const Array& values, std::span<const uint64_t> rows) override {
    if (values.type != type_ || values.length != static_cast<int64_t>(rows.size())) {
      return Status::InvalidArgument("Bitmap index: " + std::to_string(values.length) + " values of " +
                                     values.type.ToString() + " for " + std::to_string(rows.size()) +
                                     " rows of a " + type_.ToString() + " column");
    }
    for (int64_t i = 0; i < values.length; ++i) RETURN_IF_ERROR(acc_.AddOne(values, i, rows[i]));
    return Status::OK();
  }

  Result<std::vector<IndexFileEntry>> Finish() override {
    ASSIGN_OR_RETURN(IndexFileEntry file, acc_.Write(store_, dir_, {}, std::nullopt));
    return std::vector<IndexFileEntry>{file};
  }

 private:
  DataType type_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string dir_;
  BitmapAccumulator acc_;
};

class BitmapReader final : public ScalarIndexReader {
 public:
  BitmapReader(DataType type, std::unique_ptr<BitmapLookup> lookup) : type_(std::move(type)), lookup_(std::move(lookup)) {}

  ScalarIndexType type() const override { return ScalarIndexType::kBitmap; }

  bool Supports(const ScalarQuery& q) const override {
    switch (q.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
      case ScalarQuery::Kind::kRange:
        return ComparisonLiteralsFit(q, type_);
      case ScalarQuery::Kind::kIsNull:
        return true;
      default:
        return false;
    }
  }

  Result<SearchResult> Search(const ScalarQuery& q) const override {
    if (!Supports(q)) {
      return Status::InvalidArgument(lookup_->file().path() + ": the Bitmap index cannot answer this query");
    }
    SearchResult out;
    switch (q.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
        for (int64_t i = 0; i < q.values.length; ++i) {
          ASSIGN_OR_RETURN(Roaring64Map rows, lookup_->Equal(q.values, i));
          out.rows |= rows;
        }
        break;
      case ScalarQuery::Kind::kRange: {
        ASSIGN_OR_RETURN(out.rows, lookup_->Range(q.lower ? &q.lower->value : nullptr, q.lower && q.lower->inclusive,
                                                  q.upper ? &q.upper->value : nullptr, q.upper && q.upper->inclusive));
        break;
      }
      case ScalarQuery::Kind::kIsNull: {
        ASSIGN_OR_RETURN(out.rows, lookup_->Nulls());
        break;
      }
      default:
        break;
    }
    return out;
  }

 private:
  DataType type_;
  std::unique_ptr<BitmapLookup> lookup_;
};

}  // namespace

Result<std::unique_ptr<ScalarIndexReader>> OpenBitmapIndex(std::shared_ptr<io::ObjectStore> store,
                                                           const std::string& dir, const DataType& value_type) {
  if (!IsOrderable(value_type)) {
    return Status::InvalidArgument("Bitmap index over " + value_type.ToString() + " is not supported");
  }
  ASSIGN_OR_RETURN(auto lookup, BitmapLookup::Open(std::move(store), dir, value_type));
  return std::unique_ptr<ScalarIndexReader>(new BitmapReader(value_type, std::move(lookup)));
}

Result<std::unique_ptr<ScalarIndexBuilder>> MakeBitmapBuilder(const Field& field,
                                                              std::shared_ptr<io::ObjectStore> store,
                                                              const std::string& dir, const BuildOptions& options) {
  if (!IsOrderable(field.type)) {
    return Status::InvalidArgument("Bitmap index: column '" + field.name + "' of type " + field.type.ToString() +
                                   " is not supported");
  }
  if (!options.params.empty()) {
    return Status::InvalidArgument("Bitmap index: unknown param '" + options.params.begin()->first + "'");
  }
  return std::unique_ptr<ScalarIndexBuilder>(new BitmapBuilder(field, std::move(store), dir, options.memory_budget));
}

}  // namespace lancet::index
