// DeleteWhere predicates: parsing (precedence, errors with positions), binding to a
// schema, three-valued evaluation, and deleting from a table by predicate.
#include "table/predicate.h"

#include <gtest/gtest.h>

#include "lancet/table/write.h"
#include "table/predicate_literal.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

std::string Canonical(const std::string& text) {
  auto parsed = ParsePredicate(text);
  if (!parsed.ok()) return "error: " + parsed.status().message();
  return PredicateToString(**parsed);
}

std::string ParseError(const std::string& text) {
  auto parsed = ParsePredicate(text);
  EXPECT_FALSE(parsed.ok()) << text;
  if (parsed.ok()) return "";
  EXPECT_TRUE(parsed.status().IsInvalidArgument());
  return parsed.status().message();
}

TEST(PredicateParser, Precedence) {
  EXPECT_EQ(Canonical("a = 1 OR b = 2 AND c = 3"), "(a = 1 OR (b = 2 AND c = 3))");
  EXPECT_EQ(Canonical("a = 1 AND b = 2 OR c = 3"), "((a = 1 AND b = 2) OR c = 3)");
  EXPECT_EQ(Canonical("(a = 1 OR b = 2) AND c = 3"), "((a = 1 OR b = 2) AND c = 3)");
  EXPECT_EQ(Canonical("NOT a = 1 AND b = 2"), "((NOT a = 1) AND b = 2)");
  EXPECT_EQ(Canonical("NOT (a = 1 AND b = 2)"), "(NOT (a = 1 AND b = 2))");
  EXPECT_EQ(Canonical("a = 1 OR b = 2 OR c = 3"), "((a = 1 OR b = 2) OR c = 3)");
  EXPECT_EQ(Canonical("not not a is null"), "(NOT (NOT a IS NULL))");
}

TEST(PredicateParser, OperandsAndLiterals) {
  EXPECT_EQ(Canonical("x<>-5"), "x != -5");
  EXPECT_EQ(Canonical("x != 2.5e3"), "x != 2.5e3");
  EXPECT_EQ(Canonical("5 < x"), "x > 5");
  EXPECT_EQ(Canonical("'b' >= s.inner.name"), "s.inner.name <= 'b'");
  EXPECT_EQ(Canonical("name = 'it''s'"), "name = 'it''s'");
  EXPECT_EQ(Canonical("flag = TRUE and v is not null"), "(flag = TRUE AND v IS NOT NULL)");
  EXPECT_EQ(Canonical("`weird name` = null"), "weird name = null");
  EXPECT_EQ(Canonical("`and` = 1"), "and = 1");

  auto parsed = ParsePredicate("name = 'it''s'");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)->literal.string_value, "it's");
  parsed = ParsePredicate("x = 18446744073709551615");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE((*parsed)->literal.int_value == (static_cast<__int128>(1) << 64) - 1);
}

TEST(PredicateParser, ErrorsNamePositionAndColumn) {
  EXPECT_NE(ParseError("x >").find("column 'x': expected a literal"), std::string::npos);
  EXPECT_NE(ParseError("x >").find("at position 3 (end of input)"), std::string::npos);
  EXPECT_NE(ParseError("a = 1 AND").find("at position 9"), std::string::npos);
  EXPECT_NE(ParseError("a = 1 b = 2")
                .find("expected AND, OR or the end of the predicate at "
                      "position 6 ('b')"),
            std::string::npos);
  EXPECT_NE(ParseError("(a = 1").find("expected ')' at position 6"), std::string::npos);
  EXPECT_NE(ParseError("a = 'abc").find("unterminated string literal at position 4"), std::string::npos);
  EXPECT_NE(ParseError("a ! 1").find("unknown operator"), std::string::npos);
  EXPECT_NE(ParseError("a = 1 ; drop").find("unexpected character at position 6"), std::string::npos);
  EXPECT_NE(ParseError("a IS 1").find("column 'a': expected NULL after IS at position 5"), std::string::npos);
  EXPECT_NE(ParseError("a 1").find("column 'a': expected a comparison operator or IS"), std::string::npos);
  EXPECT_NE(ParseError("s. = 1").find("column 's': expected a struct member name"), std::string::npos);
  EXPECT_NE(ParseError("").find("empty"), std::string::npos);
  EXPECT_NE(ParseError("   ").find("empty"), std::string::npos);
  EXPECT_NE(ParseError("a = 1.2.3").find("malformed number"), std::string::npos);
  EXPECT_NE(ParseError("a = 123456789012345678901").find("out of range"), std::string::npos);
  EXPECT_NE(ParseError("a = 1e999").find("out of range"), std::string::npos);
  EXPECT_NE(ParseError("AND = 1").find("position 0"), std::string::npos);
  EXPECT_NE(ParseError("`a = 1").find("unterminated"), std::string::npos);
}

TEST(PredicateParser, HostileInputIsBounded) {
  std::string deep(10000, '(');
  EXPECT_NE(ParseError(deep + "a = 1").find("nests too deeply"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 10000; ++i) nots += "NOT ";
  EXPECT_NE(ParseError(nots + "a = 1").find("nests too deeply"), std::string::npos);
  std::string chain = "a = 0";
  for (int i = 1; i < 5000; ++i) chain += " OR a = " + std::to_string(i);
  EXPECT_NE(ParseError(chain).find("more than 4096 terms"), std::string::npos);
}

TEST(PredicateLiteral, IsoDatesAndTimestamps) {
  EXPECT_EQ(ParseIsoDate("1970-01-01"), 0);
  EXPECT_EQ(ParseIsoDate("2024-02-29"), 19782);
  EXPECT_EQ(ParseIsoDate("1969-12-31"), -1);
  EXPECT_FALSE(ParseIsoDate("2023-02-29"));
  EXPECT_FALSE(ParseIsoDate("2024-1-01"));
  EXPECT_FALSE(ParseIsoDate("2024-01-01x"));
  auto ts = [](const char* s) -> int64_t {
    auto v = ParseIsoTimestampNanos(s);
    return v ? static_cast<int64_t>(*v) : INT64_MIN;
  };
  EXPECT_EQ(ts("1970-01-01T00:00:01"), 1000000000);
  EXPECT_EQ(ts("1970-01-01 00:00:01.5"), 1500000000);
  EXPECT_EQ(ts("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(ts("1970-01-01T00:00:00-0130"), int64_t{5400} * 1000000000);
  EXPECT_EQ(ts("1970-01-01T00:01Z"), int64_t{60} * 1000000000);
  EXPECT_EQ(ts("1970-01-01T00:00:00.000000001"), 1);
  EXPECT_EQ(ts("1970-01-01T24:00:00"), INT64_MIN);
  EXPECT_EQ(ts("1970-01-01T00:00:00.0000000001"), INT64_MIN);
  EXPECT_EQ(ts("1970-01-01T00:00:00+"), INT64_MIN);
}

// Columns: id int64, name utf8 (nullable), score float32, flag bool, day date32, ts
// timestamp[ms], small int8, s struct<inner struct<v int32>, label utf8>.
RecordBatch TestBatch() {
  std::vector<bool> valid = {true, true, false, true, true, true};
  Array id = *ArrayFromVector(MakeType(TypeId::kInt64), std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  Array name = StringArray({"ann", "bob", std::nullopt, "it's", "zed", ""});
  Array score = *ArrayFromVector(MakeType(TypeId::kFloat32), std::vector<float>{0.5f, 1.5f, 2.5f, -1, 0, 100},
                                 {true, true, true, false, true, true});
  Array flag = *ArrayFromVector(MakeType(TypeId::kBool), std::vector<bool>{true, false, true, false, true, false},
                                {true, true, true, true, false, true});
  Array day = *ArrayFromVector(MakeType(TypeId::kDate32), std::vector<int32_t>{0, 19782, 19783, -1, 10, 19782});
  Array ts = *ArrayFromVector(TimestampType(TimeUnit::kMilli), std::vector<int64_t>{0, 1000, 1500, 86400000, -1, 2000});
  Array small = *ArrayFromVector(MakeType(TypeId::kInt8), std::vector<int8_t>{-128, 0, 1, 127, 5, 5});
  Array v = *ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{10, 20, 30, 40, 50, 60},
                             {true, true, true, true, true, false});
  Array inner = *MakeStructArray({"v"}, 6, {v}, {true, false, true, true, true, true});
  Array label = StringArray({"a", "b", "c", "d", "e", "f"});
  Array s = *MakeStructArray({"inner", "label"}, 6, {inner, label}, valid);
  return *MakeRecordBatch({"id", "name", "score", "flag", "day", "ts", "small", "s"},
                          {id, name, score, flag, day, ts, small, s});
}

// Ids of the rows of TestBatch() that `text` matches, or the error message.
std::string Matches(const std::string& text) {
  RecordBatch batch = TestBatch();
  auto bound = BoundPredicate::Bind(text, batch.schema);
  if (!bound.ok()) return "error: " + bound.status().message();
  auto match = bound->Evaluate(batch);
  if (!match.ok()) return "eval error: " + match.status().message();
  std::string out;
  for (size_t i = 0; i < match->size(); ++i) {
    if ((*match)[i]) out += (out.empty() ? "" : ",") + std::to_string(i + 1);
  }
  return out;
}

TEST(PredicateEval, Comparisons) {
  EXPECT_EQ(Matches("id = 3"), "3");
  EXPECT_EQ(Matches("id != 3"), "1,2,4,5,6");
  EXPECT_EQ(Matches("id <> 3 AND id < 5"), "1,2,4");
  EXPECT_EQ(Matches("id >= 5 OR id <= 1"), "1,5,6");
  EXPECT_EQ(Matches("2 < id"), "3,4,5,6");
  EXPECT_EQ(Matches("id > 2.5"), "3,4,5,6");
  EXPECT_EQ(Matches("small = -128 OR small = 127"), "1,4");
  EXPECT_EQ(Matches("name = 'it''s'"), "4");
  EXPECT_EQ(Matches("name < 'b'"), "1,6");
  EXPECT_EQ(Matches("name = ''"), "6");
  EXPECT_EQ(Matches("score > 1"), "2,3,6");
  EXPECT_EQ(Matches("score = 0.5"), "1");
  EXPECT_EQ(Matches("flag = true"), "1,3");
  EXPECT_EQ(Matches("flag = FALSE"), "2,4,6");
  EXPECT_EQ(Matches("day = '2024-02-29'"), "2,6");
  EXPECT_EQ(Matches("day < '1970-01-01'"), "4");
  EXPECT_EQ(Matches("day = 19783"), "3");
  EXPECT_EQ(Matches("ts >= '1970-01-01T00:00:01.5Z' AND ts < '1970-01-02'"), "3,6");
  EXPECT_EQ(Matches("ts = '1970-01-01 01:00:01+01:00'"), "2");
  EXPECT_EQ(Matches("ts < 0"), "5");
}

TEST(PredicateEval, NullsAndThreeValuedLogic) {
  EXPECT_EQ(Matches("name IS NULL"), "3");
  EXPECT_EQ(Matches("name IS NOT NULL"), "1,2,4,5,6");
  // A comparison with null is unknown: neither it nor its negation matches.
  EXPECT_EQ(Matches("name = 'x'"), "");
  EXPECT_EQ(Matches("NOT name = 'x'"), "1,2,4,5,6");
  EXPECT_EQ(Matches("name = NULL"), "");
  EXPECT_EQ(Matches("NOT name = NULL"), "");
  EXPECT_EQ(Matches("name != NULL"), "");
  // unknown OR true = true, unknown AND true = unknown, unknown OR false = unknown.
  EXPECT_EQ(Matches("score > 0 OR id = 4"), "1,2,3,4,6");
  EXPECT_EQ(Matches("NOT (score > 0 AND id = 4)"), "1,2,3,5,6");
  EXPECT_EQ(Matches("NOT (score > 0 OR id = 99)"), "5");
  EXPECT_EQ(Matches("flag IS NULL"), "5");
}

TEST(PredicateEval, StructMembers) {
  // Row 3's struct is null, row 2's inner struct is null, row 6's v is null.
  EXPECT_EQ(Matches("s IS NULL"), "3");
  EXPECT_EQ(Matches("s.label = 'c'"), "");
  EXPECT_EQ(Matches("s.label IS NULL"), "3");
  EXPECT_EQ(Matches("s.inner IS NULL"), "2,3");
  EXPECT_EQ(Matches("s.inner.v IS NULL"), "2,3,6");
  EXPECT_EQ(Matches("s.inner.v >= 30"), "4,5");
  EXPECT_EQ(Matches("s.inner.v > 0 OR s.label = 'b'"), "1,2,4,5");
}

TEST(PredicateBind, ErrorsNameTheColumn) {
  EXPECT_NE(Matches("nope = 1").find("column 'nope' not found (columns: id, name,"), std::string::npos);
  EXPECT_NE(Matches("id = 1 OR s.zzz = 1").find("struct column 's' has no member 'zzz'"), std::string::npos);
  EXPECT_NE(Matches("id.x = 1").find("column 'id' of type int64 has no member 'x'"), std::string::npos);
  EXPECT_NE(Matches("small = 128")
                .find("column 'small': literal 128 is out of range for type "
                      "int8 at position 0"),
            std::string::npos);
  EXPECT_NE(Matches("small > -129").find("out of range"), std::string::npos);
  EXPECT_NE(Matches("id = 'x'").find("column 'id': literal 'x' does not fit type int64"), std::string::npos);
  EXPECT_NE(Matches("name = 3").find("column 'name': literal 3 does not fit type utf8"), std::string::npos);
  EXPECT_NE(Matches("flag = 1").find("expected TRUE or FALSE"), std::string::npos);
  EXPECT_NE(Matches("day = '2023-02-30'").find("column 'day': literal '2023-02-30' is not a date"), std::string::npos);
  EXPECT_NE(Matches("ts = '1970-01-01T00:00:00.0001'").find("finer than the unit"), std::string::npos);
  EXPECT_NE(Matches("s = 1").find("column 's': comparisons on type struct"), std::string::npos);
  EXPECT_NE(Matches("id = 1 AND x").find("expected a comparison operator or IS"), std::string::npos);
}

TEST(PredicateBind, ColumnsInSchemaOrderOnce) {
  RecordBatch batch = TestBatch();
  ASSERT_OK_AND_ASSIGN(BoundPredicate p,
                       BoundPredicate::Bind("s.inner.v = 1 OR id = 2 AND s.label = 'x' OR id = 3", batch.schema));
  EXPECT_EQ(p.columns(), (std::vector<std::string>{"id", "s"}));
}

TEST(PredicateEval, DictionaryColumn) {
  Array dict = StringArray({"red", "green", "blue"});
  Array idx =
      *ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{0, 1, 2, 1, 0}, {true, true, true, false, true});
  ASSERT_OK_AND_ASSIGN(Array colour, MakeDictionaryArray(idx, dict));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"colour"}, {colour}));
  ASSERT_OK_AND_ASSIGN(BoundPredicate p, BoundPredicate::Bind("colour = 'green' OR colour >= 'red'", batch.schema));
  ASSERT_OK_AND_ASSIGN(std::vector<bool> m, p.Evaluate(batch));
  EXPECT_EQ(m, (std::vector<bool>{true, true, false, false, true}));
}

TEST(PredicateEval, HalfFloatsAndWideUnsigned) {
  // 1.0, -2.0, 0.5, the smallest subnormal, NaN.
  Array h = *ArrayFromVector(MakeType(TypeId::kFloat16), std::vector<uint16_t>{0x3C00, 0xC000, 0x3800, 0x0001, 0x7E00});
  Array u = *ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{0, UINT64_MAX, 1ull << 63, 5, 6});
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"h", "u"}, {h, u}));
  auto eval = [&](const std::string& text) {
    auto p = BoundPredicate::Bind(text, batch.schema);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p->Evaluate(batch) : std::vector<bool>{};
  };
  EXPECT_EQ(eval("h > 0"), (std::vector<bool>{true, false, true, true, false}));
  EXPECT_EQ(eval("h = -2 OR h = 0.5"), (std::vector<bool>{false, true, true, false, false}));
  EXPECT_EQ(eval("h != 1"), (std::vector<bool>{false, true, true, true, true}));  // NaN differs from everything
  EXPECT_EQ(eval("u = 18446744073709551615"), (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(eval("u >= 9223372036854775808"), (std::vector<bool>{false, true, true, false, false}));
  auto negative = BoundPredicate::Bind("u > -1", batch.schema);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("literal -1 is out of range for type uint64"), std::string::npos);
}

// --- DeleteWhere on a table -------------------------------------------------------

constexpr const char* kRoot = "mem/pred";

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i % 3)));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

std::vector<int64_t> Ids(const Dataset& ds) {
  ScanOptions scan;
  scan.columns = {"id"};
  auto batches = ds.Scan(scan);
  EXPECT_TRUE(batches.ok());
  std::vector<int64_t> ids;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].values<int64_t>()[i]);
  }
  return ids;
}

// Every object under `root` in `store`, recursively.
std::vector<std::string> AllFiles(const io::ObjectStore& store, const std::string& dir) {
  std::vector<std::string> out;
  auto listed = store.List(dir);
  if (!listed.ok()) return out;
  for (const io::ObjectInfo& info : *listed) {
    std::string p = dir + "/" + info.path;
    if (info.is_dir) {
      for (std::string& f : AllFiles(store, p)) out.push_back(std::move(f));
    } else {
      out.push_back(p);
    }
  }
  return out;
}

TEST(DeleteWhere, DeletesMatchingRowsAcrossFragments) {
  auto store = io::NewMemoryStore();
  WriteParams params;
  params.max_rows_per_file = 10;
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 30).schema, {Rows(0, 30)}, params));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  ASSERT_OK_AND_ASSIGN(uint64_t v,
                       DeleteWhere(*ds, "id < 3 OR (id >= 20 AND name IS NULL) OR name = 'n2' AND id > 25"));
  EXPECT_EQ(v, 2u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, kRoot));
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 30; ++i) {
    bool null_name = i % 5 == 0;
    if (i < 3 || (i >= 20 && null_name) || (!null_name && i % 3 == 2 && i > 25)) continue;
    expected.push_back(i);
  }
  EXPECT_EQ(Ids(*after), expected);

  // Deleting every row of a fragment drops it; no match makes no version.
  ASSERT_OK_AND_ASSIGN(v, DeleteWhere(*after, "id >= 10 AND id < 20"));
  EXPECT_EQ(v, 3u);
  ASSERT_OK_AND_ASSIGN(auto third, Dataset::Open(store, kRoot));
  EXPECT_EQ(third->fragments().size(), 2u);
  ASSERT_OK_AND_ASSIGN(v, DeleteWhere(*third, "id = 12345"));
  EXPECT_EQ(v, 3u);
  ASSERT_OK_AND_ASSIGN(auto versions, third->ListVersions());
  EXPECT_EQ(versions.size(), 3u);
}

TEST(DeleteWhere, BadPredicateLeavesDatasetUntouched) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 10).schema, {Rows(0, 10)}));
  std::vector<std::string> before = AllFiles(*store, kRoot);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  for (const char* bad : {"missing = 1", "id = 'one'", "id =", "name.x IS NULL", "id = 99999999999999999999"}) {
    auto r = DeleteWhere(*ds, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(kRoot), std::string::npos) << r.status().ToString();
  }
  auto r = DeleteWhere(*ds, "missing = 1");
  EXPECT_NE(r.status().message().find("column 'missing' not found"), std::string::npos);
  EXPECT_EQ(AllFiles(*store, kRoot), before);
  ASSERT_OK_AND_ASSIGN(auto again, Dataset::Open(store, kRoot));
  EXPECT_EQ(again->version(), 1u);
  EXPECT_EQ(again->CountRows(), 10u);
}

}  // namespace
}  // namespace lancet::table
