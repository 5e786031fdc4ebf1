// Helpers for CLI tests: private temp dirs and running subcommands in-process.
#pragma once

#include <string>
#include <vector>

#include "lancet/array.h"
#include "lancet/cli_common.h"

namespace lancet::cli {

/// A directory unique to this process and test (ctest runs tests concurrently),
/// removed with everything in it on destruction.
class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Runs `lancet ARGS...` as main() does (RunMain: every command and global option) and
/// returns its exit status; output goes to the test's stdout/stderr.
int RunLancet(const std::vector<std::string>& args);

/// What a RunLancet printed, with its exit status.
struct CliRun {
  int code = 0;
  std::string out, err;
};
CliRun Capture(const std::vector<std::string>& args);

/// Writes `text` to `path` (test inputs).
void WriteTextFile(const std::string& path, const std::string& text);

/// Every visible row of the dataset's latest version as one batch per column.
std::vector<Array> ScanAll(const std::string& dataset);

}  // namespace lancet::cli
