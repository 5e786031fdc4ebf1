// `lancet diff` end to end, and the lineage columns through scan and take.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli_test_util.h"
#include "lancet/cli_common.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    names.push_back("n" + std::to_string(i));
  }
  return *MakeRecordBatch({"id", "name"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names)});
}

class DiffCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ds_ = dir_.Join("t.lance");
    table::WriteParams params;
    params.enable_stable_row_ids = true;
    ASSERT_OK(table::WriteDataset(ds_, Rows(0, 3).schema, {Rows(0, 3)}, params).status());  // v1
    params.mode = table::WriteMode::kAppend;
    ASSERT_OK(table::WriteDataset(ds_, Rows(3, 2).schema, {Rows(3, 2)}, params).status());  // v2
    ASSERT_EQ(RunLancet({"delete", ds_, "--where", "id = 1"}), 0);                          // v3
  }

  std::string Run(std::vector<std::string> args, int expect_rc = 0) {
    const std::string out = dir_.Join("out.txt");
    args.insert(args.end(), {"--out", out});
    EXPECT_EQ(RunLancet(args), expect_rc);
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  ScopedTempDir dir_;
  std::string ds_;
};

TEST_F(DiffCommandTest, JsonRecords) {
  EXPECT_EQ(Run({"diff", ds_, "1", "3", "--format", "json"}),
            "{\"op\":\"insert\",\"_rowid\":\"3\",\"version\":\"2\",\"id\":\"3\",\"name\":\"n3\"}\n"
            "{\"op\":\"insert\",\"_rowid\":\"4\",\"version\":\"2\",\"id\":\"4\",\"name\":\"n4\"}\n"
            "{\"op\":\"delete\",\"_rowid\":\"1\",\"version\":\"3\",\"id\":null,\"name\":null}\n");
  EXPECT_EQ(Run({"diff", ds_, "2", "3", "--format", "json", "--columns", "name", "--old-values"}),
            "{\"op\":\"delete\",\"_rowid\":\"1\",\"version\":\"3\",\"name\":null,\"old_name\":\"n1\"}\n");
  EXPECT_EQ(Run({"diff", ds_, "3", "3", "--format", "csv"}), "op,_rowid,version,id,name\r\n");
}

TEST_F(DiffCommandTest, UsageErrors) {
  EXPECT_EQ(RunLancet({"diff", ds_, "3", "1"}), kExitUsage);
  EXPECT_EQ(RunLancet({"diff", ds_, "1", "9"}), kExitUsage);
  EXPECT_EQ(RunLancet({"diff", ds_, "1", "2", "--columns", "nope"}), kExitUsage);
  const std::string plain = dir_.Join("plain.lance");
  ASSERT_OK(table::WriteDataset(plain, Rows(0, 3).schema, {Rows(0, 3)}, {}).status());
  EXPECT_EQ(RunLancet({"diff", plain, "1", "1"}), kExitUsage);
  EXPECT_EQ(RunLancet({"scan", plain, "--columns", "_row_created_at_version"}), kExitUsage);
}

TEST_F(DiffCommandTest, LineageColumnsInScanAndTake) {
  EXPECT_EQ(Run({"scan", ds_, "--where", "_row_created_at_version > 1", "--columns",
                 "_row_created_at_version,id,_row_last_updated_at_version", "--format", "csv"}),
            "_row_created_at_version,id,_row_last_updated_at_version\r\n2,3,2\r\n2,4,2\r\n");
  EXPECT_EQ(Run({"take", ds_, "--rows", "4,0", "--columns", "id,_row_created_at_version,_rowid", "--format", "csv"}),
            "id,_row_created_at_version,_rowid\r\n4,2,4\r\n0,1,0\r\n");
  EXPECT_EQ(Run({"scan", ds_, "--where", "_rowid >= 2 AND _row_last_updated_at_version = 1", "--columns", "id",
                 "--format", "csv"}),
            "id\r\n2\r\n");
}

}  // namespace
}  // namespace lancet::cli
