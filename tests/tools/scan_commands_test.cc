// `lancet scan` (--where, --offset, nested and row --columns), `lancet count` and
// --io-stats, end to end on a dataset in a private temp dir.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli_test_util.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

class ScanCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ds_ = dir_.Join("t.lance");
    std::vector<int64_t> ids;
    std::vector<std::optional<std::string>> names;
    std::vector<int32_t> xs;
    for (int64_t i = 0; i < 100; ++i) {
      ids.push_back(i);
      names.push_back(i % 10 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i)));
      xs.push_back(static_cast<int32_t>(i * 3));
    }
    ASSERT_OK_AND_ASSIGN(Array x, ArrayFromVector(MakeType(TypeId::kInt32), xs));
    ASSERT_OK_AND_ASSIGN(Array pt, MakeStructArray({"x", "label"}, 100, {x, StringArray(names)}));
    ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, MakeRecordBatch({"id", "name", "pt"}, {id, StringArray(names), pt}));
    table::WriteParams params;
    params.max_rows_per_file = 40;  // three fragments
    ASSERT_OK(table::WriteDataset(ds_, batch.schema, {batch}, params).status());
  }

  // Runs lancet with --out into a file and returns what it wrote.
  std::string Scan(std::vector<std::string> args, int expect_rc = 0) {
    const std::string out = dir_.Join("out.txt");
    args.insert(args.begin(), {"scan", ds_});
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

TEST_F(ScanCommandsTest, WhereOffsetLimitAndColumns) {
  EXPECT_EQ(Scan({"--where", "id >= 37 AND name IS NOT NULL", "--offset", "2", "--limit", "3", "--columns",
                  "id,pt.x,_rowid", "--format", "json"}),
            "{\"id\":\"39\",\"pt\":{\"x\":117},\"_rowid\":\"39\"}\n"
            "{\"id\":\"41\",\"pt\":{\"x\":123},\"_rowid\":\"4294967297\"}\n"
            "{\"id\":\"42\",\"pt\":{\"x\":126},\"_rowid\":\"4294967298\"}\n");
  EXPECT_EQ(Scan({"--where", "id > 1000", "--columns", "id,_rowaddr", "--format", "csv"}), "id,_rowaddr\r\n");
  EXPECT_EQ(Scan({"--where", "id < 2", "--columns", "name", "--format", "table"}), "name\n----\nnull\nn1\n(2 rows)\n");
}

TEST_F(ScanCommandsTest, UsageErrors) {
  EXPECT_EQ(RunLancet({"scan", ds_, "--where", "nope = 1"}), kExitUsage);
  EXPECT_EQ(RunLancet({"scan", ds_, "--where", "id >"}), kExitUsage);
  EXPECT_EQ(RunLancet({"scan", ds_, "--columns", "pt.zz"}), kExitUsage);
  EXPECT_EQ(RunLancet({"scan", ds_, "--columns", "nope.x"}), kExitUsage);
  EXPECT_EQ(RunLancet({"count", ds_, "--where", "name > 3"}), kExitUsage);
}

TEST_F(ScanCommandsTest, CountAndIoStats) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunLancet({"count", ds_, "--io-stats"}), 0);
  EXPECT_EQ(RunLancet({"count", ds_, "--where", "name IS NULL OR id >= 95", "--io-stats"}), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "100\n15\n");
  // One JSON line each; counting from the manifest reads only the manifest, the
  // filtered count reads data files too.
  std::istringstream lines(err);
  std::string plain, filtered;
  std::getline(lines, plain);
  std::getline(lines, filtered);
  ASSERT_EQ(plain.rfind("{\"requests\":", 0), 0u) << err;
  ASSERT_EQ(filtered.rfind("{\"requests\":", 0), 0u) << err;
  auto bytes = [](const std::string& line) {
    const size_t at = line.find("\"bytes\":");
    return std::stoull(line.substr(at + 8));
  };
  EXPECT_GT(bytes(filtered), bytes(plain));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunLancet({"take", ds_, "--rows", "3", "--io-stats", "--out", dir_.Join("take.txt")}), 0);
  EXPECT_EQ(::testing::internal::GetCapturedStderr().rfind("{\"requests\":", 0), 0u);
}

}  // namespace
}  // namespace lancet::cli
