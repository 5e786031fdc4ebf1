// `lancet branch`, `lancet clone` and --branch end to end.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = begin; i < begin + n; ++i) ids.push_back(i);
  return *MakeRecordBatch({"id"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids)});
}

class BranchCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ds_ = dir_.Join("t.lance");
    table::WriteParams params;
    params.enable_stable_row_ids = true;
    ASSERT_OK(table::WriteDataset(ds_, Rows(0, 4).schema, {Rows(0, 4)}, params).status());
    schema_ = dir_.Join("schema.json");
    WriteTextFile(schema_, R"({"fields": [{"name": "id", "type": "int64", "nullable": true}], "metadata": {}})");
    rows_ = dir_.Join("rows.ndjson");
    WriteTextFile(rows_, "{\"id\": 10}\n{\"id\": 11}\n");
  }

  uint64_t Count(const std::string& ds, const std::string& branch) {
    table::OpenOptions o;
    o.branch = branch;
    auto opened = table::Dataset::Open(ds, o);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? (*opened)->CountRows() : 0;
  }

  std::string Stdout(const std::vector<std::string>& args) {
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(RunLancet(args), 0);
    return ::testing::internal::GetCapturedStdout();
  }

  ScopedTempDir dir_;
  std::string ds_, schema_, rows_;
};

TEST_F(BranchCommandTest, WritesWithBranchStayOnTheBranch) {
  ASSERT_EQ(RunLancet({"branch", "create", ds_, "exp"}), 0);
  ASSERT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append", "--schema", schema_, "--branch", "exp"}), 0);
  ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id = 0", "--branch", "exp"}), 0);
  EXPECT_EQ(Count(ds_, "exp"), 5u);
  EXPECT_EQ(Count(ds_, ""), 4u);
  // --branch does not stick to later commands of the same process.
  ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id = 1"}), 0);
  EXPECT_EQ(Count(ds_, ""), 3u);
  EXPECT_EQ(Count(ds_, "exp"), 5u);
  EXPECT_EQ(Stdout({"branch", "list", ds_}), "exp\tmain\t1\n");
  EXPECT_EQ(Stdout({"count", ds_, "--branch", "exp"}), "5\n");
  EXPECT_EQ(RunLancet({"count", ds_, "--branch", "nope"}), kExitFailure);
  EXPECT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append", "--schema", schema_, "--branch", "nope"}),
            kExitFailure);
  EXPECT_FALSE(std::filesystem::exists(ds_ + "/tree/nope"));
  EXPECT_EQ(RunLancet({"branch", "create", ds_, "exp"}), kExitFailure);
  EXPECT_EQ(RunLancet({"branch", "create", ds_, "../x"}), kExitFailure);

  const std::string diff = Stdout({"branch", "diff", ds_, "exp", "--format", "csv"});
  EXPECT_NE(diff.find("# exp: changes after version 1 up to 3"), std::string::npos) << diff;
  EXPECT_NE(diff.find("insert,"), std::string::npos) << diff;
  EXPECT_NE(diff.find("# main: changes after version 1 up to 2"), std::string::npos) << diff;

  ASSERT_EQ(RunLancet({"branch", "delete", ds_, "exp"}), 0);
  EXPECT_EQ(Stdout({"branch", "list", ds_}), "");
  EXPECT_EQ(RunLancet({"count", ds_, "--branch", "exp"}), kExitFailure);
}

TEST_F(BranchCommandTest, ForkFromABranchAtAVersion) {
  ASSERT_EQ(RunLancet({"branch", "create", ds_, "a"}), 0);
  ASSERT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append", "--schema", schema_, "--branch", "a"}), 0);
  ASSERT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append", "--schema", schema_, "--branch", "a"}), 0);
  ASSERT_EQ(RunLancet({"branch", "create", ds_, "a/b", "--branch", "a", "--version", "2"}), 0);
  EXPECT_EQ(Count(ds_, "a/b"), 6u);
  EXPECT_EQ(Stdout({"branch", "list", ds_}), "a\tmain\t1\na/b\ta\t2\n");
  EXPECT_EQ(Stdout({"branch", "list", ds_, "--format", "json"}),
            "{\"branch\":\"a\",\"parent\":\"main\",\"parent_version\":1}\n"
            "{\"branch\":\"a/b\",\"parent\":\"a\",\"parent_version\":2}\n");
  ASSERT_EQ(RunLancet({"tag", "create", ds_, "first", "1"}), 0);
  EXPECT_EQ(Stdout({"tag", "list", ds_, "--format", "json"}), "{\"tag\":\"first\",\"version\":1}\n");
  EXPECT_EQ(RunLancet({"branch", "delete", ds_, "a"}), kExitFailure);  // a/b reads a's files
}

TEST_F(BranchCommandTest, ShallowAndDeepClones) {
  const std::string shallow = dir_.Join("shallow.lance"), deep = dir_.Join("deep.lance");
  ASSERT_EQ(RunLancet({"import", rows_, ds_, "--mode", "append", "--schema", schema_}), 0);
  ASSERT_EQ(RunLancet({"tag", ds_, "create", "first", "1"}), 0);
  const std::string out = Stdout({"clone", ds_, shallow, "--tag", "first"});
  EXPECT_EQ(out.rfind("shallow clone of version 1: 2 files, ", 0), 0u) << out;
  EXPECT_FALSE(std::filesystem::exists(shallow + "/data"));
  EXPECT_EQ(Count(shallow, ""), 4u);
  ASSERT_EQ(RunLancet({"clone", ds_, deep, "--deep"}), 0);
  EXPECT_EQ(RunLancet({"clone", ds_, deep}), kExitFailure);  // exists
  std::filesystem::remove_all(ds_);
  EXPECT_EQ(Count(deep, ""), 6u);
}

}  // namespace
}  // namespace lancet::cli
