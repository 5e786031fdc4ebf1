// `lancet merge` end to end: NDJSON and IPC sources, the clause flags, usage errors and
// a failing merge that leaves the dataset as it was.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "cli_test_util.h"
#include "lancet/cli_common.h"
#include "format/ipc_writer.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

constexpr const char* kSchema = R"({"fields": [
  {"name": "id", "type": "int64"}, {"name": "name", "type": "utf8"}, {"name": "score", "type": "float64"}
], "metadata": {}})";

std::string Rows(int from, int to, const std::string& prefix, double offset) {
  std::string out;
  for (int i = from; i < to; ++i) {
    out += "{\"id\": " + std::to_string(i) + ", \"name\": \"" + prefix + std::to_string(i) +
           "\", \"score\": " + std::to_string(i + offset) + "}\n";
  }
  return out;
}

class MergeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = dir_.Join("schema.json");
    WriteTextFile(schema_, kSchema);
    ds_ = dir_.Join("ds.lance");
    WriteTextFile(dir_.Join("base.ndjson"), Rows(0, 10, "b", 0));
    ASSERT_EQ(RunLancet({"import", dir_.Join("base.ndjson"), ds_, "--schema", schema_}), 0);
    WriteTextFile(dir_.Join("src.ndjson"), Rows(5, 15, "s", 100));
  }
  // id → (name, score) of the latest version.
  std::map<int64_t, std::pair<std::string, double>> Contents() {
    std::vector<Array> cols = ScanAll(ds_);
    std::map<int64_t, std::pair<std::string, double>> out;
    for (int64_t i = 0; i < cols[0].length; ++i) {
      out[cols[0].values<int64_t>()[i]] = {std::string(cols[1].GetView(i)), cols[2].values<double>()[i]};
    }
    return out;
  }
  uint64_t Version() {
    auto ds = table::Dataset::Open(ds_);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? (*ds)->version() : 0;
  }
  int Merge(std::vector<std::string> extra) {
    std::vector<std::string> args = {"merge", ds_, dir_.Join("src.ndjson"), "--schema", schema_, "--on", "id"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunLancet(args);
  }

  ScopedTempDir dir_;
  std::string schema_, ds_;
};

TEST_F(MergeCommandTest, UpsertUpdatesAndInserts) {
  ASSERT_EQ(Merge({}), 0);
  auto rows = Contents();
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_EQ(rows[2].first, "b2");
  EXPECT_EQ(rows[7].first, "s7");
  EXPECT_EQ(rows[7].second, 107.0);
  EXPECT_EQ(rows[14].first, "s14");
  EXPECT_EQ(Version(), 2u);
}

TEST_F(MergeCommandTest, ClauseFlags) {
  ASSERT_EQ(Merge({"--when-matched", "skip", "--when-not-matched-by-source", "delete", "--delete-if", "id < 3"}), 0);
  auto rows = Contents();
  // 0..2 deleted, 3..4 kept, 5..9 unchanged, 10..14 inserted.
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows.count(2), 0u);
  EXPECT_EQ(rows[3].first, "b3");
  EXPECT_EQ(rows[9].first, "b9");
  EXPECT_EQ(rows[12].first, "s12");
  ASSERT_EQ(Merge({"--update-columns", "score", "--when-not-matched", "skip", "--matched-if", "source.id > 7"}), 0);
  rows = Contents();
  EXPECT_EQ(rows[8].first, "b8");
  EXPECT_EQ(rows[8].second, 108.0);
  EXPECT_EQ(rows[7].second, 7.0);
  EXPECT_EQ(Version(), 3u);
}

TEST_F(MergeCommandTest, UsageAndFailuresChangeNothing) {
  EXPECT_EQ(Merge({"--delete-if", "id < 3"}), kExitUsage);  // needs --when-not-matched-by-source delete
  EXPECT_EQ(Merge({"--when-matched", "sometimes"}), kExitUsage);
  EXPECT_EQ(RunLancet({"merge", ds_, dir_.Join("src.ndjson"), "--schema", schema_, "--on", "id,"}), kExitUsage);
  EXPECT_EQ(RunLancet({"merge", ds_, dir_.Join("src.ndjson"), "--schema", schema_, "--on", "nope"}), kExitFailure);
  // Two source rows for dataset row 3.
  WriteTextFile(dir_.Join("src.ndjson"), Rows(3, 4, "x", 0) + Rows(3, 4, "y", 0));
  EXPECT_EQ(Merge({}), kExitFailure);
  EXPECT_EQ(Version(), 1u);
  EXPECT_EQ(Contents().size(), 10u);
}

TEST_F(MergeCommandTest, IpcSourceWithFewerColumns) {
  RecordBatch src;
  src.schema.fields = {MakeField("id", MakeType(TypeId::kInt64)), MakeField("score", MakeType(TypeId::kFloat64))};
  src.num_rows = 2;
  src.columns = {*ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {4, 40}),
                 *ArrayFromVector<double>(MakeType(TypeId::kFloat64), {-4, -40})};
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, format::WriteIpcStream(src.schema, {src}));
  WriteTextFile(dir_.Join("src.arrows"), std::string(stream->view()));
  ASSERT_EQ(RunLancet({"merge", ds_, dir_.Join("src.arrows"), "--on", "id"}), 0);
  std::vector<Array> cols = ScanAll(ds_);
  std::map<int64_t, std::pair<std::optional<std::string>, double>> rows;
  for (int64_t i = 0; i < cols[0].length; ++i) {
    rows[cols[0].values<int64_t>()[i]] = {
        cols[1].IsValid(i) ? std::optional<std::string>(std::string(cols[1].GetView(i))) : std::nullopt,
        cols[2].values<double>()[i]};
  }
  EXPECT_EQ(rows[4].first, std::optional<std::string>("b4"));  // kept
  EXPECT_EQ(rows[4].second, -4.0);
  EXPECT_EQ(rows[40].first, std::nullopt);  // inserted without a name
  EXPECT_EQ(rows.size(), 11u);
}

}  // namespace
}  // namespace lancet::cli
