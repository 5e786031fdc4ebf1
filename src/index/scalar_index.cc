#include "index/scalar_index.h"

namespace lancet::index {

Result<std::unique_ptr<ScalarIndexReader>> OpenScalarIndex(ScalarIndexType type,
                                                           std::shared_ptr<io::ObjectStore> store,
                                                           const std::string& dir, const DataType& value_type) {
  switch (type) {
    case ScalarIndexType::kBTree:
      return OpenBTreeIndex(std::move(store), dir, value_type);
    case ScalarIndexType::kBitmap:
      return OpenBitmapIndex(std::move(store), dir, value_type);
    case ScalarIndexType::kLabelList:
      return OpenLabelListIndex(std::move(store), dir, value_type);
    case ScalarIndexType::kZoneMap:
      return OpenZoneMapIndex(std::move(store), dir, value_type);
    case ScalarIndexType::kBloomFilter:
      return OpenBloomFilterIndex(std::move(store), dir, value_type);
  }
  return Status::Internal("unknown scalar index type");
}

Result<std::unique_ptr<ScalarIndexBuilder>> MakeScalarIndexBuilder(ScalarIndexType type, const Field& field,
                                                                   std::shared_ptr<io::ObjectStore> store,
                                                                   const std::string& dir,
                                                                   const BuildOptions& options) {
  switch (type) {
    case ScalarIndexType::kBTree:
      return MakeBTreeBuilder(field, std::move(store), dir, options);
    case ScalarIndexType::kBitmap:
      return MakeBitmapBuilder(field, std::move(store), dir, options);
    case ScalarIndexType::kLabelList:
      return MakeLabelListBuilder(field, std::move(store), dir, options);
    case ScalarIndexType::kZoneMap:
      return MakeZoneMapBuilder(field, std::move(store), dir, options);
    case ScalarIndexType::kBloomFilter:
      return MakeBloomFilterBuilder(field, std::move(store), dir, options);
  }
  return Status::Internal("unknown scalar index type");
}

}  // namespace lancet::index
