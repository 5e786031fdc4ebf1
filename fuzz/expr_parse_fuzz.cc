// Fuzzes the expression language: the input is the text, parsed, bound to a schema with a
// column of every kind expressions read, then evaluated as a filter and as a value over
// rows with nulls, NaN, negative numbers and empty strings.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lancet/expr/expression.h"
#include "lancet/expr/filter.h"
#include "util/array_builder.h"
#include "util/array_json.h"

namespace {

using namespace lancet;

// A fixture column; a bad literal here is a bug of this file, reported before any input.
Array Col(const DataType& type, std::string_view json) {
  auto a = ArrayFromJson(type, json);
  if (!a.ok()) {
    std::fprintf(stderr, "expr_parse_fuzz fixture %s: %s\n", type.ToString().c_str(), a.status().ToString().c_str());
    std::abort();
  }
  return *a;
}

const RecordBatch& Rows() {
  static const RecordBatch batch = [] {
    const DataType point =
        StructOf({MakeField("x", MakeType(TypeId::kInt32)), MakeField("y", MakeType(TypeId::kUtf8))});
    std::vector<std::pair<std::string, Array>> cols = {
        {"i", Col(MakeType(TypeId::kInt64), "[1, null, -9223372036854775808, 7]")},
        {"i8", Col(MakeType(TypeId::kInt8), "[-128, 127, null, 0]")},
        {"u", Col(MakeType(TypeId::kUInt8), "[0, 255, null, 3]")},
        {"u64", Col(MakeType(TypeId::kUInt64), "[0, 18446744073709551615, null, 3]")},
        {"f", Col(MakeType(TypeId::kFloat64), "[1.5, null, -0.0, \"NaN\"]")},
        {"f32", Col(MakeType(TypeId::kFloat32), "[\"-Inf\", 0.1, null, 3]")},
        {"h", Col(MakeType(TypeId::kFloat16), "[1, null, -2, 0.5]")},
        {"s", Col(MakeType(TypeId::kUtf8), R"(["a", "", null, "\u00e9\u03a3"])")},
        {"ls", Col(MakeType(TypeId::kLargeUtf8), R"(["%_", "\\", null, "ABC"])")},
        {"bin", Col(MakeType(TypeId::kBinary), R"(["00ff", "", null, "61"])")},
        {"b", Col(MakeType(TypeId::kBool), "[true, false, null, true]")},
        {"d", Col(MakeType(TypeId::kDate32), "[0, 19000, null, -1]")},
        {"d64", Col(MakeType(TypeId::kDate64), "[0, 86400000, null, -86400000]")},
        {"t", Col(TimestampType(TimeUnit::kMicro, "UTC"), "[0, null, 1700000000000000, -5]")},
        {"p", Col(point, R"([{"x": 1, "y": "q"}, null, {"x": null, "y": null}, {"x": 4, "y": "r"}])")},
        {"l", Col(ListOf(MakeField("item", MakeType(TypeId::kInt32))), "[[1], null, [], [2, null, 3]]")},
        {"lf", Col(FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 2),
                   "[[1, 2], null, [\"NaN\", 0], [-1, null]]")},
        {"lstr", Col(ListOf(MakeField("item", MakeType(TypeId::kUtf8))), R"([["a"], [], null, ["", "b"]])")},
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
