// `lancet update` end to end: values from expressions, the printed summary, usage and
// dataset errors with the exit codes the other commands use.
#include <gtest/gtest.h>

#include <cstdio>

#include "cli_test_util.h"
#include "lancet/cli_common.h"
#include "lancet/table/dataset.h"

namespace lancet::cli {
namespace {

constexpr const char* kSchema = R"({"fields": [
  {"name": "id", "type": "int64", "nullable": false},
  {"name": "name", "type": "utf8"},
  {"name": "score", "type": "float32"}
]})";

// 30 rows: id i, name "n<i>", score i.
std::string MakeDataset(const ScopedTempDir& tmp) {
  std::string rows;
  for (int i = 0; i < 30; ++i) {
    rows += "{\"id\": " + std::to_string(i) + ", \"name\": \"n" + std::to_string(i) +
            "\", \"score\": " + std::to_string(i) + "}\n";
  }
  WriteTextFile(tmp.Join("rows.ndjson"), rows);
  WriteTextFile(tmp.Join("schema.json"), kSchema);
  const std::string ds = tmp.Join("t.lance");
  EXPECT_EQ(RunLancet({"import", tmp.Join("rows.ndjson"), ds, "--schema", tmp.Join("schema.json"),
                       "--max-rows-per-file", "10"}),
            kExitOk);
  return ds;
}

TEST(UpdateCommand, SetsColumnsOfMatchingRows) {
  ScopedTempDir tmp;
  const std::string ds = MakeDataset(tmp);
  ::testing::internal::CaptureStdout();
  int rc = RunLancet({"update", ds, "--where", "id >= 25", "--set", "score=score * 2", "--set", "name=upper(name)"});
  std::fflush(stdout);
  std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, kExitOk);
  EXPECT_EQ(out, "updated 5 rows, version 2\n");
  std::vector<Array> cols = ScanAll(ds);
  ASSERT_EQ(cols.size(), 3u);
  ASSERT_EQ(cols[0].length, 30);
  for (int64_t r = 0; r < cols[0].length; ++r) {
    const int64_t id = cols[0].values<int64_t>()[r];
    const bool hit = id >= 25;
    EXPECT_EQ(std::string(cols[1].GetView(r)), (hit ? "N" : "n") + std::to_string(id));
    EXPECT_FLOAT_EQ(cols[2].values<float>()[r], static_cast<float>(hit ? 2 * id : id));
  }
}

TEST(UpdateCommand, WithoutWhereUpdatesEveryRow) {
  ScopedTempDir tmp;
  const std::string ds = MakeDataset(tmp);
  // Blanks around the column name, as in SQL's SET score = -1.
  ASSERT_EQ(RunLancet({"update", ds, "--set", " score = -1"}), kExitOk);
  std::vector<Array> cols = ScanAll(ds);
  ASSERT_EQ(cols[2].length, 30);
  for (int64_t r = 0; r < 30; ++r) EXPECT_FLOAT_EQ(cols[2].values<float>()[r], -1.0f);
}

TEST(UpdateCommand, ErrorsLeaveTheVersion) {
  ScopedTempDir tmp;
  const std::string ds = MakeDataset(tmp);
  EXPECT_EQ(RunLancet({"update", ds, "--where", "id = 1"}), kExitUsage);                     // no --set
  EXPECT_EQ(RunLancet({"update", ds, "--set", "score"}), kExitUsage);                        // no '='
  EXPECT_EQ(RunLancet({"update", ds, "--set", "  = 1"}), kExitUsage);                        // no column
  EXPECT_NE(RunLancet({"update", ds, "--set", "nope=1"}), kExitOk);                          // unknown column
  EXPECT_NE(RunLancet({"update", ds, "--set", "_rowid=1"}), kExitOk);                        // lineage column
  EXPECT_NE(RunLancet({"update", ds, "--where", "id >", "--set", "score=1"}), kExitOk);      // bad filter
  EXPECT_NE(RunLancet({"update", tmp.Join("missing.lance"), "--set", "score=1"}), kExitOk);  // no dataset
  auto opened = table::Dataset::Open(ds);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ((*opened)->version(), 1u);
}

}  // namespace
}  // namespace lancet::cli
