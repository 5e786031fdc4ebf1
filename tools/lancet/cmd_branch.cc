// `lancet branch create|list|delete|diff DATASET ...`: branches of a table.
#include <cstdio>
#include <map>
#include <set>

#include "lancet/commands.h"
#include "lancet/json_writer.h"
#include "lancet/render.h"
#include "lancet/table/branch.h"
#include "lancet/table/changes.h"

namespace lancet::cli {
namespace {

struct BranchState {
  std::string dataset;
  std::string name;
  std::optional<uint64_t> version;
  std::string format = "table";
  CLI::App* create = nullptr;
  CLI::App* remove = nullptr;
  CLI::App* diff = nullptr;

  int Run() const {
    VersionSelector from;
    from.version = version;
    // --branch names the branch to fork from; the others act on the table as a whole.
    auto ds = OpenDataset(dataset, from);
    if (!ds.ok()) return ReportError(ds.status());
    if (create->parsed()) {
      auto branch = table::CreateBranch(**ds, name);
      if (!branch.ok()) return ReportError(branch.status(), dataset);
      std::printf("branch '%s' -> version %llu of %s\n", name.c_str(),
                  static_cast<unsigned long long>((*branch)->version()),
                  (*ds)->branch().empty() ? "main" : (*ds)->branch().c_str());
      return kExitOk;
    }
    if (remove->parsed()) {
      Status st = table::DeleteBranch(**ds, name);
      return st.ok() ? kExitOk : ReportError(st, dataset);
    }
    if (diff->parsed()) return Diff(**ds);
    auto branches = table::ListBranches(**ds);
    if (!branches.ok()) return ReportError(branches.status(), dataset);
    for (const table::BranchInfo& b : *branches) {
      const std::string parent = b.parent_branch.empty() ? "main" : b.parent_branch;
      if (format == "json") {
        PrintJsonLine([&](JsonWriter& w) {
          w.BeginObject();
          w.Key("branch");
          w.String(b.name);
          w.Key("parent");
          w.String(parent);
          w.Key("parent_version");
          w.UInt(b.parent_version);
          w.EndObject();
        });
      } else {
        std::printf("%s\t%s\t%llu\n", b.name.c_str(), parent.c_str(),
                    static_cast<unsigned long long>(b.parent_version));
      }
    }
    return kExitOk;
  }

  // Both sides' changes since the fork point (CDC), then the columns only one side has.
  int Diff(const table::Dataset& any) const {
    auto branches = table::ListBranches(any);
    if (!branches.ok()) return ReportError(branches.status(), dataset);
    const table::BranchInfo* info = nullptr;
    for (const table::BranchInfo& b : *branches) {
      if (b.name == name) info = &b;
    }
    if (info == nullptr) return ReportError(Status::NotFound("branch '" + name + "' not found"), dataset);
    table::OpenOptions o;
    o.storage_options = GlobalStorageOptions();
    o.branch = name;
    auto side = table::Dataset::Open(any.store(), any.table_root(), o);
    if (!side.ok()) return ReportError(side.status(), dataset);
    o.branch = info->parent_branch;
    auto base = table::Dataset::Open(any.store(), any.table_root(), o);
    if (!base.ok()) return ReportError(base.status(), dataset);
    const std::string base_name = info->parent_branch.empty() ? "main" : info->parent_branch;
    RenderOptions render;
    render.format = ParseRowFormat(format);
    for (const auto& [label, ds] : {std::pair{name, side->get()}, std::pair{base_name, base->get()}}) {
      std::printf("# %s: changes after version %llu up to %llu\n", label.c_str(),
                  static_cast<unsigned long long>(info->parent_version),
                  static_cast<unsigned long long>(ds->version()));
      auto reader = table::Changes(*ds, info->parent_version, ds->version());
      if (!reader.ok()) return ReportError(reader.status(), dataset);
      std::fflush(stdout);  // the heading before the sink's rows
      auto sink = OutputSink::Open("");
      if (!sink.ok()) return ReportError(sink.status());
      Status st = RenderRowStream(**reader, render, **sink);
      if (st.ok()) st = (*sink)->Close();
      if (!st.ok()) return ReportError(st, dataset);
    }
    std::set<std::string> here, there;
    for (const Field& f : (*side)->schema().fields) here.insert(f.name + " " + f.type.ToString());
    for (const Field& f : (*base)->schema().fields) there.insert(f.name + " " + f.type.ToString());
    std::fflush(stdout);
    std::printf("# schema: + only on %s, - only on %s\n", name.c_str(), base_name.c_str());
    for (const std::string& f : here) {
      if (!there.count(f)) std::printf("+ %s\n", f.c_str());
    }
    for (const std::string& f : there) {
      if (!here.count(f)) std::printf("- %s\n", f.c_str());
    }
    return kExitOk;
  }
};

}  // namespace

Command AddBranchCommand(CLI::App& root) {
  auto state = std::make_shared<BranchState>();
  CLI::App* app = root.add_subcommand("branch", "Create, list, delete or diff branches (forks that copy no data)");
  app->require_subcommand(1);
  state->create = app->add_subcommand("create", "Fork NAME from --branch (default main) at --version (default latest)");
  state->create->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->create->add_option("NAME", state->name, "Branch name ('/' nests)")->required();
  state->create->add_option("--version", state->version, "Fork from this version instead of the latest");
  CLI::App* list = app->add_subcommand("list", "Print each branch, its parent and the version it forked from");
  list->add_option("DATASET", state->dataset, "Dataset directory")->required();
  AddListFormatOption(*list, &state->format);
  state->remove = app->add_subcommand("delete", "Delete branch NAME and its files");
  state->remove->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->remove->add_option("NAME", state->name, "Branch name")->required();
  state->diff = app->add_subcommand(
      "diff",
      "Rows each side inserted, updated and deleted since NAME forked, and columns only one side has "
      "(needs stable row ids)");
  state->diff->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->diff->add_option("NAME", state->name, "Branch name")->required();
  state->diff->add_option("--format,-f", state->format, "Output format of the rows")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json", "csv"}));
  for (CLI::App* sub : {state->create, list, state->remove, state->diff}) AddBranchOption(*sub);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
