// `lancet index create|list|drop|optimize`: scalar and vector indexes.
#include <cstdio>
#include <map>

#include "lancet/commands.h"
#include "lancet/index/scalar_index.h"
#include "lancet/index/text_index.h"
#include "lancet/index/vector_index.h"
#include "lancet/index_json.h"
#include "lancet/progress.h"

namespace lancet::cli {
namespace {

struct IndexState {
  std::string dataset;
  std::string column;
  std::string type;
  std::string name;
  std::string format;
  std::vector<std::string> params;
  std::string distance;
  bool no_replace = false;
  uint64_t budget_mib = 0;
  Progress progress;
  CLI::App* create = nullptr;
  CLI::App* list = nullptr;
  CLI::App* drop = nullptr;
  CLI::App* optimize = nullptr;

  // Reports a failed build: usage errors for what the user can fix in the command.
  int BuildFailed(const Status& st) const {
    if (st.IsInvalidArgument() || st.IsNotFound() || st.code() == StatusCode::kAlreadyExists)
      return ReportUsage(st.message());
    return ReportError(st, dataset);
  }

  int Create(const table::Dataset& ds) {
    std::map<std::string, std::string> parsed;
    for (const std::string& p : params) {
      const size_t eq = p.find('=');
      if (eq == std::string::npos || eq == 0) return ReportUsage("--param wants KEY=VALUE, got '" + p + "'");
      parsed[p.substr(0, eq)] = p.substr(eq + 1);
    }
    if (auto vector_type = index::ParseVectorIndexType(type); vector_type.ok()) {
      index::CreateVectorIndexOptions options;
      if (!distance.empty()) {
        auto d = index::ParseDistanceType(distance);
        if (!d.ok()) return ReportUsage("--distance: " + d.status().message());
        options.distance = *d;
      }
      Fill(options, std::move(parsed));
      return Built(
          index::CreateVectorIndex(ds, column, *vector_type, options),
          std::string(index::VectorIndexTypeName(*vector_type)) + ", " + index::DistanceTypeName(options.distance));
    }
    if (!distance.empty()) return ReportUsage("--distance is for vector indexes only");
    if (type == "fts" || type == "FTS" || type == "inverted" || type == "INVERTED") {
      index::CreateTextIndexOptions options;
      Fill(options, std::move(parsed));
      return Built(index::CreateTextIndex(ds, column, options), "FTS");
    }
    auto type_id = index::ParseScalarIndexType(type);
    if (!type_id.ok()) {
      return ReportUsage("--type: unknown index type '" + type +
                         "' (choose btree, bitmap, label_list, zonemap, bloomfilter, fts, ivf_flat, ivf_pq, ivf_sq or "
                         "ivf_hnsw_sq)");
    }
    index::CreateIndexOptions options;
    Fill(options, std::move(parsed));
    return Built(index::CreateScalarIndex(ds, column, *type_id, options), index::ScalarIndexTypeName(*type_id));
  }

  // The options every index kind shares, from the command line.
  template <typename Options>
  void Fill(Options& options, std::map<std::string, std::string> parsed) {
    options.name = name;
    options.replace = !no_replace;
    if (budget_mib) options.memory_budget = budget_mib << 20;
    options.params = std::move(parsed);
    options.progress = [this](uint64_t done, uint64_t total) {
      progress.Report("indexed " + std::to_string(done) + " of " + std::to_string(total) + " rows");
    };
  }

  int Built(const Result<table::IndexMetadata>& made, const std::string& kind) {
    progress.Done();
    if (!made.ok()) return BuildFailed(made.status());
    uint64_t bytes = 0;
    for (const auto& f : made->files) bytes += f.size_bytes;
    std::printf("index '%s' (%s) on '%s': %s in _indices/%s\n", made->name.c_str(), kind.c_str(), column.c_str(),
                HumanBytes(bytes).c_str(), made->uuid.c_str());
    return kExitOk;
  }

  int List(const table::Dataset& ds) const {
    auto stats = index::DescribeIndices(ds);
    if (!stats.ok()) return ReportError(stats.status(), dataset);
    if (format == "json") {
      for (const index::IndexStats& s : *stats) PrintJsonLine([&s](JsonWriter& w) { WriteIndexStatsJson(w, s); });
      return kExitOk;
    }
    std::printf("name\ttype\tcolumn\tsegments\tindexed_rows\tunindexed_rows\tsize_bytes\n");
    for (const index::IndexStats& s : *stats) {
      std::printf("%s\t%s%s\t%s\t%llu\t%llu\t%llu\t%llu\n", s.name.c_str(), s.type.c_str(),
                  s.usable ? "" : " (not used)", s.column.c_str(), static_cast<unsigned long long>(s.num_segments),
                  static_cast<unsigned long long>(s.num_indexed_rows),
                  static_cast<unsigned long long>(s.num_unindexed_rows), static_cast<unsigned long long>(s.size_bytes));
    }
    return kExitOk;
  }

  int Run() {
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    if (create->parsed()) return Create(**ds);
    if (list->parsed()) return List(**ds);
    if (drop->parsed()) {
      auto v = index::DropIndex(**ds, name);
      if (!v.ok())
        return v.status().IsNotFound() ? ReportUsage(v.status().message()) : ReportError(v.status(), dataset);
      std::printf("dropped index '%s': version %llu\n", name.c_str(), static_cast<unsigned long long>(*v));
      return kExitOk;
    }
    auto r = index::OptimizeIndices(**ds, [this](const std::string& n) { progress.Report("rebuilding " + n, true); });
    progress.Done();
    if (!r.ok()) return ReportError(r.status(), dataset);
    if (r->rebuilt.empty()) {
      std::printf("every index covers every fragment: nothing to do\n");
    } else {
      for (const std::string& n : r->rebuilt) std::printf("rebuilt '%s'\n", n.c_str());
      std::printf("version %llu\n", static_cast<unsigned long long>(r->version));
    }
    return kExitOk;
  }
};

}  // namespace

Command AddIndexCommand(CLI::App& root) {
  auto state = std::make_shared<IndexState>();
  CLI::App* app =
      root.add_subcommand("index",
                          "Create, list, drop or optimize scalar, full-text and vector indexes (docs/indexes.md, "
                          "docs/vector-indexes.md, docs/full-text-search.md)");
  app->require_subcommand(1);
  state->create = app->add_subcommand("create", "Index COLUMN and commit the index as a new version");
  state->create->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->create->add_option("COLUMN", state->column, "Top-level column to index")->required();
  state->create
      ->add_option("--type,-t", state->type,
                   "btree, bitmap, label_list, zonemap, bloomfilter; full-text: fts; vector: ivf_flat, ivf_pq, ivf_sq, "
                   "ivf_hnsw_sq")
      ->required();
  state->create->add_option("--distance", state->distance, "Vector indexes: l2 (default), cosine or dot");
  state->create->add_option("--name", state->name, "Index name (default: COLUMN_idx)");
  state->create
      ->add_option("--param", state->params,
                   "KEY=VALUE: zonemap rows_per_zone; bloomfilter number_of_items, probability; vector "
                   "num_partitions, num_sub_vectors, num_bits, max_iterations, sample_rate; ivf_hnsw_sq m, "
                   "ef_construction; fts base_tokenizer, language, with_position, max_token_length, lower_case, "
                   "stem, remove_stop_words, ascii_folding, custom_stop_words; repeatable")
      ->type_name("KEY=VALUE");
  state->create->add_flag("--no-replace", state->no_replace, "Fail if an index of that name exists");
  state->create
      ->add_option("--memory-budget", state->budget_mib,
                   "MiB the build holds before it spills (scalar, vector) or writes a partition (fts); "
                   "default 256")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  state->progress.AddOption(*state->create);
  state->list = app->add_subcommand("list", "Print each index: type, column, segments, rows covered, size");
  state->list->add_option("DATASET", state->dataset, "Dataset directory")->required();
  AddListFormatOption(*state->list, &state->format);
  state->drop = app->add_subcommand("drop", "Remove index NAME (its files stay until cleanup)");
  state->drop->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->drop->add_option("NAME", state->name, "Index name")->required();
  state->optimize = app->add_subcommand("optimize", "Re-index fragments appended or compacted since the build");
  state->optimize->add_option("DATASET", state->dataset, "Dataset directory")->required();
  state->progress.AddOption(*state->optimize);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
