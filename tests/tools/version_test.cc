// `lancet --version` names this build and the Lance versions it exchanges data with;
// exit statuses tell usage from data errors from commit conflicts (docs/cli.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli_test_util.h"
#include "lancet/cli_common.h"
#include "lancet/status.h"

namespace lancet::cli {
namespace {

TEST(VersionFlag, NamesTheBuildAndTheFormatVersions) {
  const CliRun run = Capture({"--version"});
  const std::string& out = run.out;
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(out.rfind("lancet " LANCET_VERSION "\n", 0), 0u) << out;
  EXPECT_NE(out.find("Lance files: reads 2.0, 2.1, 2.2 and 2.3; writes 2.2"), std::string::npos) << out;
  EXPECT_NE(out.find("Lance tables:"), std::string::npos) << out;
}

TEST(ExitStatus, UsageDataAndConflictAreTold) {
  EXPECT_EQ(kExitUsage, 1);
  EXPECT_EQ(kExitFailure, 2);
  EXPECT_EQ(kExitConflict, 3);
  EXPECT_EQ(RunLancet({"no-such-command"}), kExitUsage);
  EXPECT_EQ(RunLancet({"info", "/nonexistent/lancet-version-test.lance"}), kExitFailure);
  EXPECT_EQ(ReportError(Status::IOError("x: short read")), kExitFailure);
  EXPECT_EQ(ReportError(Status::CommitConflict("x: version 4 was committed by another writer")), kExitConflict);
}

// What bash offers after `line` (its last word being completed) with the script sourced.
std::string Complete(const std::string& script_path, const std::string& line) {
  const std::string cmd = "bash -c 'source \"" + script_path + "\"; COMP_WORDS=(" + line +
                          "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _lancet; echo \"${COMPREPLY[*]}\"'";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (p != nullptr) ::pclose(p);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(Completion, BashCompletesCommandsSubcommandsAndOptions) {
  const CliRun bash = Capture({"completion", "bash"});
  ASSERT_EQ(bash.code, 0);
  const std::string& script = bash.out;
  const std::string path = ::testing::TempDir() + "lancet-completion-" + std::to_string(::getpid()) + ".bash";
  std::ofstream(path) << script;
  EXPECT_EQ(Complete(path, "lancet bl"), "blob");
  EXPECT_EQ(Complete(path, "lancet blob ra"), "range");
  EXPECT_EQ(Complete(path, "lancet scan ds.lance --wh"), "--where");
  EXPECT_EQ(Complete(path, "lancet tag ds.lance cr"), "create");  // the dataset word is skipped
  EXPECT_EQ(Complete(path, "lancet extract-frame ds.lance --fa"), "--fast");
  EXPECT_EQ(Complete(path, "lancet --vers"), "--version");
  std::remove(path.c_str());
  const CliRun zsh_run = Capture({"completion", "zsh"});
  ASSERT_EQ(zsh_run.code, 0);
  const std::string& zsh = zsh_run.out;
  EXPECT_EQ(zsh.rfind("#compdef lancet\n", 0), 0u);
  EXPECT_NE(zsh.find("bashcompinit"), std::string::npos);
  EXPECT_NE(zsh.find("complete -o filenames -F _lancet lancet"), std::string::npos);
  EXPECT_EQ(Capture({"completion", "fish"}).code, kExitUsage);
}

}  // namespace
}  // namespace lancet::cli
