// `lancet --version` names this build and the Lance versions it exchanges data with;
// exit statuses tell usage from data errors from commit conflicts (docs/cli.md).
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace lancet::cli
