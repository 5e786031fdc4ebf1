// Every command's --help ends with an example, and every example parses: run in an empty
// directory, it fails on the missing data (exit 2), never on its own syntax (exit 1).
#include "lancet/help_examples.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_test_util.h"
#include "lancet/cli_common.h"

namespace lancet::cli {
namespace {

// The subcommand names CLI11 lists under its "Subcommands:" heading.
std::vector<std::string> Subcommands(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.rfind("subcommands:", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty() || line[0] != ' ') break;
    std::istringstream words(line);
    std::string word;
    words >> word;
    names.push_back(word);
  }
  return names;
}

void CheckTree(const std::vector<std::string>& path, std::set<std::string>* seen) {
  std::vector<std::string> args = path;
  args.push_back("--help");
  const CliRun run = Capture(args);
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string& help = run.out;
  const std::vector<std::string> subs = Subcommands(help);
  std::string joined;
  for (const std::string& p : path) joined += (joined.empty() ? "" : " ") + p;
  if (!path.empty()) {
    seen->insert(joined);
    // Groups (tag, index, ns, ...) show their members' examples; leaves their own.
    if (subs.empty()) {
      EXPECT_NE(help.find("Example:\n  "), std::string::npos) << "lancet " << joined << " --help";
    }
  }
  for (const std::string& s : subs) {
    std::vector<std::string> child = path;
    child.push_back(s);
    CheckTree(child, seen);
  }
}

TEST(HelpExamples, EveryCommandEndsItsHelpWithOne) {
  std::set<std::string> seen;
  CheckTree({}, &seen);
  EXPECT_GT(seen.size(), 40u) << "the walk found the command tree";
  for (const auto& [path, example] : HelpExamples()) {
    EXPECT_TRUE(seen.count(path)) << "an example for a command that does not exist: " << path;
  }
}

// Splits like a shell for what the examples use: spaces, single and double quotes.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ') {
      if (have) words.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) words.push_back(cur);
  return words;
}

TEST(HelpExamples, EachParses) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "lancet-help-examples";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path back = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  for (const auto& [path, example] : HelpExamples()) {
    std::vector<std::string> words = Words(example);
    if (words.empty() || words[0] != "lancet") continue;  // `source <(lancet completion bash)`
    if (path == "serve") {
      words.push_back("--help");  // would serve until stopped; its options still parse
    }
    words.erase(words.begin());
    const CliRun run = Capture(words);
    EXPECT_NE(run.code, kExitUsage) << example << "\n" << run.out << run.err;
  }
  std::filesystem::current_path(back);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lancet::cli
