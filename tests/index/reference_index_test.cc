// Index files the reference (lance 12 through the Node peer) built: our readers answer
// as the reference's own queries do, and our builders write the same columns and
// metadata. Skipped when node or the peer is not installed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/peer.h"
#include "index_test_util.h"
#include "lancet/format/file_reader.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::index {
namespace {

namespace fs = std::filesystem;
using K = ScalarQuery::Kind;

struct Case {
  std::string table;
  std::string sql;
  ScalarQuery query;
};

Array I32(std::vector<int32_t> v) { return ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), v).value(); }
Array F64(std::vector<double> v) { return ArrayFromVector<double>(MakeType(TypeId::kFloat64), v).value(); }
Array Str(std::vector<std::optional<std::string>> v) { return StringArray(v); }

ScalarQuery Values(K kind, Array values) {
  ScalarQuery q;
  q.kind = kind;
  q.values = std::move(values);
  return q;
}
ScalarQuery Range(std::optional<Array> lo, bool lo_inc, std::optional<Array> hi, bool hi_inc) {
  ScalarQuery q;
  q.kind = K::kRange;
  if (lo) q.lower = ScalarQuery::Bound{*lo, lo_inc};
  if (hi) q.upper = ScalarQuery::Bound{*hi, hi_inc};
  return q;
}
ScalarQuery IsNull() {
  ScalarQuery q;
  q.kind = K::kIsNull;
  return q;
}
ScalarQuery Prefix(std::string p) {
  ScalarQuery q;
  q.kind = K::kPrefix;
  q.prefix = std::move(p);
  return q;
}

std::vector<Case> Cases() {
  return {
      {"id", "id = 77", Values(K::kEquals, I32({77}))},
      {"id", "id = 5", Values(K::kEquals, I32({5}))},
      {"id", "id IN (1, 7919, 11999, 3)", Values(K::kIn, I32({1, 7919, 11999, 3}))},
      {"id", "id > 11000", Range(I32({11000}), false, std::nullopt, false)},
      {"id", "id >= 100 AND id < 2000", Range(I32({100}), true, I32({2000}), false)},
      {"id", "id <= 50", Range(std::nullopt, false, I32({50}), true)},
      {"id", "id IS NULL", IsNull()},
      {"f", "f = 0", Values(K::kEquals, F64({0}))},
      {"f", "f > 90", Range(F64({90}), false, std::nullopt, false)},
      {"f", "f < -29", Range(std::nullopt, false, F64({-29}), false)},
      {"f", "f >= 1.5 AND f <= 2.5", Range(F64({1.5}), true, F64({2.5}), true)},
      {"f", "f IS NULL", IsNull()},
      {"s", "s = 'k00031'", Values(K::kEquals, Str({"k00031"}))},
      {"s", "s IN ('k00000', 'k00062', 'zz')", Values(K::kIn, Str({"k00000", "k00062", "zz"}))},
      {"s", "s LIKE 'k001%'", Prefix("k001")},
      {"s", "s > 'k11900'", Range(Str({"k11900"}), false, std::nullopt, false)},
      {"s", "s IS NULL", IsNull()},
      {"cat", "cat = 'red'", Values(K::kEquals, Str({"red"}))},
      {"cat", "cat = 'purple'", Values(K::kEquals, Str({"purple"}))},
      {"cat", "cat IN ('red', 'blue')", Values(K::kIn, Str({"red", "blue"}))},
      {"cat", "cat > 'green'", Range(Str({"green"}), false, std::nullopt, false)},
      {"cat", "cat IS NULL", IsNull()},
      {"tags", "array_has_any(tags, ['apple'])", Values(K::kHasAny, Str({"apple"}))},
      {"tags", "array_has_any(tags, ['zebra', 'fox'])", Values(K::kHasAny, Str({"zebra", "fox"}))},
      {"tags", "array_has_all(tags, ['apple', 'banana'])", Values(K::kHasAll, Str({"apple", "banana"}))},
      {"tags", "tags IS NULL", IsNull()},
  };
}

struct Table {
  ScalarIndexType type;
  DataType value_type;
  Field field;  // as our builder would index it
};

std::map<std::string, Table> Tables() {
  const DataType utf8 = MakeType(TypeId::kUtf8);
  const DataType tags = ListOf(MakeField("item", utf8));
  return {
      {"id", {ScalarIndexType::kBTree, MakeType(TypeId::kInt32), MakeField("id", MakeType(TypeId::kInt32))}},
      {"f", {ScalarIndexType::kBTree, MakeType(TypeId::kFloat64), MakeField("f", MakeType(TypeId::kFloat64))}},
      {"s", {ScalarIndexType::kBTree, utf8, MakeField("s", utf8)}},
      {"cat", {ScalarIndexType::kBitmap, utf8, MakeField("cat", utf8)}},
      {"tags", {ScalarIndexType::kLabelList, utf8, MakeField("tags", tags)}},
  };
}

class ReferenceIndexTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::PeerScratchDir("lancet-refidx");
    if (dir_.empty()) return;
    std::ofstream q(dir_ + "/queries.txt");
    for (const Case& c : Cases()) q << c.table << "\t" << c.sql << "\n";
    q.close();
    ok_ = RunPeer(&expected_);
  }
  // Runs the peer script and parses the row ids of every query.
  static bool RunPeer(std::vector<std::set<uint64_t>>* answers) {
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/reference_indexes.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir_ + "/db' '" + dir_ +
                            "/queries.txt' 2>'" + dir_ + "/peer.err'";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return false;
    std::string out;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
    const bool ok = ::pclose(p) == 0;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      std::set<uint64_t> ids;
      std::istringstream words(line);
      for (uint64_t id; words >> id;) ids.insert(id);
      answers->push_back(std::move(ids));
    }
    return ok;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "node or the lance peer is not installed";
    ASSERT_TRUE(ok_) << "the peer script failed: " << PeerErrors();
    ASSERT_EQ(expected_.size(), Cases().size());
  }
  static std::string PeerErrors() {
    std::ifstream in(dir_ + "/peer.err");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The one segment directory of table `name`.
  static std::string SegmentDir(const std::string& name) {
    for (const auto& e : fs::directory_iterator(dir_ + "/db/" + name + ".lance/_indices")) return e.path().string();
    return "";
  }

  static inline std::string dir_;
  static inline bool ok_ = false;
  static inline std::vector<std::set<uint64_t>> expected_;
};

TEST_F(ReferenceIndexTest, OurReadersAnswerAsTheReference) {
  const auto tables = Tables();
  const auto cases = Cases();
  auto store = io::LocalFileSystem();
  for (size_t i = 0; i < cases.size(); ++i) {
    const Table& t = tables.at(cases[i].table);
    ASSERT_OK_AND_ASSIGN(auto reader, OpenScalarIndex(t.type, store, SegmentDir(cases[i].table), t.value_type));
    ASSERT_TRUE(reader->Supports(cases[i].query)) << cases[i].sql;
    ASSERT_OK_AND_ASSIGN(SearchResult got, reader->Search(cases[i].query));
    EXPECT_EQ(ToSet(got.rows), expected_[i]) << cases[i].sql;
    EXPECT_FALSE(expected_[i].empty() && cases[i].sql.find("purple") == std::string::npos &&
                 cases[i].sql.find("= 5") == std::string::npos)
        << cases[i].sql << " matched nothing: a weak case";
  }
}

// Our builder's files have the reference's columns, types, nullability and metadata keys.
TEST_F(ReferenceIndexTest, OurBuildersWriteTheSameLayout) {
  auto local = io::LocalFileSystem();
  for (const auto& [name, t] : Tables()) {
    const std::string ref_dir = SegmentDir(name);
    auto mem = io::NewMemoryStore();
    ASSERT_OK_AND_ASSIGN(auto builder, MakeScalarIndexBuilder(t.type, t.field, mem, "ours", {}));
    ASSERT_OK_AND_ASSIGN(Array one, MakeNullArray(t.field.type, 1));
    const uint64_t row = 0;
    ASSERT_OK(builder->Add(one, {&row, 1}));
    ASSERT_OK_AND_ASSIGN(auto files, builder->Finish());
    for (const auto& f : files) {
      ASSERT_OK_AND_ASSIGN(auto theirs_file, local->OpenRead(ref_dir + "/" + f.path));
      ASSERT_OK_AND_ASSIGN(auto theirs, format::FileReader::Open(std::move(theirs_file)));
      ASSERT_OK_AND_ASSIGN(auto ours_file, mem->OpenRead("ours/" + f.path));
      ASSERT_OK_AND_ASSIGN(auto ours, format::FileReader::Open(std::move(ours_file)));
      const Schema &a = ours->file_schema(), &b = theirs->file_schema();
      ASSERT_EQ(a.fields.size(), b.fields.size()) << name << " " << f.path;
      for (size_t c = 0; c < a.fields.size(); ++c) {
        EXPECT_EQ(a.fields[c].name, b.fields[c].name) << name << " " << f.path;
        EXPECT_EQ(a.fields[c].type.ToString(), b.fields[c].type.ToString()) << name << " " << f.path;
        EXPECT_EQ(a.fields[c].nullable, b.fields[c].nullable) << name << " " << f.path << " " << a.fields[c].name;
      }
      std::vector<std::string> ka, kb;
      for (const auto& [k, v] : a.metadata) ka.push_back(k);
      for (const auto& [k, v] : b.metadata) kb.push_back(k);
      EXPECT_EQ(ka, kb) << name << " " << f.path;
      if (a.metadata.count("batch_size")) {
        EXPECT_EQ(a.metadata.at("batch_size"), b.metadata.at("batch_size"));
      }
      if (a.metadata.count("lance:label_list_nulls")) {
        EXPECT_EQ(a.metadata.at("lance:label_list_nulls"), b.metadata.at("lance:label_list_nulls"));
      }
    }
  }
}

}  // namespace
}  // namespace lancet::index
