// Fuzzes the expression language: the input is the text, parsed, bound to a schema with a
// column of every kind expressions read, then evaluated as a filter and as a value over
// rows with nulls, NaN, negative numbers and empty strings.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lancet/expr/expression.h"
#include "lancet/expr/filter.h"
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
        {"i8", *ArrayFromJson(MakeType(TypeId::kInt8), "[-128, 127, null, 0]")},
        {"u", *ArrayFromJson(MakeType(TypeId::kUInt8), "[0, 255, null, 3]")},
        {"u64", *ArrayFromJson(MakeType(TypeId::kUInt64), "[0, 18446744073709551615, null, 3]")},
        {"f", *ArrayFromJson(MakeType(TypeId::kFloat64), "[1.5, null, -0.0, \"NaN\"]")},
        {"f32", *ArrayFromJson(MakeType(TypeId::kFloat32), "[\"-Infinity\", 0.1, null, 3]")},
        {"h", *ArrayFromJson(MakeType(TypeId::kFloat16), "[1, null, -2, 0.5]")},
        {"s", *ArrayFromJson(MakeType(TypeId::kUtf8), R"(["a", "", null, "\u00e9\u03a3"])")},
        {"ls", *ArrayFromJson(MakeType(TypeId::kLargeUtf8), R"(["%_", "\\", null, "ABC"])")},
        {"bin", *ArrayFromJson(MakeType(TypeId::kBinary), R"(["00ff", "", null, "61"])")},
        {"b", *ArrayFromJson(MakeType(TypeId::kBool), "[true, false, null, true]")},
        {"d", *ArrayFromJson(MakeType(TypeId::kDate32), "[0, 19000, null, -1]")},
        {"d64", *ArrayFromJson(MakeType(TypeId::kDate64), "[0, 86400000, null, -86400000]")},
        {"t", *ArrayFromJson(TimestampType(TimeUnit::kMicro, "UTC"), "[0, null, 1700000000000000, -5]")},
        {"p", *ArrayFromJson(point, R"([{"x": 1, "y": "q"}, null, {"x": null, "y": null}, {"x": 4, "y": "r"}])")},
        {"l", *ArrayFromJson(ListOf(MakeField("item", MakeType(TypeId::kInt32))), "[[1], null, [], [2, null, 3]]")},
        {"lf", *ArrayFromJson(FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 2),
                              "[[1, 2], null, [\"NaN\", 0], [-1, null]]")},
        {"lstr", *ArrayFromJson(ListOf(MakeField("item", MakeType(TypeId::kUtf8))), R"([["a"], [], null, ["", "b"]])")},
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
  auto parsed = lancet::expr::Parse(text);
  if (parsed.ok()) (void)lancet::expr::ToString(**parsed);
  auto value = lancet::expr::BoundExpression::Bind(text, Rows().schema);
  if (!value.ok()) return 0;
  auto array = value->Evaluate(Rows());
  if (array.ok() && (array->length != Rows().num_rows || !array->Validate().ok())) __builtin_trap();
  auto filter = lancet::expr::Filter::Bind(text, Rows().schema);
  if (!filter.ok()) return 0;
  auto mask = filter->Evaluate(Rows());
  if (mask.ok() && mask->size() != static_cast<size_t>(Rows().num_rows)) __builtin_trap();
  return 0;
}
