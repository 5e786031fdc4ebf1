// `lancet --version` names this build and the Lance versions it exchanges data with.
#include <gtest/gtest.h>

#include <string>

#include "lancet/cli_main.h"

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

}  // namespace
}  // namespace lancet::cli
