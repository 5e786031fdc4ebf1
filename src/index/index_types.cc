// What each scalar index type is called, where the reference's type URLs point, and
// which index_version each writes.
#include <algorithm>
#include <cctype>

#include "index/index_types.h"

namespace lancet::index {
namespace {

struct TypeInfo {
  ScalarIndexType type;
  const char* cli;      // lancet index create --type
  const char* display;  // as plans print it
  const char* type_url;
  int32_t version;  // what the reference writes and reads at most
};

constexpr TypeInfo kTypes[] = {
    {ScalarIndexType::kBTree, "btree", "BTree", "/lance.table.BTreeIndexDetails", 0},
    {ScalarIndexType::kBitmap, "bitmap", "Bitmap", "/lance.table.BitmapIndexDetails", 0},
    {ScalarIndexType::kLabelList, "label_list", "LabelList", "/lance.table.LabelListIndexDetails", 1},
    {ScalarIndexType::kZoneMap, "zonemap", "ZoneMap", "/lance.table.ZoneMapIndexDetails", 0},
    {ScalarIndexType::kBloomFilter, "bloomfilter", "BloomFilter", "/lance.index.pb.BloomFilterIndexDetails", 0},
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

const TypeInfo& Info(ScalarIndexType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return t;
  }
  return kTypes[0];
}

}  // namespace

Result<ScalarIndexType> ParseScalarIndexType(const std::string& name) {
  const std::string want = Lower(name);
  for (const TypeInfo& t : kTypes) {
    if (want == t.cli || want == Lower(t.display) || (want == "labellist" && t.type == ScalarIndexType::kLabelList) ||
        (want == "zone_map" && t.type == ScalarIndexType::kZoneMap) ||
        (want == "bloom_filter" && t.type == ScalarIndexType::kBloomFilter)) {
      return t.type;
    }
  }
  return Status::InvalidArgument("unknown scalar index type '" + name +
                                 "' (choose btree, bitmap, label_list, zonemap or bloomfilter)");
}

const char* ScalarIndexTypeName(ScalarIndexType type) { return Info(type).display; }
const char* ScalarIndexTypeUrl(ScalarIndexType type) { return Info(type).type_url; }
int32_t ScalarIndexVersion(ScalarIndexType type) { return Info(type).version; }

std::optional<ScalarIndexType> ScalarTypeOf(const table::IndexMetadata& index) {
  const std::string url = Lower(index.type_url);
  for (const TypeInfo& t : kTypes) {
    if (url == Lower(t.type_url)) return t.type;
  }
  return std::nullopt;
}

bool IsUsable(const table::IndexMetadata& index) {
  std::optional<ScalarIndexType> type = ScalarTypeOf(index);
  return type && index.index_version.value_or(0) <= Info(*type).version;
}

}  // namespace lancet::index
