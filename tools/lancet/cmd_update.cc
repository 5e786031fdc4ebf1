// `lancet update`: set columns of the rows a predicate matches (a new version).
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/table/update.h"

namespace lancet::cli {
namespace {

struct UpdateState {
  std::string dataset;
  std::string where;
  std::vector<std::string> set;

  int Run() const {
    std::vector<std::pair<std::string, std::string>> assignments;
    for (const std::string& s : set) {
      const size_t eq = s.find('=');
      // "caption = 'x'" reads like SQL, so blanks around the column name are not part of it.
      const size_t begin = s.find_first_not_of(" \t");
      const size_t end = eq == std::string::npos ? eq : s.find_last_not_of(" \t", eq - 1);
      if (eq == std::string::npos || begin >= eq || end == std::string::npos || end < begin) {
        return ReportUsage("--set '" + s + "': expected COLUMN=EXPR");
      }
      assignments.emplace_back(s.substr(begin, end + 1 - begin), s.substr(eq + 1));
    }
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    auto result = table::Update(**ds, where, assignments);
    if (!result.ok()) return ReportError(result.status(), dataset);
    std::printf("updated %llu rows, version %llu\n", static_cast<unsigned long long>(result->rows_updated),
                static_cast<unsigned long long>(result->version));
    return kExitOk;
  }
};

}  // namespace

Command AddUpdateCommand(CLI::App& root) {
  auto state = std::make_shared<UpdateState>();
  CLI::App* app = root.add_subcommand("update", "Set columns of the rows a predicate matches (a new version)");
  app->footer(
      "--where takes a filter as `lancet delete --where` does (docs/filters.md); without it\n"
      "every row is updated. Each --set COLUMN=EXPR gives a top-level column a value computed\n"
      "from the row's old values in the same language (price * 2, lower(name), 'text', NULL),\n"
      "cast to the column's type. With stable row ids the rows keep _rowid and\n"
      "_row_created_at_version; _row_last_updated_at_version becomes the new version.");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--where", state->where, "Update the rows this predicate is true for (default: all)");
  app->add_option("--set", state->set, "COLUMN=EXPR (repeatable)")->required()->allow_extra_args(false);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
