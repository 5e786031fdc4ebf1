#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lancet/cli_common.h"
#include "lancet/cli_main.h"

namespace lancet::cli {

ScopedTempDir::ScopedTempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "notest";
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  path_ = ::testing::TempDir() + "/lancet_cli_" + std::to_string(::getpid()) + "_" + name;
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

int RunLancet(const std::vector<std::string>& args) {
  std::vector<std::string> words = {"lancet"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return RunMain(static_cast<int>(words.size()), argv.data());
}

CliRun Capture(const std::vector<std::string>& args) {
  CliRun r;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  r.code = RunLancet(args);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

std::vector<Array> ScanAll(const std::string& dataset) {
  auto ds = table::Dataset::Open(dataset);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return {};
  auto batches = (*ds)->Scan();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok() || batches->empty()) return {};
  std::vector<Array> out;
  for (size_t c = 0; c < batches->front().columns.size(); ++c) {
    std::vector<Array> parts;
    for (const RecordBatch& b : *batches) parts.push_back(b.columns[c]);
    auto joined = Concatenate(parts);
    EXPECT_TRUE(joined.ok()) << joined.status().ToString();
    out.push_back(joined.ok() ? *joined : Array{});
  }
  return out;
}

}  // namespace lancet::cli
