// Fuzzes DeleteWhere's predicate language: the input is the predicate text, bound to a
// schema with every comparable kind of column and evaluated over rows with nulls.
#include <cstddef>
#include <cstdint>
#include <string>

#include "table/predicate.h"
#include "util/array_builder.h"
#include "util/array_json.h"

namespace {

using namespace lancet;

const RecordBatch& Rows() {
  static const RecordBatch batch = [] {
    const DataType point =
        StructOf({MakeField("x", MakeType(TypeId::kInt32)), MakeField("y", MakeType(TypeId::kUtf8))});
    std::vector<std::pair<std::string, Array>> cols = {
        {"i", *ArrayFromJson(MakeType(TypeId::kInt64), "[1, null, -9223372036854775808, 7]")},
        {"u", *ArrayFromJson(MakeType(TypeId::kUInt8), "[0, 255, null, 3]")},
        {"f", *ArrayFromJson(MakeType(TypeId::kFloat64), "[1.5, null, -0.0, 3]")},
        {"s", *ArrayFromJson(MakeType(TypeId::kUtf8), R"(["a", "", null, "\u00e9"])")},
        {"b", *ArrayFromJson(MakeType(TypeId::kBool), "[true, false, null, true]")},
        {"d", *ArrayFromJson(MakeType(TypeId::kDate32), "[0, 19000, null, -1]")},
        {"t", *ArrayFromJson(TimestampType(TimeUnit::kMicro, "UTC"), "[0, null, 1700000000000000, 5]")},
        {"p", *ArrayFromJson(point, R"([{"x": 1, "y": "q"}, null, {"x": null, "y": null}, {"x": 4, "y": "r"}])")},
        {"l", *ArrayFromJson(ListOf(MakeField("item", MakeType(TypeId::kInt32))), "[[1], null, [], [2, 3]]")},
    };
    std::vector<std::string> names;
    std::vector<Array> arrays;
    for (auto& [n, a] : cols) {
      names.push_back(n);
      arrays.push_back(std::move(a));
    }
    return *MakeRecordBatch(names, std::move(arrays));
  }();
  return batch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)lancet::table::ParsePredicate(text);
  auto bound = lancet::table::BoundPredicate::Bind(text, Rows().schema);
  if (!bound.ok()) return 0;
  auto mask = bound->Evaluate(Rows());
  if (mask.ok() && mask->size() != static_cast<size_t>(Rows().num_rows)) __builtin_trap();
  return 0;
}
