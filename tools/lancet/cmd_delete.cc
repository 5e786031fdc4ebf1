// `lancet delete`: rows by predicate or by row address.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/table/write.h"

namespace lancet::cli {
namespace {

struct DeleteState {
  std::string dataset;
  std::optional<std::string> where;
  std::optional<std::string> rows;

  int Run() const {
    if (where.has_value() == rows.has_value()) return ReportUsage("delete needs exactly one of --where and --rows");
    std::vector<uint64_t> addresses;
    if (rows) {
      auto parsed = ParseU64List(*rows);
      if (!parsed.ok()) return ReportUsage("--rows: " + parsed.status().message());
      if (parsed->empty()) return ReportUsage("--rows: no row addresses given");
      addresses = std::move(*parsed);
    }
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    const uint64_t before = (*ds)->CountRows();
    auto version = where ? table::DeleteWhere(**ds, *where) : table::DeleteRows(**ds, addresses);
    if (!version.ok()) return ReportError(version.status(), dataset);
    if (*version == (*ds)->version()) {
      std::printf("no rows matched; %s stays at version %llu\n", dataset.c_str(),
                  static_cast<unsigned long long>(*version));
      return kExitOk;
    }
    auto after = (*ds)->Checkout(*version);
    if (!after.ok()) return ReportError(after.status(), dataset);
    std::printf("deleted %llu rows from %s: version %llu\n",
                static_cast<unsigned long long>(before - (*after)->CountRows()), dataset.c_str(),
                static_cast<unsigned long long>(*version));
    return kExitOk;
  }
};

}  // namespace

Command AddDeleteCommand(CLI::App& root) {
  auto state = std::make_shared<DeleteState>();
  CLI::App* app = root.add_subcommand("delete", "Delete rows (a new version)");
  app->footer(
      "--where takes a filter in the reference's SQL subset (docs/filters.md): comparisons,\n"
      "AND/OR/NOT, IS [NOT] NULL|TRUE|FALSE, [NOT] IN (...), [NOT] BETWEEN, [NOT] LIKE,\n"
      "+ - * / %, CAST(x AS type), DATE '...' and TIMESTAMP '...', lower/upper/starts_with/\n"
      "length, array_has/array_has_any/array_length; dotted names reach struct members.\n"
      "--rows takes row addresses ((fragment_id << 32) | offset), as `lancet scan --row-ids`\n"
      "prints them (_rowaddr).");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  auto* w = app->add_option("--where", state->where, "Delete the rows this predicate is true for");
  auto* r = app->add_option("--rows", state->rows, "Delete these row addresses (comma-separated)");
  w->excludes(r);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
