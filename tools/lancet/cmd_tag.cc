// `lancet tag create|delete|list DATASET ...`: named versions. The dataset may also come
// first (`lancet tag DATASET create NAME`), the order earlier releases took.
#include <cstdio>
#include <string>
#include <vector>

#include "lancet/commands.h"
#include "lancet/json_writer.h"
#include "lancet/table/write.h"

namespace lancet::cli {
namespace {

struct TagState {
  std::string dataset;            // when given before the subcommand
  std::vector<std::string> args;  // the subcommand's words: [DATASET] NAME [VERSION]
  CLI::App* create = nullptr;
  CLI::App* remove = nullptr;
  CLI::App* list = nullptr;
  std::string format;

  int Run() {
    const bool listing = list->parsed();
    const size_t names = listing ? 0 : 1;  // NAME words the subcommand needs
    const size_t most = create->parsed() ? names + 1 : names;
    if (dataset.empty()) {
      if (args.empty()) return ReportUsage("tag: DATASET is required");
      dataset = args.front();
      args.erase(args.begin());
    }
    if (args.size() < names || args.size() > most) {
      return ReportUsage(listing            ? "tag list takes only DATASET"
                         : create->parsed() ? "tag create takes DATASET NAME [VERSION]"
                                            : "tag delete takes DATASET NAME");
    }
    std::optional<uint64_t> version;
    if (args.size() == 2) {
      auto v = ParseU64List(args[1]);
      if (!v.ok() || v->size() != 1)
        return ReportUsage("tag create: VERSION '" + args[1] + "' is not a version number");
      version = v->front();
    }
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    if (create->parsed()) {
      const uint64_t v = version.value_or((*ds)->version());
      Status st = table::CreateTag(**ds, args[0], v);
      if (!st.ok()) return ReportError(st, dataset);
      std::printf("tag '%s' -> version %llu\n", args[0].c_str(), static_cast<unsigned long long>(v));
      return kExitOk;
    }
    if (remove->parsed()) {
      Status st = table::DeleteTag(**ds, args[0]);
      return st.ok() ? kExitOk : ReportError(st, dataset);
    }
    auto tags = (*ds)->ListTags();
    if (!tags.ok()) return ReportError(tags.status(), dataset);
    // Not a structured binding: clang 14 cannot capture one in the lambda.
    for (const auto& entry : *tags) {
      const std::string& tag = entry.first;
      const uint64_t v = entry.second;
      if (format == "json") {
        PrintJsonLine([&](JsonWriter& w) {
          w.BeginObject();
          w.Key("tag");
          w.String(tag);
          w.Key("version");
          w.UInt(v);
          w.EndObject();
        });
      } else {
        std::printf("%s\t%llu\n", tag.c_str(), static_cast<unsigned long long>(v));
      }
    }
    return kExitOk;
  }
};

}  // namespace

Command AddTagCommand(CLI::App& root) {
  auto state = std::make_shared<TagState>();
  CLI::App* app = root.add_subcommand("tag", "Create, delete or list tags (names for versions)");
  app->add_option("DATASET", state->dataset, "Dataset directory (may also follow the subcommand)");
  app->require_subcommand(1);
  state->create = app->add_subcommand("create", "Tag VERSION (default: the latest) as NAME");
  state->create->add_option("ARGS", state->args, "DATASET NAME [VERSION]")->required();
  state->remove = app->add_subcommand("delete", "Delete tag NAME");
  state->remove->add_option("ARGS", state->args, "DATASET NAME")->required();
  state->list = app->add_subcommand("list", "Print each tag and its version, tab-separated, sorted by name");
  state->list->add_option("ARGS", state->args, "DATASET");
  AddListFormatOption(*state->list, &state->format);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
