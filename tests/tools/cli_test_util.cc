#include "cli_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lancet/cli_common.h"
#include "lancet/commands.h"

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
  CLI::App app("lancet", "lancet");
  app.require_subcommand(1);
  std::vector<Command> commands = {AddInfoCommand(app),    AddScanCommand(app),    AddDumpCommand(app),
                                   AddImportCommand(app),  AddExportCommand(app),  AddDeleteCommand(app),
                                   AddTagCommand(app),     AddRestoreCommand(app), AddAddColumnsCommand(app),
                                   AddCompactCommand(app), AddCleanupCommand(app), AddBlobCommand(app),
                                   AddIngestCommand(app),  AddExtractCommand(app), AddTakeCommand(app),
                                   AddCountCommand(app),   AddUpdateCommand(app),  AddMergeCommand(app),
                                    AddDiffCommand(app)};
  commands.push_back(AddBranchCommand(app));
  commands.push_back(AddCloneCommand(app));
  for (const Command& c : commands) AddBranchOption(*c.app);
  GlobalBranch().clear();
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return kExitOk;
    return ReportUsage(e.what());
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return ReportUsage("no command given");
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
