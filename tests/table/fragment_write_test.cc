// WriteFragments / CommitFragments: parts written apart (as a distributed engine's
// workers write them) become one version only when the driver commits them; until then
// they are invisible, and parts that do not fit together are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "lancet/table/fragment_write.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

namespace fs = std::filesystem;

class FragmentWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lancet_fragment_write_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    uri_ = (dir_ / "ds.lance").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<UncommittedFragments> Part(int64_t begin, int64_t n, WriteMode mode, uint64_t rows_per_file = 1000) {
    std::unique_ptr<RecordBatchReader> reader =
        MakeBatchVectorReader(testing::IdNameXRows(0, 1).schema, {testing::IdNameXRows(begin, n)});
    WriteParams params;
    params.mode = mode;
    params.max_rows_per_file = rows_per_file;
    return WriteFragments(uri_, *reader, params);
  }
  size_t DataFiles() const {
    size_t n = 0;
    if (fs::exists(dir_ / "ds.lance/data")) {
      for (const auto& e : fs::recursive_directory_iterator(dir_ / "ds.lance/data")) n += e.is_regular_file();
    }
    return n;
  }

  fs::path dir_;
  std::string uri_;
};

TEST_F(FragmentWriteTest, PartsBecomeOneVersionOnlyWhenCommitted) {
  std::vector<UncommittedFragments> parts;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(UncommittedFragments p, Part(i * 100, 100, WriteMode::kCreate, 40));
    EXPECT_EQ(p.rows, 100u);
    EXPECT_EQ(p.fragments, 3u);
    parts.push_back(std::move(p));
  }
  EXPECT_EQ(DataFiles(), 9u);
  EXPECT_TRUE(Dataset::Open(uri_).status().IsNotFound());  // nothing visible yet

  WriteParams create;
  create.enable_stable_row_ids = true;
  ASSERT_OK_AND_ASSIGN(uint64_t v, CommitFragments(uri_, parts, create));
  EXPECT_EQ(v, 1u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  EXPECT_EQ(ds->fragments().size(), 9u);
  EXPECT_TRUE(ds->stable_row_ids());
  EXPECT_EQ(testing::ScannedIds(*ds), testing::IdRange(0, 300));

  // Two appends written against version 1, committed together as version 2.
  std::vector<UncommittedFragments> more;
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(UncommittedFragments p, Part(300 + i * 50, 50, WriteMode::kAppend));
    more.push_back(std::move(p));
  }
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(v, CommitFragments(uri_, more, append));
  EXPECT_EQ(v, 2u);
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(uri_));
  EXPECT_EQ(testing::ScannedIds(*ds), testing::IdRange(0, 400));
  std::set<uint64_t> ids;
  for (const FragmentInfo& f : ds->fragments()) ids.insert(f.id);
  EXPECT_EQ(ids.size(), 11u);  // fragment ids given at commit, none twice
}

TEST_F(FragmentWriteTest, RefusesPartsThatDoNotFit) {
  const std::string other_uri = (dir_ / "other.lance").string();
  ASSERT_OK(WriteDataset(other_uri, testing::IdNameXRows(0, 1).schema, {testing::IdNameXRows(0, 3)}, {}).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  std::unique_ptr<RecordBatchReader> rows =
      MakeBatchVectorReader(testing::IdNameXRows(0, 1).schema, {testing::IdNameXRows(3, 3)});
  ASSERT_OK_AND_ASSIGN(UncommittedFragments appended, WriteFragments(other_uri, *rows, append));
  std::vector<UncommittedFragments> one{appended};
  EXPECT_TRUE(CommitFragments(other_uri, one, {}).status().IsInvalidArgument());  // an append, not a create
  ASSERT_OK(AbortFragments(other_uri, one));

  ASSERT_OK_AND_ASSIGN(UncommittedFragments a, Part(0, 10, WriteMode::kCreate));
  std::vector<UncommittedFragments> garbage{{"not a transaction", 0, 0}};
  EXPECT_TRUE(CommitFragments(uri_, garbage, {}).status().IsInvalidArgument());
  EXPECT_TRUE(CommitFragments(uri_, std::vector<UncommittedFragments>{}, {}).status().IsInvalidArgument());

  // Another schema in a create.
  RecordBatch other = testing::IdNameXRows(0, 5);
  other.schema.fields[2].name = "y";
  std::unique_ptr<RecordBatchReader> reader = MakeBatchVectorReader(other.schema, {other});
  ASSERT_OK_AND_ASSIGN(UncommittedFragments b, WriteFragments(uri_, *reader, {}));
  std::vector<UncommittedFragments> mixed{a, b};
  EXPECT_TRUE(CommitFragments(uri_, mixed, {}).status().IsInvalidArgument());
  EXPECT_TRUE(Dataset::Open(uri_).status().IsNotFound());

  // Aborting removes their files.
  ASSERT_OK(AbortFragments(uri_, mixed));
  EXPECT_EQ(DataFiles(), 0u);
}

TEST_F(FragmentWriteTest, AppendWithoutADatasetCreatesIt) {
  ASSERT_OK_AND_ASSIGN(UncommittedFragments a, Part(0, 10, WriteMode::kAppend));
  ASSERT_OK_AND_ASSIGN(UncommittedFragments b, Part(10, 10, WriteMode::kAppend));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK_AND_ASSIGN(uint64_t v, CommitFragments(uri_, std::vector<UncommittedFragments>{a, b}, append));
  EXPECT_EQ(v, 1u);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  EXPECT_EQ(testing::ScannedIds(*ds), testing::IdRange(0, 20));
}

TEST_F(FragmentWriteTest, ConflictsWithWhatWasCommittedMeanwhile) {
  ASSERT_OK_AND_ASSIGN(UncommittedFragments a, Part(0, 10, WriteMode::kCreate));
  ASSERT_OK_AND_ASSIGN(UncommittedFragments b, Part(10, 10, WriteMode::kCreate));
  ASSERT_OK(CommitFragments(uri_, std::vector<UncommittedFragments>{a}, {}).status());
  // A second create of the same table.
  EXPECT_TRUE(CommitFragments(uri_, std::vector<UncommittedFragments>{b}, {}).status().code() ==
              StatusCode::kAlreadyExists);

  // An append written before an overwrite no longer makes sense after it.
  ASSERT_OK_AND_ASSIGN(UncommittedFragments c, Part(20, 10, WriteMode::kAppend));
  WriteParams overwrite;
  overwrite.mode = WriteMode::kOverwrite;
  ASSERT_OK(WriteDataset(uri_, testing::IdNameXRows(0, 1).schema, {testing::IdNameXRows(100, 5)}, overwrite).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  EXPECT_TRUE(CommitFragments(uri_, std::vector<UncommittedFragments>{c}, append).status().IsCommitConflict());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri_));
  EXPECT_EQ(testing::ScannedIds(*ds), testing::IdRange(100, 105));
}

}  // namespace
}  // namespace lancet::table
