// The lancet command line: every command parsed and run (main() lives in main.cc so that
// it compiles without CLI11, which costs seconds per file).
#include "lancet/cli_main.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "lancet/cli_common.h"
#include "lancet/commands.h"
#include "lancet/help_examples.h"

namespace lancet::cli {
namespace {

// What a user asks --version for: which data this build can exchange with which Lance.
constexpr const char* kVersionText =
    "lancet " LANCET_VERSION
    "\n"
    "Lance files: reads 2.0, 2.1, 2.2 and 2.3; writes 2.2 (as Lance 12 does) and 2.3 (blob_info)\n"
    "Lance tables: reads and writes the manifests and transactions of Lance 12 (LanceDB 0.39);\n"
    "  a 2.3 dataset sets reader feature flag 1<<32, which older readers refuse";

}  // namespace

int RunMain(int argc, char** argv) {
  CLI::App app("lancet: read and write Lance datasets", "lancet");
  app.set_version_flag("--version", kVersionText);
  app.require_subcommand(1);
  // Accepted before or after the command, since subcommands fall through to it.
  std::vector<std::string> storage_options;
  app.add_option("--storage-option", storage_options,
                 "KEY=VALUE for s3:// datasets (aws_endpoint, aws_region, allow_http, aws_access_key_id, ...); "
                 "repeatable; the AWS_* environment fills in the rest")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app.add_option("--namespace", GlobalNamespace(),
                 "Namespace: a directory (or file:// URI) or a REST server (http(s)://host:port); dataset "
                 "arguments are then dotted table ids (ns1.ns2.table); the ns commands work on it. A REST "
                 "server's token comes from LANCET_NAMESPACE_TOKEN")
      ->type_name("URI")
      ->allow_extra_args(false);
  app.add_option("--namespace-property", GlobalNamespaceProperties(),
                 "KEY=VALUE for the namespace (dir: manifest_enabled, dir_listing_enabled; REST: delimiter, "
                 "headers.NAME, connect_timeout_ms, request_timeout_ms); repeatable")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app.fallthrough();
  std::vector<Command> commands = {
      AddInfoCommand(app),        AddScanCommand(app),         AddTakeCommand(app),         AddBlobCommand(app),
      AddDumpCommand(app),        AddImportCommand(app),       AddExportCommand(app),       AddIngestCommand(app),
      AddDeleteCommand(app),      AddTagCommand(app),          AddRestoreCommand(app),      AddAddColumnsCommand(app),
      AddCompactCommand(app),     AddCleanupCommand(app),      AddExtractCommand(app),      AddExtractFrameCommand(app),
      AddExtractClipCommand(app), AddExtractAudioCommand(app), AddExtractImageCommand(app), AddCountCommand(app),
      AddUpdateCommand(app),      AddMergeCommand(app),        AddDiffCommand(app)};
  commands.push_back(AddBranchCommand(app));
  commands.push_back(AddCloneCommand(app));
  commands.push_back(AddIndexCommand(app));
  commands.push_back(AddSearchCommand(app));
  commands.push_back(AddNsCommand(app));
  commands.push_back(AddServeCommand(app));
  commands.push_back(AddIcebergCommand(app));
  commands.push_back(AddCompletionCommand(app));
  for (const Command& c : commands) AddBranchOption(*c.app);
  AddHelpExamples(app);
  GlobalBranch().clear();
  GlobalNamespace().clear();  // RunMain may run more than once in a process (tests)
  GlobalNamespaceProperties().clear();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    return ReportUsage(e.what());
  }
  if (lancet::Status st = SetStorageOptions(storage_options); !st.ok()) return ReportUsage(st.message());
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    const int rc = c.run();
    // Output still buffered goes now, so a closed pipe is told apart from other failures.
    if (std::fflush(stdout) != 0 && !StdoutClosedEarly()) {
      std::fprintf(stderr, "lancet: <stdout>: write failed: %s\n", std::strerror(errno));
      return kExitFailure;
    }
    return StdoutClosedEarly() ? kExitOk : rc;
  }
  return ReportUsage("no command given");
}

}  // namespace lancet::cli
