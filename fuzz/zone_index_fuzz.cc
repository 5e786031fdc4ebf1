// Fuzzes the zone indexes: the input, after a selector byte, becomes zonemap.lance or
// bloomfilter.lance in a memory store, opened over one of a few value types and
// searched with every query kind; or raw bytes loaded as a split-block Bloom filter
// and probed. Errors are fine; crashes, hangs and huge allocations are bugs.
#include <cstddef>
#include <cstdint>
#include <span>

#include "index/sbbf.h"
#include "index/scalar_index.h"
#include "index/xxhash64.h"
#include "util/array_builder.h"

namespace {

using lancet::Array;
using lancet::DataType;
using lancet::MakeType;
using lancet::TypeId;
using lancet::index::ScalarQuery;

// A literal of `type` from fuzz bytes (a null literal when there are none).
Array Literal(const DataType& type, std::span<const uint8_t> bytes) {
  const size_t width = type.BitWidth() / 8;
  if (width == 0) return lancet::StringArray({std::string(bytes.begin(), bytes.end())});
  std::vector<uint8_t> value(width, 0);
  const bool valid = bytes.size() >= width;
  if (valid) std::copy(bytes.begin(), bytes.begin() + width, value.begin());
  return lancet::MakeFixedWidthArray(type, value, 1, {valid}).MoveValue();
}

void SearchAll(const lancet::index::ScalarIndexReader& reader, const DataType& type, std::span<const uint8_t> tail) {
  const Array a = Literal(type, tail.subspan(0, std::min<size_t>(tail.size(), 8)));
  const Array b = Literal(type, tail.subspan(std::min<size_t>(tail.size(), 8)));
  ScalarQuery q;
  q.kind = ScalarQuery::Kind::kEquals;
  q.values = a;
  (void)reader.Search(q);
  q.kind = ScalarQuery::Kind::kIn;
  q.values = lancet::Concatenate({a, b}).MoveValue();
  (void)reader.Search(q);
  q.kind = ScalarQuery::Kind::kRange;
  q.lower = ScalarQuery::Bound{a, true};
  q.upper = ScalarQuery::Bound{b, false};
  (void)reader.Search(q);
  q.upper.reset();
  (void)reader.Search(q);
  q.kind = ScalarQuery::Kind::kIsNull;
  (void)reader.Search(q);
  q.kind = ScalarQuery::Kind::kPrefix;
  q.prefix = std::string(tail.begin(), tail.begin() + std::min<size_t>(tail.size(), 3));
  if (reader.Supports(q)) (void)reader.Search(q);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  std::span<const uint8_t> rest(data + 1, size - 1);
  if (selector % 3 == 2) {
    // Filter bytes first, then the probes' bytes after the filter's length.
    const size_t n = std::min<size_t>(rest.size(), (selector / 3 + 1) * 32);
    auto filter = lancet::index::Sbbf::Load(rest.subspan(0, n));
    if (!filter.ok()) return 0;
    for (size_t i = n; i + 8 <= rest.size(); i += 8) {
      const uint64_t h = lancet::index::XxHash64(rest.subspan(i, 8));
      filter->Insert(h);
      if (!filter->Check(h)) __builtin_trap();  // an inserted hash is always found
    }
    return 0;
  }
  static const TypeId kTypes[] = {TypeId::kInt64, TypeId::kFloat64, TypeId::kUtf8, TypeId::kInt32};
  const DataType type = MakeType(kTypes[(selector / 3) % 4]);
  const bool zonemap = selector % 3 == 0;
  auto store = lancet::io::NewMemoryStore();
  if (!store->Put(zonemap ? "/i/zonemap.lance" : "/i/bloomfilter.lance", rest).ok()) return 0;
  auto reader = lancet::index::OpenScalarIndex(
      zonemap ? lancet::index::ScalarIndexType::kZoneMap : lancet::index::ScalarIndexType::kBloomFilter, store, "/i",
      type);
  if (!reader.ok()) return 0;
  SearchAll(**reader, type, rest.subspan(rest.size() - std::min<size_t>(rest.size(), 16)));
  return 0;
}
