// `lancet --version` names this build and the Lance versions it exchanges data with;
// exit statuses tell usage from data errors from commit conflicts (docs/cli.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "lancet/cli_common.h"
#include "lancet/cli_main.h"
#include "lancet/status.h"

namespace lancet::cli {
namespace {

TEST(VersionFlag, NamesTheBuildAndTheFormatVersions) {
  ::testing::internal::CaptureStdout();
  char name[] = "lancet", flag[] = "--version";
  char* argv[] = {name, flag, nullptr};
  const int rc = RunMain(2, argv);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out.rfind("lancet " LANCET_VERSION "\n", 0), 0u) << out;
  EXPECT_NE(out.find("Lance files: reads 2.0, 2.1, 2.2 and 2.3; writes 2.2"), std::string::npos) << out;
  EXPECT_NE(out.find("Lance tables:"), std::string::npos) << out;
}

TEST(ExitStatus, UsageDataAndConflictAreTold) {
  EXPECT_EQ(kExitUsage, 1);
  EXPECT_EQ(kExitFailure, 2);
  EXPECT_EQ(kExitConflict, 3);
  char name[] = "lancet", bogus[] = "no-such-command";
  char* argv[] = {name, bogus, nullptr};
  EXPECT_EQ(RunMain(2, argv), kExitUsage);
  char info[] = "info", missing[] = "/nonexistent/lancet-version-test.lance";
  char* argv2[] = {name, info, missing, nullptr};
  EXPECT_EQ(RunMain(3, argv2), kExitFailure);
  EXPECT_EQ(ReportError(Status::IOError("x: short read")), kExitFailure);
  EXPECT_EQ(ReportError(Status::CommitConflict("x: version 4 was committed by another writer")), kExitConflict);
}

std::string Capture(std::vector<std::string> args, int* rc) {
  std::vector<char*> argv;
  std::string name = "lancet";
  argv.push_back(name.data());
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  *rc = RunMain(static_cast<int>(argv.size() - 1), argv.data());
  return ::testing::internal::GetCapturedStdout();
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
  int rc = -1;
  const std::string script = Capture({"completion", "bash"}, &rc);
  ASSERT_EQ(rc, 0);
  const std::string path = ::testing::TempDir() + "lancet-completion-" + std::to_string(::getpid()) + ".bash";
  std::ofstream(path) << script;
  EXPECT_EQ(Complete(path, "lancet bl"), "blob");
  EXPECT_EQ(Complete(path, "lancet blob ra"), "range");
  EXPECT_EQ(Complete(path, "lancet scan ds.lance --wh"), "--where");
  EXPECT_EQ(Complete(path, "lancet tag ds.lance cr"), "create");  // the dataset word is skipped
  EXPECT_EQ(Complete(path, "lancet extract-frame ds.lance --fa"), "--fast");
  EXPECT_EQ(Complete(path, "lancet --vers"), "--version");
  std::remove(path.c_str());
  const std::string zsh = Capture({"completion", "zsh"}, &rc);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(zsh.rfind("#compdef lancet\n", 0), 0u);
  EXPECT_NE(zsh.find("bashcompinit"), std::string::npos);
  EXPECT_NE(zsh.find("complete -o filenames -F _lancet lancet"), std::string::npos);
  Capture({"completion", "fish"}, &rc);
  EXPECT_EQ(rc, kExitUsage);
}

}  // namespace
}  // namespace lancet::cli
