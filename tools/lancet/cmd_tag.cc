// `lancet tag DATASET create|delete|list`: named versions.
#include <cstdio>

#include "lancet/commands.h"
#include "lancet/table/write.h"

namespace lancet::cli {
namespace {

struct TagState {
  std::string dataset;
  std::string name;
  std::optional<uint64_t> version;
  CLI::App* create = nullptr;
  CLI::App* remove = nullptr;

  int Run() const {
    auto ds = OpenDataset(dataset, VersionSelector{});
    if (!ds.ok()) return ReportError(ds.status());
    if (create->parsed()) {
      const uint64_t v = version.value_or((*ds)->version());
      Status st = table::CreateTag(**ds, name, v);
      if (!st.ok()) return ReportError(st, dataset);
      std::printf("tag '%s' -> version %llu\n", name.c_str(), static_cast<unsigned long long>(v));
      return kExitOk;
    }
    if (remove->parsed()) {
      Status st = table::DeleteTag(**ds, name);
      return st.ok() ? kExitOk : ReportError(st, dataset);
    }
    auto tags = (*ds)->ListTags();
    if (!tags.ok()) return ReportError(tags.status(), dataset);
    for (const auto& [tag, v] : *tags) std::printf("%s\t%llu\n", tag.c_str(), static_cast<unsigned long long>(v));
    return kExitOk;
  }
};

}  // namespace

Command AddTagCommand(CLI::App& root) {
  auto state = std::make_shared<TagState>();
  CLI::App* app = root.add_subcommand("tag", "Create, delete or list tags (names for versions)");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->require_subcommand(1);
  state->create = app->add_subcommand("create", "Tag VERSION (default: the latest) as NAME");
  state->create->add_option("NAME", state->name, "Tag name")->required();
  state->create->add_option("VERSION", state->version, "Version to tag (default: the latest)");
  state->remove = app->add_subcommand("delete", "Delete tag NAME");
  state->remove->add_option("NAME", state->name, "Tag name")->required();
  app->add_subcommand("list", "Print each tag and its version, tab-separated, sorted by name");
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
