#include "lancet/cli_common.h"

#include "lancet/catalog/namespace.h"
#include "lancet/json_writer.h"

#include "lancet/table/branch.h"

#include <CLI/CLI.hpp>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace lancet::cli {

bool StdoutClosedEarly() {
  if (!std::ferror(stdout)) return false;
  if (errno == EPIPE) return true;
  // errno may have been overwritten since the failed write; a pipe whose reader is gone
  // reports POLLERR on its write end.
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

int ReportError(const Status& status, const std::string& context) {
  if (StdoutClosedEarly()) return kExitOk;
  std::string message = status.message();
  if (message.empty()) message = status.ToString();
  if (!context.empty() && message.find(context) == std::string::npos) message = context + ": " + message;
  std::fprintf(stderr, "lancet: %s\n", message.c_str());
  return status.IsCommitConflict() ? kExitConflict : kExitFailure;
}

int ReportUsage(const std::string& message) {
  std::fprintf(stderr, "lancet: %s\nRun 'lancet --help' (or 'lancet COMMAND --help') for usage.\n", message.c_str());
  return kExitUsage;
}

void VersionSelector::AddOptions(CLI::App& app) {
  auto* v = app.add_option("--version", version, "Read this version instead of the latest");
  auto* t = app.add_option("--tag", tag, "Read the version this tag points at");
  v->excludes(t);
}

std::string& GlobalBranch() {
  static std::string branch;
  return branch;
}

void AddListFormatOption(CLI::App& app, std::string* format) {
  *format = "table";
  app.add_option("--format,-f", *format, "Output format: table (tab-separated lines) or json (an object per line)")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
}

void PrintJsonLine(const std::function<void(JsonWriter&)>& write) {
  std::string line;
  JsonWriter w(&line);
  write(w);
  std::printf("%s\n", line.c_str());
}

void AddBranchOption(CLI::App& app) {
  app.add_option("--branch", GlobalBranch(), "Work on this branch instead of main")->type_name("NAME");
}

Result<std::string> BranchWriteUri(const std::string& path) {
  if (GlobalBranch().empty() || GlobalBranch() == "main") return path;
  RETURN_IF_ERROR(OpenDataset(path, VersionSelector{}).status());
  return table::BranchRoot(path, GlobalBranch());
}

io::StorageOptions& GlobalStorageOptions() {
  static io::StorageOptions options;
  return options;
}

Status SetStorageOptions(const std::vector<std::string>& pairs) {
  for (const std::string& p : pairs) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--storage-option wants KEY=VALUE, got '" + p.substr(0, eq) + "...'");
    }
    GlobalStorageOptions()[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return Status::OK();
}

std::string& GlobalNamespace() {
  static std::string uri;
  return uri;
}

std::vector<std::string>& GlobalNamespaceProperties() {
  static std::vector<std::string> pairs;
  return pairs;
}

Result<std::unique_ptr<catalog::Namespace>> OpenGlobalNamespace() {
  const std::string& uri = GlobalNamespace();
  catalog::Properties properties;
  for (const std::string& p : GlobalNamespaceProperties()) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--namespace-property wants KEY=VALUE, got '" + p.substr(0, eq) + "...'");
    }
    properties[p.substr(0, eq)] = p.substr(eq + 1);
  }
  const bool http = uri.rfind("http://", 0) == 0 || uri.rfind("https://", 0) == 0;
  // From the environment, not the command line: a token in argv is visible to every user.
  if (const char* token = std::getenv("LANCET_NAMESPACE_TOKEN"); http && token != nullptr && *token != '\0') {
    properties.emplace("headers.x-api-key", token);
  }
  auto ns = catalog::OpenNamespace(uri, properties);
  if (!ns.ok()) return Status(ns.status().code(), "namespace " + uri + ": " + ns.status().message());
  return ns;
}

Result<std::string> ResolveDatasetPath(const std::string& path) {
  if (GlobalNamespace().empty()) return path;
  ASSIGN_OR_RETURN(std::unique_ptr<catalog::Namespace> ns, OpenGlobalNamespace());
  auto info = ns->DescribeTable(catalog::SplitId(path, "."));
  if (!info.ok())
    return Status(info.status().code(), "namespace " + GlobalNamespace() + ": " + info.status().message());
  return info->location;
}

Result<std::string> ResolveDatasetPathForWrite(const std::string& path) {
  if (GlobalNamespace().empty()) return path;
  ASSIGN_OR_RETURN(std::unique_ptr<catalog::Namespace> ns, OpenGlobalNamespace());
  const catalog::Id id = catalog::SplitId(path, ".");
  auto info = ns->DescribeTable(id);
  if (!info.ok() && catalog::ErrorCodeOf(info.status()) == catalog::ErrorCode::kTableNotFound) {
    info = ns->DeclareTable(id, {});
  }
  if (!info.ok()) {
    return Status(info.status().code(), "namespace " + GlobalNamespace() + ": " + info.status().message());
  }
  return info->location;
}

Result<std::unique_ptr<table::Dataset>> OpenDataset(const std::string& id_or_path, const VersionSelector& selector) {
  ASSIGN_OR_RETURN(const std::string path, ResolveDatasetPath(id_or_path));
  table::OpenOptions options;
  options.storage_options = GlobalStorageOptions();
  options.version = selector.version;
  options.tag = selector.tag;
  options.branch = GlobalBranch();
  auto ds = table::Dataset::Open(path, options);
  if (!ds.ok()) {
    std::string what = "cannot open dataset " + path;
    if (selector.version) what += " at version " + std::to_string(*selector.version);
    if (selector.tag) what += " at tag '" + *selector.tag + "'";
    if (!options.branch.empty() && !selector.tag) what += " on branch '" + options.branch + "'";
    return Status(ds.status().code(), what + ": " + ds.status().message());
  }
  return ds;
}

Status CheckColumns(const Schema& schema, const std::vector<std::string>& columns) {
  for (const std::string& c : columns) {
    if (schema.FieldIndex(c) >= 0) continue;
    std::string known;
    for (const Field& f : schema.fields) known += (known.empty() ? "" : ", ") + f.name;
    return Status::InvalidArgument("no column named '" + c + "' (columns: " + (known.empty() ? "none" : known) + ")");
  }
  return Status::OK();
}

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    const size_t b = item.find_first_not_of(" \t");
    const size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    start = comma + 1;
  }
  return out;
}

Result<std::chrono::seconds> ParseDuration(const std::string& text) {
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string unit(ptr, text.data() + text.size());
  uint64_t scale = 0;
  if (unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  // 2^40 s is over 30,000 years: anything larger is a typo, not an age.
  if (ec != std::errc() || ptr == text.data() || scale == 0 || n > (uint64_t{1} << 40) / scale) {
    return Status::InvalidArgument("'" + text + "' is not a duration (e.g. 7d, 12h, 30m, 0s)");
  }
  return std::chrono::seconds(static_cast<int64_t>(n * scale));
}

Result<std::vector<uint64_t>> ParseU64List(const std::string& list) {
  std::vector<uint64_t> out;
  for (const std::string& item : SplitList(list)) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || ptr != item.data() + item.size()) {
      return Status::InvalidArgument("'" + item + "' is not a row id (an unsigned integer)");
    }
    out.push_back(v);
  }
  return out;
}

std::string HumanBytes(uint64_t n) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return text;
}

}  // namespace lancet::cli
