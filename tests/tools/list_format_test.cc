// `--format json` on the list commands: one JSON object per line, the same facts as the
// tab-separated table (index list, ns list, ns tables; tag, branch and blob locate are
// covered beside their other tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace lancet::cli {
namespace {

using Json = nlohmann::json;

std::vector<Json> JsonLines(const std::vector<std::string>& args) {
  const CliRun run = Capture(args);
  EXPECT_EQ(run.code, 0) << run.err;
  std::vector<Json> lines;
  std::istringstream in(run.out);
  std::string line;
  while (std::getline(in, line)) lines.push_back(Json::parse(line));
  return lines;
}

TEST(ListFormat, IndexListAsJsonLines) {
  ScopedTempDir dir;
  WriteTextFile(dir.Join("s.json"), R"({"fields": [{"name": "id", "type": "int64"}, {"name": "k", "type": "utf8"}]})");
  std::string rows;
  for (int i = 0; i < 20; ++i)
    rows += "{\"id\": " + std::to_string(i) + ", \"k\": \"k" + std::to_string(i % 3) + "\"}\n";
  WriteTextFile(dir.Join("rows.ndjson"), rows);
  const std::string ds = dir.Join("t.lance");
  ASSERT_EQ(RunLancet({"import", dir.Join("rows.ndjson"), ds, "--schema", dir.Join("s.json")}), 0);
  ASSERT_EQ(RunLancet({"index", "create", ds, "id", "--type", "btree"}), 0);
  ASSERT_EQ(RunLancet({"index", "create", ds, "k", "--type", "bitmap"}), 0);
  const std::vector<Json> lines = JsonLines({"index", "list", ds, "--format", "json"});
  ASSERT_EQ(lines.size(), 2u);
  std::vector<std::string> seen;
  for (const Json& j : lines) {
    seen.push_back(j.at("name").get<std::string>() + ":" + j.at("column").get<std::string>());
    EXPECT_EQ(j.at("indexed_rows"), 20);
    EXPECT_EQ(j.at("unindexed_rows"), 0);
    EXPECT_TRUE(j.at("usable").get<bool>());
    EXPECT_GT(j.at("size_bytes").get<uint64_t>(), 0u);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"id_idx:id", "k_idx:k"}));
  EXPECT_EQ(RunLancet({"index", "list", ds, "--format", "yaml"}), kExitUsage);
}

TEST(ListFormat, NamespaceListsAsJsonLines) {
  ScopedTempDir dir;
  const std::string root = dir.Join("wh");
  ASSERT_EQ(RunLancet({"--namespace", root, "ns", "create", "team1"}), 0);
  ASSERT_EQ(RunLancet({"--namespace", root, "ns", "create", "team1.inner"}), 0);
  ASSERT_EQ(RunLancet({"--namespace", root, "ns", "declare", "team1.t"}), 0);
  const std::vector<Json> spaces = JsonLines({"--namespace", root, "ns", "list", "team1", "--format", "json"});
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0], Json({{"name", "inner"}}));
  const std::vector<Json> tables = JsonLines({"--namespace", root, "ns", "tables", "team1", "--format", "json"});
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0], Json({{"name", "t"}}));
}

}  // namespace
}  // namespace lancet::cli
