// `lancet merge`: upsert rows from an Arrow IPC file/stream or NDJSON by key columns.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "lancet/commands.h"
#include "lancet/import_source.h"
#include "lancet/table/merge_insert.h"

namespace lancet::cli {
namespace {

std::vector<std::string> SplitKeys(const std::string& list) {
  std::vector<std::string> keys;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    keys.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return keys;
}

struct MergeState {
  std::string dataset;
  std::string source;
  std::string on;
  std::optional<std::string> schema;
  std::string when_matched = "update";
  std::vector<std::string> update_columns;
  std::string matched_if;
  std::string when_not_matched = "insert";
  std::string by_source = "keep";
  std::string delete_if;
  uint64_t memory_mb = table::MergeInsertOptions{}.memory_budget_bytes >> 20;

  int Run() const {
    table::MergeInsertOptions o;
    o.on = SplitKeys(on);
    for (const std::string& k : o.on) {
      if (k.empty()) return ReportUsage("--on: empty key column name in '" + on + "'");
    }
    o.when_matched = when_matched == "skip"   ? table::WhenMatched::kDoNothing
                     : update_columns.empty() ? table::WhenMatched::kUpdateAll
                                              : table::WhenMatched::kUpdateColumns;
    if (when_matched == "skip" && !update_columns.empty()) {
      return ReportUsage("--update-columns needs --when-matched update");
    }
    o.update_columns = update_columns;
    o.when_matched_condition = matched_if;
    o.when_not_matched = when_not_matched == "skip" ? table::WhenNotMatched::kSkip : table::WhenNotMatched::kInsert;
    o.when_not_matched_by_source =
        by_source == "delete" ? table::WhenNotMatchedBySource::kDelete : table::WhenNotMatchedBySource::kKeep;
    if (!delete_if.empty() && by_source != "delete") {
      return ReportUsage("--delete-if needs --when-not-matched-by-source delete");
    }
    o.by_source_condition = delete_if;
    if (memory_mb == 0) return ReportUsage("--memory-mb must be at least 1");
    o.memory_budget_bytes = memory_mb << 20;
    // A file's size bounds the source's bytes: enough partitions for each to fit the
    // budget twice over (a stream of unknown length gets the default 64).
    std::error_code ec;
    const uintmax_t size = source == "-" ? 0 : std::filesystem::file_size(source, ec);
    if (!ec && size > 0) {
      const uint64_t want = (2 * static_cast<uint64_t>(size) + o.memory_budget_bytes - 1) / o.memory_budget_bytes;
      o.spill_partitions = static_cast<uint32_t>(std::clamp<uint64_t>(want, 64, 4096));
    }
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    auto src = OpenImportSource(source, schema);
    if (!src.ok()) return ReportError(src.status(), source);
    auto result = table::MergeInsert(**ds, **src, o);
    // MergeInsert names the dataset (or the source) itself.
    if (!result.ok()) return ReportError(result.status());
    std::string spilled;
    if (result->spilled_bytes > 0) {
      spilled = "; spilled " + std::to_string((result->spilled_bytes + (1 << 20) - 1) >> 20) + " MiB";
    }
    std::printf("merged %s into %s: %llu inserted, %llu updated, %llu deleted; version %llu%s\n", source.c_str(),
                dataset.c_str(), static_cast<unsigned long long>(result->rows_inserted),
                static_cast<unsigned long long>(result->rows_updated),
                static_cast<unsigned long long>(result->rows_deleted), static_cast<unsigned long long>(result->version),
                spilled.c_str());
    return kExitOk;
  }
};

}  // namespace

Command AddMergeCommand(CLI::App& root) {
  auto state = std::make_shared<MergeState>();
  CLI::App* app = root.add_subcommand("merge", "Merge rows into a dataset by key (merge_insert; a new version)");
  app->footer(
      "SRC is read as by `lancet import`: an Arrow IPC stream or file, or NDJSON with --schema;\n"
      "'-' reads an IPC stream from standard input. Its columns must be dataset columns of the\n"
      "same types; columns it lacks keep their values in updated rows and are null in inserted\n"
      "rows. A blob column takes binary bytes (or struct<data, uri>), stored by size as import\n"
      "stores them; a format 2.3 (blob_info) dataset's blob columns cannot come from SRC.\n"
      "A null key matches nothing. Two source rows matching one dataset row while\n"
      "updating is an error (nothing is written).\n"
      "--matched-if takes a filter over target.<col> and source.<col>; --delete-if one over\n"
      "the dataset's columns (docs/filters.md).");
  app->add_option("DATASET", state->dataset, "Dataset directory or URI")->required();
  app->add_option("SRC", state->source, "Rows to merge (file, or - for standard input)")->required();
  app->add_option("--on", state->on, "Key column(s), comma-separated")->required();
  app->add_option("--schema", state->schema, "Schema JSON for an NDJSON source (as for import)");
  app->add_option("--when-matched", state->when_matched, "update (default) or skip")
      ->check(CLI::IsMember({"update", "skip"}));
  app->add_option("--update-columns", state->update_columns, "Only these source columns replace matched values")
      ->delimiter(',');
  app->add_option("--matched-if", state->matched_if, "Update a matched row only where this is true");
  app->add_option("--when-not-matched", state->when_not_matched, "insert (default) or skip")
      ->check(CLI::IsMember({"insert", "skip"}));
  app->add_option("--when-not-matched-by-source", state->by_source, "keep (default) or delete")
      ->check(CLI::IsMember({"keep", "delete"}));
  app->add_option("--delete-if", state->delete_if, "Delete an unmatched dataset row only where this is true");
  app->add_option("--memory-mb", state->memory_mb, "Source MiB held in memory before spilling to temp files");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
