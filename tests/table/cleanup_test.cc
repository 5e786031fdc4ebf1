// Cleanup: old versions go, the latest, newer and tagged ones stay with every file they
// use; unreferenced files go once old enough or with delete_unverified.
#include "lancet/table/cleanup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "lancet/table/write.h"
#include "table/commit.h"
#include "table/manifest.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

constexpr const char* kRoot = "mem/clean";
using std::chrono::seconds;

RecordBatch Rows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = begin; i < begin + n; ++i) ids.push_back(i);
  return *MakeRecordBatch({"id"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids)});
}

WriteParams Mode(WriteMode mode) {
  WriteParams p;
  p.mode = mode;
  return p;
}

using testing::IdRange;
using testing::ScannedIds;

// Every object under `dir`, relative to it.
std::set<std::string> AllFiles(const io::ObjectStore& store, const std::string& dir, const std::string& rel = "") {
  std::set<std::string> out;
  auto listed = store.List(rel.empty() ? dir : dir + "/" + rel);
  if (!listed.ok()) return out;
  for (const io::ObjectInfo& info : *listed) {
    std::string p = rel.empty() ? info.path : rel + "/" + info.path;
    if (info.is_dir) {
      out.merge(AllFiles(store, dir, p));
    } else {
      out.insert(p);
    }
  }
  return out;
}

std::set<std::string> Under(const std::set<std::string>& files, const std::string& prefix) {
  std::set<std::string> out;
  for (const std::string& f : files) {
    if (f.starts_with(prefix)) out.insert(f);
  }
  return out;
}

// Files `ds`'s version references: data files, deletion files, its transaction file.
std::set<std::string> DataFilesOf(const Dataset& ds) {
  std::set<std::string> out;
  for (const FragmentInfo& f : ds.fragments()) {
    for (const DataFileInfo& d : f.files) out.insert("data/" + d.path);
    if (!f.deletion_file.empty()) out.insert(f.deletion_file);
  }
  return out;
}

CleanupOptions Opts(seconds older_than, bool delete_unverified = false) {
  CleanupOptions o;
  o.older_than = older_than;
  o.delete_unverified = delete_unverified;
  return o;
}

Status PutText(io::ObjectStore& store, const std::string& path, const std::string& text) {
  return store.Put(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

TEST(Cleanup, KeepsLatestAndRemovesOldVersions) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(10, 10)}, Mode(WriteMode::kAppend)));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(20, 10)}, Mode(WriteMode::kAppend)));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  std::set<std::string> before = AllFiles(*store, kRoot);
  EXPECT_EQ(Under(before, "_transactions/").size(), 3u);

  // The default keeps two weeks of versions: nothing is that old.
  ASSERT_OK_AND_ASSIGN(CleanupStats none, Cleanup(*ds));
  EXPECT_EQ(none.old_versions, 0u);
  EXPECT_EQ(none.files_removed, 0u);
  EXPECT_EQ(AllFiles(*store, kRoot), before);

  CleanupOptions reporting = Opts(seconds(0));
  std::vector<std::string> reports;
  reporting.progress = [&](std::string_view phase, uint64_t done, uint64_t total) {
    reports.push_back(std::string(phase) + " " + std::to_string(done) + "/" + std::to_string(total));
  };
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, reporting));
  EXPECT_EQ(reports,
            (std::vector<std::string>{"reading manifests 0/3", "reading manifests 1/3", "reading manifests 2/3",
                                      "deleting old manifests 2/2", "deleting unused files 2/2"}));
  EXPECT_EQ(stats.old_versions, 2u);
  EXPECT_EQ(stats.files_removed,
            4u);  // two manifests and their transaction files
  EXPECT_GT(stats.bytes_removed, 0u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, kRoot));
  ASSERT_OK_AND_ASSIGN(auto versions, after->ListVersions());
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].version, 3u);
  EXPECT_EQ(ScannedIds(*after), IdRange(0, 30));
  std::set<std::string> left = AllFiles(*store, kRoot);
  EXPECT_EQ(Under(left, "data/"), DataFilesOf(*after));
  EXPECT_EQ(Under(left, "_transactions/").size(), 1u);
}

TEST(Cleanup, RemovesDataOfOverwrittenAndDeletedVersions) {
  auto store = io::NewMemoryStore();
  WriteParams p;
  p.max_rows_per_file = 5;
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}, p));
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(store, kRoot));
  std::set<std::string> v1_files = DataFilesOf(*v1);
  p.mode = WriteMode::kOverwrite;
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(100, 10)}, p));
  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Open(store, kRoot));
  ASSERT_OK(DeleteWhere(*v2, "id = 101"));
  ASSERT_OK_AND_ASSIGN(auto v3, Dataset::Open(store, kRoot));
  ASSERT_OK(DeleteWhere(*v3, "id = 102"));  // a second deletion file replaces the first
  ASSERT_OK_AND_ASSIGN(auto v4, Dataset::Open(store, kRoot));
  std::set<std::string> v3_del = Under(DataFilesOf(*v3), "_deletions/");
  ASSERT_EQ(v3_del.size(), 1u);

  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*v4, Opts(seconds(0))));
  EXPECT_EQ(stats.old_versions, 3u);
  std::set<std::string> left = AllFiles(*store, kRoot);
  for (const std::string& f : v1_files) EXPECT_FALSE(left.count(f)) << f;
  EXPECT_FALSE(left.count(*v3_del.begin()));
  EXPECT_EQ(Under(left, "data/"), Under(DataFilesOf(*v4), "data/"));
  EXPECT_EQ(Under(left, "_deletions/"), Under(DataFilesOf(*v4), "_deletions/"));
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, kRoot));
  EXPECT_EQ(ScannedIds(*after), (std::vector<int64_t>{100, 103, 104, 105, 106, 107, 108, 109}));
}

TEST(Cleanup, TagsProtectVersionsAndTheirFiles) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}));
  ASSERT_OK_AND_ASSIGN(auto v1, Dataset::Open(store, kRoot));
  ASSERT_OK(CreateTag(*v1, "gold", 1));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(50, 5)}, Mode(WriteMode::kOverwrite)));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(55, 5)}, Mode(WriteMode::kAppend)));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(store, kRoot));

  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*latest, Opts(seconds(0), true)));
  EXPECT_EQ(stats.old_versions, 1u);  // version 2 only
  ASSERT_OK_AND_ASSIGN(auto versions, latest->ListVersions());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 1u);
  EXPECT_EQ(versions[1].version, 3u);
  ASSERT_OK_AND_ASSIGN(auto gold, latest->CheckoutTag("gold"));
  EXPECT_EQ(ScannedIds(*gold), IdRange(0, 10));
  ASSERT_OK_AND_ASSIGN(auto now, Dataset::Open(store, kRoot));
  EXPECT_EQ(ScannedIds(*now), IdRange(50, 60));

  // Without the tag, version 1 and its data go.
  ASSERT_OK(DeleteTag(*latest, "gold"));
  std::set<std::string> gold_files = DataFilesOf(*gold);
  ASSERT_OK_AND_ASSIGN(stats, Cleanup(*latest, Opts(seconds(0))));
  EXPECT_EQ(stats.old_versions, 1u);
  std::set<std::string> left = AllFiles(*store, kRoot);
  for (const std::string& f : gold_files) EXPECT_FALSE(left.count(f)) << f;
  EXPECT_EQ(ScannedIds(*now), IdRange(50, 60));
}

TEST(Cleanup, KeepsVersionsFromTheOpenedOneOn) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 5)}));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(5, 5)}, Mode(WriteMode::kOverwrite)));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(10, 5)}, Mode(WriteMode::kOverwrite)));
  OpenOptions at2;
  at2.version = 2;
  ASSERT_OK_AND_ASSIGN(auto v2, Dataset::Open(store, kRoot, at2));
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*v2, Opts(seconds(0), true)));
  EXPECT_EQ(stats.old_versions, 1u);
  EXPECT_EQ(ScannedIds(*v2), IdRange(5, 10));
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(store, kRoot));
  EXPECT_EQ(ScannedIds(*latest), IdRange(10, 15));
}

TEST(Cleanup, OrphansNeedDeleteUnverifiedWhenYoung) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  std::set<std::string> committed = AllFiles(*store, kRoot);
  std::string live = *DataFilesOf(*ds).begin();  // data/<name>.lance
  std::string live_stem = live.substr(0, live.size() - 6);
  const std::string root = kRoot;
  // What failed or interrupted commits leave behind.
  std::set<std::string> orphans = {
      "data/110000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaa.lance",
      "data/110000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaa/"
      "10000000000000000000000000000000.blob",
      "data/0000.lance.tmp-123-0-77",
      "_deletions/0-1-999.arrow",
      "_transactions/1-00000000-0000-0000-0000-000000000000.txn",
      "_versions/18446744073709551613.manifest.tmp-123-1-5",
      "_indices/01234567-89ab-cdef-0123-456789abcdef/index.idx",
  };
  // Files cleanup leaves alone whatever their age: a sidecar of a live data file, and kinds it does not manage.
  std::set<std::string> foreign = {
      live_stem + "/10000000000000000000000000000000.blob",
      "data/notes.txt",
      "_deletions/readme",
      "elsewhere.lance",
  };
  for (const auto& set : {orphans, foreign}) {
    for (const std::string& f : set) ASSERT_OK(PutText(*store, root + "/" + f, "x"));
  }
  // The memory store knows no file ages, so these all count as young.
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, Opts(seconds(0))));
  EXPECT_EQ(stats.files_removed, 0u);
  ASSERT_OK_AND_ASSIGN(stats, Cleanup(*ds, Opts(seconds(0), true)));
  EXPECT_EQ(stats.files_removed, orphans.size());
  EXPECT_EQ(stats.bytes_removed, orphans.size());
  std::set<std::string> expected = committed;
  expected.merge(std::set<std::string>(foreign));
  EXPECT_EQ(AllFiles(*store, kRoot), expected);
  EXPECT_EQ(ScannedIds(*ds), IdRange(0, 10));
}

TEST(Cleanup, ReferencedIndexFilesStay) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}));
  // Version 2: version 1 plus an index (what an index build commits).
  ASSERT_OK_AND_ASSIGN(auto manifests, ListManifests(*store, kRoot));
  ASSERT_OK_AND_ASSIGN(lance::table::Manifest m, ReadManifest(*store, manifests.back().path));
  m.set_version(2);
  m.clear_transaction_file();
  lance::table::IndexSection section;
  auto* index = section.add_indices();
  index->set_name("id_idx");
  std::string uuid_bytes;
  for (int i = 0; i < 16; ++i) uuid_bytes.push_back(static_cast<char>(0x10 + i));
  index->mutable_uuid()->set_uuid(uuid_bytes);
  std::string section_bytes = section.SerializeAsString();
  std::vector<uint8_t> file = EncodeManifestFile(
      m, std::span(reinterpret_cast<const uint8_t*>(section_bytes.data()), section_bytes.size()), nullptr);
  ASSERT_OK(store->Put(std::string(kRoot) + "/_versions/" + ManifestFileNameV2(2), file));
  const std::string used = "_indices/10111213-1415-1617-1819-1a1b1c1d1e1f/part.idx";
  const std::string unused = "_indices/20111213-1415-1617-1819-1a1b1c1d1e1f/part.idx";
  ASSERT_OK(PutText(*store, std::string(kRoot) + "/" + used, "idx"));
  ASSERT_OK(PutText(*store, std::string(kRoot) + "/" + unused, "idx"));

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  ASSERT_EQ(ds->version(), 2u);
  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, Opts(seconds(0), true)));
  EXPECT_EQ(stats.old_versions, 1u);
  std::set<std::string> left = AllFiles(*store, kRoot);
  EXPECT_TRUE(left.count(used));
  EXPECT_FALSE(left.count(unused));
  EXPECT_EQ(ScannedIds(*ds), IdRange(0, 10));
}

TEST(Cleanup, UnreadableManifestStopsBeforeDeleting) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}));
  ASSERT_OK(WriteDataset(store, kRoot, Rows(0, 1).schema, {Rows(0, 10)}, Mode(WriteMode::kOverwrite)));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, kRoot));
  const std::string v1 = std::string(kRoot) + "/_versions/" + ManifestFileNameV2(1);
  ASSERT_OK(PutText(*store, v1, "garbage, not a manifest"));
  std::set<std::string> before = AllFiles(*store, kRoot);
  auto r = Cleanup(*ds, Opts(seconds(0), true));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(ManifestFileNameV2(1)), std::string::npos) << r.status().ToString();
  EXPECT_EQ(AllFiles(*store, kRoot), before);
  EXPECT_TRUE(Cleanup(*ds, Opts(seconds(-1))).status().IsInvalidArgument());
}

// On a local directory, file ages decide: week-old orphans go without delete_unverified.
TEST(Cleanup, OldOrphansGoOnLocalDisk) {
  namespace fs = std::filesystem;
  const std::string dir = ::testing::TempDir() + "lancet_cleanup_" + std::to_string(::getpid()) + "_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  ASSERT_OK(WriteDataset(dir, Rows(0, 1).schema, {Rows(0, 10)}));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(dir));
  auto fsys = io::LocalFileSystem();
  const std::string old_orphan = "data/000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaa.lance";
  const std::string young_orphan = "data/000000000000000000000000bbbbbbbbbbbbbbbbbbbbbbbbbb.lance";
  ASSERT_OK(PutText(*fsys, dir + "/" + old_orphan, "old"));
  ASSERT_OK(PutText(*fsys, dir + "/" + young_orphan, "young"));
  fs::last_write_time(dir + "/" + old_orphan, fs::file_time_type::clock::now() - std::chrono::hours(24 * 8));
  // Committed files are protected whatever their age.
  for (const std::string& f : DataFilesOf(*ds)) {
    fs::last_write_time(dir + "/" + f, fs::file_time_type::clock::now() - std::chrono::hours(24 * 30));
  }

  ASSERT_OK_AND_ASSIGN(CleanupStats stats, Cleanup(*ds, Opts(seconds(0))));
  EXPECT_EQ(stats.files_removed, 1u);
  EXPECT_FALSE(fs::exists(dir + "/" + old_orphan));
  EXPECT_TRUE(fs::exists(dir + "/" + young_orphan));
  ASSERT_OK_AND_ASSIGN(stats, Cleanup(*ds, Opts(seconds(0), true)));
  EXPECT_EQ(stats.files_removed, 1u);
  EXPECT_FALSE(fs::exists(dir + "/" + young_orphan));
  EXPECT_EQ(ScannedIds(*ds), IdRange(0, 10));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lancet::table
