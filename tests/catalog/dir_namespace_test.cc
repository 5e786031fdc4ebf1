// The directory namespace: every operation, its error codes, pagination, nesting,
// cascade, names that try to leave the root, and racing creators (threads and processes).
#include "lancet/catalog/dir_namespace.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "catalog/expect_code.h"
#include "catalog/manifest_table.h"
#include "lancet/catalog/names.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::catalog {
namespace {
namespace fs = std::filesystem;

class DirNamespaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("lancet_dirns_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    fs::remove_all(root_);
    auto ns = DirectoryNamespace::Open(root_);
    ASSERT_TRUE(ns.ok()) << ns.status().ToString();
    ns_ = std::move(*ns);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A small dataset written where `info` says.
  void WriteRows(const TableInfo& info, int rows) {
    std::vector<int64_t> values(rows);
    for (int i = 0; i < rows; ++i) values[i] = i;
    ASSERT_OK_AND_ASSIGN(Array a, ArrayFromVector(MakeType(TypeId::kInt64), values));
    RecordBatch batch;
    batch.schema.fields.push_back(MakeField("x", MakeType(TypeId::kInt64)));
    batch.num_rows = rows;
    batch.columns.push_back(a);
    table::WriteParams params;
    params.mode = table::WriteMode::kAppend;
    ASSERT_OK(table::WriteDataset(info.location, batch.schema, {batch}, params).status());
  }

  std::vector<std::string> Tables(const Id& parent, PageRequest page = {}) {
    auto p = ns_->ListTables(parent, page);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? p->names : std::vector<std::string>{};
  }
  std::vector<std::string> Namespaces(const Id& parent) {
    auto p = ns_->ListNamespaces(parent, {});
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? p->names : std::vector<std::string>{};
  }

  std::string root_;
  std::unique_ptr<DirectoryNamespace> ns_;
};

using Names = std::vector<std::string>;

TEST_F(DirNamespaceTest, EmptyRootListsNothing) {
  EXPECT_EQ(Tables({}), Names{});
  EXPECT_EQ(Namespaces({}), Names{});
  EXPECT_OK(ns_->NamespaceExists({}));
  ASSERT_OK_AND_ASSIGN(Properties p, ns_->DescribeNamespace({}));
  EXPECT_TRUE(p.empty());
  EXPECT_FALSE(fs::exists(root_));  // reads create nothing
}

TEST_F(DirNamespaceTest, DeclareRootTableIsV1WithReservedMarker) {
  ASSERT_OK_AND_ASSIGN(TableInfo info, ns_->DeclareTable({"t1"}, {}));
  EXPECT_EQ(info.location, root_ + "/t1.lance");
  EXPECT_TRUE(info.only_declared);
  std::ifstream marker(info.location + "/.lance-reserved", std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(marker)), {});
  EXPECT_EQ(content, "reserved");
  EXPECT_EQ(Tables({}), Names{"t1"});
  EXPECT_CODE(ns_->DeclareTable({"t1"}, {}), ErrorCode::kTableAlreadyExists);
  WriteRows(info, 3);
  ASSERT_OK_AND_ASSIGN(TableInfo described, ns_->DescribeTable({"t1"}));
  EXPECT_EQ(described.location, info.location);
  EXPECT_FALSE(described.only_declared);
  EXPECT_OK(ns_->TableExists({"t1"}));
  // The manifest has the row, as the reference's compatibility mode writes it.
  ManifestTable manifest(root_ + "/__manifest");
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestRow> rows, manifest.Read());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].object_id, "t1");
  EXPECT_EQ(rows[0].object_type, "table");
  EXPECT_EQ(rows[0].location, "t1.lance");
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(root_ + "/__manifest"));
  EXPECT_EQ(ds->schema().fields[0].metadata.at(kPrimaryKeyPositionKey), "0");
}

TEST_F(DirNamespaceTest, PlainDirectoryTablesAreListed) {
  // What lancedb.connect(dir).createTable writes: <name>.lance, no manifest.
  TableInfo info;
  info.location = root_ + "/plain.lance";
  WriteRows(info, 2);
  EXPECT_EQ(Tables({}), Names{"plain"});
  ASSERT_OK_AND_ASSIGN(TableInfo d, ns_->DescribeTable({"plain"}));
  EXPECT_EQ(d.location, info.location);
  EXPECT_CODE(ns_->DeclareTable({"plain"}, {}), ErrorCode::kTableAlreadyExists);
  fs::create_directories(root_ + "/empty.lance");  // no files: not a table
  fs::create_directories(root_ + "/notatable");
  EXPECT_EQ(Tables({}), Names{"plain"});
  ASSERT_OK_AND_ASSIGN(TableInfo dropped, ns_->DropTable({"plain"}));
  EXPECT_FALSE(fs::exists(info.location));
  EXPECT_EQ(Tables({}), Names{});
}

TEST_F(DirNamespaceTest, NamespacesNestAndKeepProperties) {
  ASSERT_OK_AND_ASSIGN(Properties p, ns_->CreateNamespace({"ns1"}, CreateMode::kCreate, {{"k", "v"}}));
  EXPECT_EQ(p, (Properties{{"k", "v"}}));
  ASSERT_OK(ns_->CreateNamespace({"ns1", "ns2"}, CreateMode::kCreate, {}).status());
  EXPECT_EQ(Namespaces({}), Names{"ns1"});
  EXPECT_EQ(Namespaces({"ns1"}), Names{"ns2"});
  EXPECT_EQ(Namespaces({"ns1", "ns2"}), Names{});
  ASSERT_OK_AND_ASSIGN(Properties d, ns_->DescribeNamespace({"ns1"}));
  EXPECT_EQ(d, (Properties{{"k", "v"}}));
  ASSERT_OK_AND_ASSIGN(Properties d2, ns_->DescribeNamespace({"ns1", "ns2"}));
  EXPECT_TRUE(d2.empty());
  EXPECT_CODE(ns_->CreateNamespace({"ns1"}, CreateMode::kCreate, {}), ErrorCode::kNamespaceAlreadyExists);
  ASSERT_OK_AND_ASSIGN(Properties kept, ns_->CreateNamespace({"ns1"}, CreateMode::kExistOk, {{"x", "y"}}));
  EXPECT_EQ(kept, (Properties{{"k", "v"}}));
  ASSERT_OK(ns_->CreateNamespace({"ns1"}, CreateMode::kOverwrite, {{"q", "it's \"quoted\""}}).status());
  ASSERT_OK_AND_ASSIGN(Properties over, ns_->DescribeNamespace({"ns1"}));
  EXPECT_EQ(over, (Properties{{"q", "it's \"quoted\""}}));
  EXPECT_CODE(ns_->CreateNamespace({"nope", "x"}, CreateMode::kCreate, {}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->DescribeNamespace({"nope"}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->NamespaceExists({"nope"}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->ListTables({"nope"}, {}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->ListNamespaces({"nope"}, {}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->CreateNamespace({}, CreateMode::kCreate, {}), ErrorCode::kNamespaceAlreadyExists);
  EXPECT_CODE(ns_->DropNamespace({}, DropMode::kFail, DropBehavior::kCascade), ErrorCode::kInvalidInput);
}

TEST_F(DirNamespaceTest, NestedTablesUseHashedDirectories) {
  ASSERT_OK(ns_->CreateNamespace({"ns1"}, CreateMode::kCreate, {}).status());
  ASSERT_OK(ns_->CreateNamespace({"ns1", "ns2"}, CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(TableInfo t2, ns_->DeclareTable({"ns1", "t2"}, {}));
  ASSERT_OK_AND_ASSIGN(TableInfo t3, ns_->DeclareTable({"ns1", "ns2", "t3"}, {}));
  const std::string dir = fs::path(t2.location).filename().string();
  ASSERT_EQ(dir.size(), 8u + 1 + 6);
  EXPECT_EQ(dir.substr(8), "_ns1$t2");
  EXPECT_EQ(fs::path(t3.location).filename().string().substr(8), "_ns1$ns2$t3");
  EXPECT_TRUE(fs::exists(t2.location + "/.lance-reserved"));
  WriteRows(t2, 5);
  EXPECT_EQ(Tables({"ns1"}), Names{"t2"});
  EXPECT_EQ(Tables({"ns1", "ns2"}), Names{"t3"});
  EXPECT_EQ(Tables({}), Names{});
  ASSERT_OK_AND_ASSIGN(TableInfo d, ns_->DescribeTable({"ns1", "t2"}));
  EXPECT_EQ(d.location, t2.location);
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(d.location));
  EXPECT_EQ(ds->CountRows(), 5u);
  EXPECT_CODE(ns_->DeclareTable({"missing", "t"}, {}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->DescribeTable({"ns1", "zz"}), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns_->DescribeTable({"missing", "zz"}), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->TableExists({"ns1", "zz"}), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns_->DeclareTable({"ns1", "t2"}, {}), ErrorCode::kTableAlreadyExists);
  ASSERT_OK(ns_->DropTable({"ns1", "t2"}).status());
  EXPECT_FALSE(fs::exists(t2.location));
  EXPECT_CODE(ns_->DropTable({"ns1", "t2"}), ErrorCode::kTableNotFound);
  // Re-created: a new directory.
  ASSERT_OK_AND_ASSIGN(TableInfo again, ns_->DeclareTable({"ns1", "t2"}, {}));
  EXPECT_TRUE(again.only_declared);
}

TEST_F(DirNamespaceTest, DropNamespaceRestrictAndCascade) {
  ASSERT_OK(ns_->CreateNamespace({"a"}, CreateMode::kCreate, {}).status());
  ASSERT_OK(ns_->CreateNamespace({"a", "b"}, CreateMode::kCreate, {}).status());
  ASSERT_OK(ns_->CreateNamespace({"ab"}, CreateMode::kCreate, {}).status());  // a prefix, not a child
  ASSERT_OK_AND_ASSIGN(TableInfo t, ns_->DeclareTable({"a", "b", "t"}, {}));
  ASSERT_OK_AND_ASSIGN(TableInfo u, ns_->DeclareTable({"a", "u"}, {}));
  ASSERT_OK_AND_ASSIGN(TableInfo keep, ns_->DeclareTable({"ab", "keep"}, {}));
  WriteRows(t, 1);
  EXPECT_CODE(ns_->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kRestrict), ErrorCode::kNamespaceNotEmpty);
  EXPECT_CODE(ns_->DropNamespace({"a", "b"}, DropMode::kFail, DropBehavior::kRestrict), ErrorCode::kNamespaceNotEmpty);
  ASSERT_OK(ns_->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kCascade));
  EXPECT_FALSE(fs::exists(t.location));
  EXPECT_FALSE(fs::exists(u.location));
  EXPECT_TRUE(fs::exists(keep.location));
  EXPECT_EQ(Namespaces({}), Names{"ab"});
  EXPECT_EQ(Tables({"ab"}), Names{"keep"});
  EXPECT_CODE(ns_->DropNamespace({"a"}, DropMode::kFail, DropBehavior::kRestrict), ErrorCode::kNamespaceNotFound);
  EXPECT_OK(ns_->DropNamespace({"a"}, DropMode::kSkip, DropBehavior::kRestrict));
  ASSERT_OK(ns_->DropTable({"ab", "keep"}).status());
  EXPECT_OK(ns_->DropNamespace({"ab"}, DropMode::kFail, DropBehavior::kRestrict));
  EXPECT_EQ(Namespaces({}), Names{});
}

TEST_F(DirNamespaceTest, Pagination) {
  for (const char* n : {"d", "b", "a", "e", "c"}) ASSERT_OK(ns_->DeclareTable({n}, {}).status());
  ASSERT_OK_AND_ASSIGN(Page p1, ns_->ListTables({}, {"", 2}));
  EXPECT_EQ(p1.names, (Names{"a", "b"}));
  EXPECT_EQ(p1.next_token, "b");
  ASSERT_OK_AND_ASSIGN(Page p2, ns_->ListTables({}, {p1.next_token, 2}));
  EXPECT_EQ(p2.names, (Names{"c", "d"}));
  EXPECT_EQ(p2.next_token, "d");
  ASSERT_OK_AND_ASSIGN(Page p3, ns_->ListTables({}, {p2.next_token, 2}));
  EXPECT_EQ(p3.names, (Names{"e"}));
  EXPECT_EQ(p3.next_token, "");
  ASSERT_OK_AND_ASSIGN(Page exact, ns_->ListTables({}, {"c", 2}));
  EXPECT_EQ(exact.names, (Names{"d", "e"}));
  EXPECT_EQ(exact.next_token, "");  // nothing after the last one returned
  EXPECT_EQ(Tables({}, {"a", std::nullopt}), (Names{"b", "c", "d", "e"}));
  EXPECT_EQ(Tables({}, {"bb", 1}), (Names{"c"}));  // a token need not be a name
  EXPECT_EQ(Tables({}, {"", 0}).size(), 5u);       // 0: no limit
  for (const char* n : {"z", "y", "x"}) ASSERT_OK(ns_->CreateNamespace({n}, CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(Page n1, ns_->ListNamespaces({}, {"", 1}));
  EXPECT_EQ(n1.names, (Names{"x"}));
  EXPECT_EQ(n1.next_token, "x");
}

TEST_F(DirNamespaceTest, RegisterDeregisterKeepData) {
  ASSERT_OK(ns_->CreateNamespace({"ns"}, CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(TableInfo t, ns_->DeclareTable({"t"}, {}));
  WriteRows(t, 4);
  ASSERT_OK_AND_ASSIGN(TableInfo gone, ns_->DeregisterTable({"t"}));
  EXPECT_EQ(gone.location, t.location);
  EXPECT_TRUE(fs::exists(t.location + "/_versions"));
  EXPECT_EQ(Tables({}), Names{});
  EXPECT_CODE(ns_->DescribeTable({"t"}), ErrorCode::kTableNotFound);
  // Registered under another name in a child namespace, then under its own again.
  ASSERT_OK_AND_ASSIGN(TableInfo r, ns_->RegisterTable({"ns", "alias"}, t.location, {}));
  EXPECT_EQ(r.location, t.location);
  EXPECT_EQ(Tables({"ns"}), Names{"alias"});
  EXPECT_CODE(ns_->RegisterTable({"t"}, "t.lance", {}), ErrorCode::kInvalidInput);  // already registered there
  ASSERT_OK(ns_->DeregisterTable({"ns", "alias"}).status());
  ASSERT_OK(ns_->RegisterTable({"t"}, "t.lance", {}).status());
  EXPECT_EQ(Tables({}), Names{"t"});
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(t.location));
  EXPECT_EQ(ds->CountRows(), 4u);
  EXPECT_CODE(ns_->RegisterTable({"t2"}, "/etc", {}), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns_->RegisterTable({"t2"}, "../x", {}), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns_->RegisterTable({"t2"}, "nothing.lance", {}), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns_->RegisterTable({"t"}, "t.lance", {}), ErrorCode::kTableAlreadyExists);
  EXPECT_CODE(ns_->DeregisterTable({"zz"}), ErrorCode::kTableNotFound);
}

// A directory the namespace named follows the table's name (the reference finds root
// tables by <name>.lance); the data moves with it untouched.
TEST_F(DirNamespaceTest, RenameMovesTheNameAndItsDirectory) {
  const auto rows = [](const TableInfo& info) -> uint64_t {
    auto ds = table::Dataset::Open(info.location);
    return ds.ok() ? (*ds)->CountRows() : 0;
  };
  ASSERT_OK(ns_->CreateNamespace({"ns"}, CreateMode::kCreate, {}).status());
  ASSERT_OK_AND_ASSIGN(TableInfo a, ns_->DeclareTable({"a"}, {}));
  WriteRows(a, 2);
  ASSERT_OK(ns_->RenameTable({"a"}, {}, "b"));
  EXPECT_EQ(Tables({}), Names{"b"});
  ASSERT_OK_AND_ASSIGN(TableInfo b, ns_->DescribeTable({"b"}));
  EXPECT_EQ(fs::path(b.location).filename(), "b.lance");
  EXPECT_FALSE(fs::exists(a.location));
  EXPECT_EQ(rows(b), 2u);

  ASSERT_OK(ns_->RenameTable({"b"}, {"ns"}, "c"));
  EXPECT_EQ(Tables({}), Names{});
  EXPECT_EQ(Tables({"ns"}), Names{"c"});
  ASSERT_OK_AND_ASSIGN(TableInfo c, ns_->DescribeTable({"ns", "c"}));
  const std::string c_dir = fs::path(c.location).filename().string();
  EXPECT_EQ(c_dir.substr(8), "_ns$c");
  EXPECT_FALSE(fs::exists(b.location));
  EXPECT_EQ(rows(c), 2u);

  ASSERT_OK(ns_->DeclareTable({"d"}, {}).status());
  EXPECT_CODE(ns_->RenameTable({"ns", "c"}, {}, "d"), ErrorCode::kTableAlreadyExists);
  EXPECT_CODE(ns_->RenameTable({"ns", "c"}, {"zz"}, "e"), ErrorCode::kNamespaceNotFound);
  EXPECT_CODE(ns_->RenameTable({"ns", "nope"}, {}, "e"), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns_->RenameTable({"ns", "c"}, {}, "../e"), ErrorCode::kInvalidInput);
  // A leftover directory under the new name is not overwritten.
  fs::create_directories(root_ + "/e.lance/data");
  EXPECT_CODE(ns_->RenameTable({"ns", "c"}, {}, "e"), ErrorCode::kTableAlreadyExists);
  EXPECT_OK(ns_->TableExists({"ns", "c"}));
  fs::remove_all(root_ + "/e.lance");
  ASSERT_OK(ns_->RenameTable({"ns", "c"}, {}, "e"));
  ASSERT_OK_AND_ASSIGN(TableInfo e, ns_->DescribeTable({"e"}));
  EXPECT_EQ(fs::path(e.location).filename(), "e.lance");
  EXPECT_EQ(rows(e), 2u);

  // A registered table keeps its location.
  fs::create_directories(root_ + "/custom");
  ASSERT_OK_AND_ASSIGN(TableInfo f, ns_->DeclareTable({"f"}, {}));
  WriteRows(f, 3);
  fs::rename(f.location, root_ + "/custom/f");
  ASSERT_OK(ns_->DeregisterTable({"f"}).status());
  ASSERT_OK(ns_->RegisterTable({"ns", "g"}, "custom/f", {}).status());
  ASSERT_OK(ns_->RenameTable({"ns", "g"}, {}, "h"));
  ASSERT_OK_AND_ASSIGN(TableInfo h, ns_->DescribeTable({"h"}));
  EXPECT_EQ(fs::path(h.location).lexically_normal(), fs::path(root_ + "/custom/f").lexically_normal());
  EXPECT_EQ(rows(h), 3u);
}

TEST_F(DirNamespaceTest, WithoutManifestOnlyRootTables) {
  ASSERT_OK_AND_ASSIGN(auto v1, DirectoryNamespace::Open(root_, {{"manifest_enabled", "false"}}));
  ASSERT_OK(v1->DeclareTable({"t"}, {}).status());
  EXPECT_FALSE(fs::exists(root_ + "/__manifest"));
  EXPECT_EQ(v1->ListTables({}, {})->names, Names{"t"});
  EXPECT_CODE(v1->CreateNamespace({"ns"}, CreateMode::kCreate, {}), ErrorCode::kUnsupported);
  EXPECT_CODE(v1->DeclareTable({"ns", "t"}, {}), ErrorCode::kUnsupported);
  EXPECT_CODE(v1->RenameTable({"t"}, {}, "u"), ErrorCode::kUnsupported);
  ASSERT_OK(v1->DeregisterTable({"t"}).status());
  EXPECT_EQ(v1->ListTables({}, {})->names, Names{});
}

TEST(NameValidation, RefusesEscapes) {
  for (const std::string& bad :
       std::vector<std::string>{"", ".", "..", "a/b", "/abs", "a\\b", std::string("a\0b", 3), "a\nb", "tab\t",
                                std::string("\x7f"), "a$b", std::string(201, 'x')}) {
    Status st = ValidateName(bad);
    EXPECT_EQ(ErrorCodeOf(st), ErrorCode::kInvalidInput) << "'" << bad << "'";
  }
  for (const std::string& good :
       std::vector<std::string>{"a", "a b", "t-1.x", "ü", "a%b", "...", ".hidden", std::string(200, 'x')}) {
    EXPECT_OK(ValidateName(good));
  }
  EXPECT_EQ(ErrorCodeOf(ValidateId({}, false)), ErrorCode::kInvalidInput);
  EXPECT_OK(ValidateId({}, true));
}

TEST_F(DirNamespaceTest, TraversalAttemptsAreRefused) {
  for (const Id& id : std::vector<Id>{
           {".."}, {"..", "x"}, {"a/../../x"}, {"x", ".."}, {""}, {"a\\b"}, {std::string("a\0", 2)}, {"."}}) {
    EXPECT_CODE(ns_->DeclareTable(id, {}), ErrorCode::kInvalidInput);
    EXPECT_CODE(ns_->DescribeTable(id), ErrorCode::kInvalidInput);
    EXPECT_CODE(ns_->DropTable(id), ErrorCode::kInvalidInput);
    EXPECT_CODE(ns_->CreateNamespace(id, CreateMode::kCreate, {}), ErrorCode::kInvalidInput);
    EXPECT_CODE(ns_->DropNamespace(id, DropMode::kFail, DropBehavior::kCascade), ErrorCode::kInvalidInput);
    EXPECT_CODE(ns_->ListTables(id, {}), ErrorCode::kInvalidInput);
  }
  EXPECT_FALSE(fs::exists(fs::path(root_).parent_path() / "x.lance"));
  // A symlinked table directory that points out of the root.
  const std::string outside = root_ + "_outside";
  TableInfo out;
  out.location = outside + "/victim.lance";
  WriteRows(out, 1);
  fs::create_directories(root_);
  fs::create_directory_symlink(out.location, root_ + "/evil.lance");
  EXPECT_EQ(Tables({}), Names{});  // not listed
  EXPECT_CODE(ns_->DropTable({"evil"}), ErrorCode::kTableNotFound);
  EXPECT_CODE(ns_->RegisterTable({"evil"}, "evil.lance", {}), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns_->DeclareTable({"evil"}, {}), ErrorCode::kInvalidInput);
  EXPECT_TRUE(fs::exists(out.location + "/_versions"));
  // A manifest row whose location climbs out (written by hand).
  ManifestTable manifest(root_ + "/__manifest");
  ASSERT_OK(manifest.Insert({"bad", "table", "../lancet_victim", std::nullopt}));
  EXPECT_CODE(ns_->DescribeTable({"bad"}), ErrorCode::kInvalidInput);
  EXPECT_CODE(ns_->DropTable({"bad"}), ErrorCode::kInvalidInput);
  fs::remove_all(outside);
}

TEST_F(DirNamespaceTest, EightThreadsCreateTablesAndNamespaces) {
  constexpr int kThreads = 8;
  std::atomic<int> same_won{0}, same_lost{0}, ns_won{0}, other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Status st = ns_->DeclareTable({"same"}, {}).status();
      if (st.ok()) {
        ++same_won;
      } else if (ErrorCodeOf(st) == ErrorCode::kTableAlreadyExists) {
        ++same_lost;
      } else {
        ADD_FAILURE() << st.ToString();
      }
      if (ns_->DeclareTable({"t" + std::to_string(i)}, {}).ok()) ++other;
      if (ns_->CreateNamespace({"shared"}, CreateMode::kCreate, {}).ok()) ++ns_won;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(same_won.load(), 1);
  EXPECT_EQ(same_lost.load(), kThreads - 1);
  EXPECT_EQ(ns_won.load(), 1);
  EXPECT_EQ(other.load(), kThreads);
  EXPECT_EQ(Tables({}).size(), kThreads + 1u);
  ManifestTable manifest(root_ + "/__manifest");
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestRow> rows, manifest.Read());
  EXPECT_EQ(rows.size(), kThreads + 2u);
}

// Run only as a child of ProcessesRaceForOneName (re-executed with the root in the
// environment): declares base.race and exits 0 (won), 1 (already exists) or 2.
TEST(DirNamespaceChild, DeclareRace) {
  const char* root = std::getenv("LANCET_DIRNS_CHILD_ROOT");
  if (!root) GTEST_SKIP() << "only run by ProcessesRaceForOneName";
  auto ns = DirectoryNamespace::Open(root);
  if (!ns.ok()) ::_exit(3);
  Status st = (*ns)->DeclareTable({"base", "race"}, {}).status();
  ::_exit(st.ok() ? 0 : ErrorCodeOf(st) == ErrorCode::kTableAlreadyExists ? 1 : 2);
}

// Processes do not share the in-process lock: the committed-version check decides.
TEST_F(DirNamespaceTest, ProcessesRaceForOneName) {
  constexpr int kProcs = 4;
  ASSERT_OK(ns_->CreateNamespace({"base"}, CreateMode::kCreate, {}).status());
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      // exec at once: the parent's worker threads do not survive a fork.
      ::setenv("LANCET_DIRNS_CHILD_ROOT", root_.c_str(), 1);
      char exe[] = "/proc/self/exe";
      char filter[] = "--gtest_filter=DirNamespaceChild.DeclareRace";
      char* argv[] = {exe, filter, nullptr};
      ::execv(exe, argv);
      ::_exit(4);
    }
    pids.push_back(pid);
  }
  int won = 0, lost = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 0) ++won;
    if (WEXITSTATUS(status) == 1) ++lost;
  }
  EXPECT_EQ(won, 1);
  EXPECT_EQ(lost, kProcs - 1);
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(root_ + "/__manifest"));
  EXPECT_EQ(ds->CountRows(), 2u);  // losers removed their rows
  EXPECT_EQ(Tables({"base"}), Names{"race"});
}

TEST(OpenNamespace, ByUri) {
  // An http(s) URI is a REST client, which makes no request until its first call.
  EXPECT_TRUE(OpenNamespace("http://127.0.0.1:1").ok());
  EXPECT_EQ(ErrorCodeOf(OpenNamespace("gs://b/x").status()), ErrorCode::kUnsupported);
  auto ns = OpenNamespace("file:///tmp/lancet_dirns_open_" + std::to_string(::getpid()));
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ((*ns)->ListTables({}, {})->names, Names{});
}

}  // namespace
}  // namespace lancet::catalog
