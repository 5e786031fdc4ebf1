// Helpers shared by the lancet subcommands: exit codes, error reporting, opening.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/catalog/namespace.h"
#include "lancet/io/storage_options.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace CLI {
class App;
}

namespace lancet::cli {

class JsonWriter;

/// Settings for remote stores given with --storage-option KEY=VALUE (LanceDB's keys:
/// aws_endpoint, aws_region, allow_http, ...); every dataset URI opens with them.
io::StorageOptions& GlobalStorageOptions();
/// Parses the --storage-option values into GlobalStorageOptions().
Status SetStorageOptions(const std::vector<std::string>& pairs);

// Exit statuses (docs/cli.md): scripts tell a typo from bad data from a lost race.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
/// Bad or missing data, I/O, anything the command could not do.
inline constexpr int kExitFailure = 2;
/// Another writer committed first in a way this commit cannot be rebased over: retry.
inline constexpr int kExitConflict = 3;

/// A subcommand: its CLI11 node and the function that runs it once parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// True once a write to stdout failed because its reader went away (`lancet scan X |
/// head -1`): like git and ripgrep, lancet then ends quietly with status 0.
bool StdoutClosedEarly();

/// Prints "lancet: <context>: <message>" to stderr and returns kExitConflict for a
/// commit conflict, else kExitFailure. The context (usually the dataset path) is left
/// out when the message already names it.
/// When StdoutClosedEarly(), prints nothing and returns kExitOk instead: the failure is
/// the closed pipe, which is no error of the command.
int ReportError(const Status& status, const std::string& context = {});
/// Prints "lancet: <message>" plus a --help hint to stderr and returns kExitUsage.
int ReportUsage(const std::string& message);

/// The branch given with --branch (empty: main); every dataset opens on it.
std::string& GlobalBranch();
/// Adds --branch NAME to `app` (every command has it).
void AddBranchOption(CLI::App& app);
/// `--format table|json` of commands that print a list: "table" (the default) prints
/// tab-separated lines, "json" one JSON object per line, as `scan --format json` does.
void AddListFormatOption(CLI::App& app, std::string* format);
/// Prints what `write` writes as one line of JSON on stdout (--format json lists).
void PrintJsonLine(const std::function<void(JsonWriter&)>& write);
/// Where a command that writes by URI writes: `path`, or its branch's directory once
/// the branch is known to exist.
Result<std::string> BranchWriteUri(const std::string& path);

/// Which version of a dataset a command reads.
struct VersionSelector {
  std::optional<uint64_t> version;
  std::optional<std::string> tag;
  /// Adds --version N and --tag NAME to `app`, mutually exclusive.
  void AddOptions(CLI::App& app);
};

/// The namespace given with --namespace URI (empty: none). With one, dataset arguments
/// are dotted table ids (`ns1.ns2.table`) resolved through it.
std::string& GlobalNamespace();
/// --namespace-property KEY=VALUE pairs given with it (implementation properties).
std::vector<std::string>& GlobalNamespaceProperties();
/// Opens the namespace at GlobalNamespace() with its properties; for http(s) URIs the
/// environment's LANCET_NAMESPACE_TOKEN is sent as x-api-key unless a property sets it.
Result<std::unique_ptr<catalog::Namespace>> OpenGlobalNamespace();
/// The dataset location of `path`: `path` itself without --namespace, else the location
/// the namespace gives for the dotted table id `path`.
Result<std::string> ResolveDatasetPath(const std::string& path);
/// As ResolveDatasetPath, but a table id the namespace does not know yet is declared
/// there first (commands that create datasets).
Result<std::string> ResolveDatasetPathForWrite(const std::string& path);

/// Opens `path` (a directory or URI, or a table id with --namespace) at the selected
/// version.
Result<std::unique_ptr<table::Dataset>> OpenDataset(const std::string& path, const VersionSelector& selector);

/// InvalidArgument naming the first of `columns` that is not a top-level field of
/// `schema`, with the list of fields there are.
Status CheckColumns(const Schema& schema, const std::vector<std::string>& columns);

/// "512 B", "1.5 KiB", "3.2 GiB": sizes for people.
std::string HumanBytes(uint64_t n);

/// Splits "a,b,,c" into {"a","b","c"}.
std::vector<std::string> SplitList(const std::string& list);
/// Parses "7d", "12h", "30m", "45s", "0s" (a whole number and one unit).
Result<std::chrono::seconds> ParseDuration(const std::string& text);
/// Parses "1,5,9" (decimal u64s, spaces allowed) or reports which item is bad.
Result<std::vector<uint64_t>> ParseU64List(const std::string& list);

}  // namespace lancet::cli
