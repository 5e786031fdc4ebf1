// Fuzzes the exact scalar index readers: the first byte picks a target, the rest
// replaces one file of a valid segment (built once) or is a RowAddrTreeMap to decode;
// the segment is then opened and searched with every query kind.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "index/row_addr_map.h"
#include "index/scalar_index.h"
#include "util/array_builder.h"

namespace {

using lancet::Array;
using lancet::MakeType;
using lancet::TypeId;
using lancet::index::ScalarIndexType;
using lancet::index::ScalarQuery;

struct Target {
  ScalarIndexType type;
  const char* dir;
  const char* file;
  lancet::DataType value_type;
};

Array Ints() {
  std::vector<int32_t> v(5000);
  std::vector<bool> valid(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int32_t>((i * 37) % 101);
    valid[i] = i % 9 != 0;
  }
  return lancet::ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), v, valid).value();
}

// A memory store holding one valid segment per type.
std::shared_ptr<lancet::io::ObjectStore> Segments() {
  auto store = lancet::io::NewMemoryStore();
  const Array ints = Ints();
  std::vector<uint64_t> rows(static_cast<size_t>(ints.length));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = (uint64_t{i % 3} << 32) | i;
  lancet::index::BuildOptions opts;
  opts.params["batch_size"] = "512";
  auto add = [&](ScalarIndexType type, const lancet::Field& field, const Array& values, const char* dir,
                 const lancet::index::BuildOptions& o) {
    auto b = lancet::index::MakeScalarIndexBuilder(type, field, store, dir, o).value();
    (void)b->Add(values, std::span<const uint64_t>(rows.data(), static_cast<size_t>(values.length)));
    (void)b->Finish();
  };
  add(ScalarIndexType::kBTree, lancet::MakeField("v", ints.type), ints, "btree", opts);
  add(ScalarIndexType::kBitmap, lancet::MakeField("v", ints.type), ints, "bitmap", {});
  const lancet::DataType list = lancet::ListOf(lancet::MakeField("item", ints.type));
  std::vector<int64_t> offsets = {0};
  for (int64_t i = 0; i < 1000; ++i) offsets.push_back(std::min<int64_t>(ints.length, offsets.back() + i % 4));
  Array tags = lancet::MakeListArray(list, offsets, ints).value();
  add(ScalarIndexType::kLabelList, lancet::MakeField("t", list), tags, "labels", {});
  return store;
}

std::vector<ScalarQuery> Queries() {
  auto lit = [](std::vector<int32_t> v) { return lancet::ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), v).value(); };
  std::vector<ScalarQuery> qs(7);
  qs[0].kind = ScalarQuery::Kind::kEquals;
  qs[0].values = lit({7});
  qs[1].kind = ScalarQuery::Kind::kIn;
  qs[1].values = lit({1, 50, 100});
  qs[2].kind = ScalarQuery::Kind::kRange;
  qs[2].lower = ScalarQuery::Bound{lit({10}), false};
  qs[2].upper = ScalarQuery::Bound{lit({60}), true};
  qs[3].kind = ScalarQuery::Kind::kIsNull;
  qs[4].kind = ScalarQuery::Kind::kHasAny;
  qs[4].values = lit({3, 4});
  qs[5].kind = ScalarQuery::Kind::kHasAll;
  qs[5].values = lit({3, 4});
  qs[6].kind = ScalarQuery::Kind::kRange;
  qs[6].upper = ScalarQuery::Bound{lit({5}), false};
  return qs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  const int pick = data[0] % 5;
  if (pick == 0) {
    (void)lancet::index::DecodeRowAddrMap(rest, "fuzz");
    return 0;
  }
  static const auto segments = Segments();
  static const auto queries = Queries();
  const lancet::DataType i32 = MakeType(TypeId::kInt32);
  const Target targets[] = {{ScalarIndexType::kBTree, "btree", "page_lookup.lance", i32},
                            {ScalarIndexType::kBTree, "btree", "page_data.lance", i32},
                            {ScalarIndexType::kBitmap, "bitmap", "bitmap_page_lookup.lance", i32},
                            {ScalarIndexType::kLabelList, "labels", "bitmap_page_lookup.lance", i32}};
  const Target& t = targets[pick - 1];
  // A copy of the segment's files with the one picked replaced.
  auto store = lancet::io::NewMemoryStore();
  for (const char* f : {"page_lookup.lance", "page_data.lance", "bitmap_page_lookup.lance"}) {
    const std::string path = std::string(t.dir) + "/" + f;
    auto file = segments->OpenRead(path);
    if (!file.ok()) continue;
    auto bytes = (*file)->ReadAt(0, (*file)->Size().value());
    if (bytes.ok()) (void)store->Put(path, std::span<const uint8_t>((*bytes)->data(), (*bytes)->size()));
  }
  (void)store->Put(std::string(t.dir) + "/" + t.file, rest);
  auto reader = lancet::index::OpenScalarIndex(t.type, store, t.dir, t.value_type);
  if (!reader.ok()) return 0;
  for (const ScalarQuery& q : queries) {
    if ((*reader)->Supports(q)) (void)(*reader)->Search(q);
  }
  return 0;
}
