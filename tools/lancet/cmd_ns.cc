// `lancet ns ...`: namespaces and tables of the catalog at --namespace URI. Ids are
// dotted on the command line (ns1.ns2.table); the root namespace is the empty id.
#include <cstdio>

#include "lancet/catalog/namespace.h"
#include "lancet/commands.h"
#include "lancet/json_writer.h"

namespace lancet::cli {
namespace {

struct NsState {
  std::string id;
  std::string format;
  std::string location;
  std::vector<std::string> properties;
  bool exist_ok = false;
  bool cascade = false;
  bool skip_missing = false;
  std::string page_token;
  uint32_t limit = 0;
  CLI::App* list = nullptr;
  CLI::App* create = nullptr;
  CLI::App* describe = nullptr;
  CLI::App* drop = nullptr;
  CLI::App* tables = nullptr;
  CLI::App* register_table = nullptr;
  CLI::App* deregister = nullptr;
  CLI::App* drop_table = nullptr;
  CLI::App* declare = nullptr;

  catalog::Id ParsedId() const { return catalog::SplitId(id, "."); }

  // Usage errors for what the command line got wrong, failures for the rest.
  int Failed(const Status& st) const {
    if (catalog::ErrorCodeOf(st) == catalog::ErrorCode::kInvalidInput) return ReportUsage(st.message());
    return ReportError(st, GlobalNamespace());
  }

  int PrintPage(const Result<catalog::Page>& page) const {
    if (!page.ok()) return Failed(page.status());
    for (const std::string& name : page->names) {
      if (format == "json") {
        PrintJsonLine([&name](JsonWriter& w) {
          w.BeginObject();
          w.Key("name");
          w.String(name);
          w.EndObject();
        });
      } else {
        std::printf("%s\n", name.c_str());
      }
    }
    if (!page->next_token.empty()) std::fprintf(stderr, "lancet: more after '%s'\n", page->next_token.c_str());
    return kExitOk;
  }

  static void PrintProperties(const catalog::Properties& properties) {
    for (const auto& [k, v] : properties) std::printf("%s=%s\n", k.c_str(), v.c_str());
  }

  static void PrintTable(const catalog::TableInfo& info) {
    std::printf("location=%s\n", info.location.c_str());
    if (info.only_declared) std::printf("declared=true\n");
    PrintProperties(info.properties);
  }

  int Run() {
    if (GlobalNamespace().empty()) return ReportUsage("ns commands need --namespace URI");
    auto opened = OpenGlobalNamespace();
    if (!opened.ok()) return Failed(opened.status());
    catalog::Namespace& ns = **opened;
    catalog::PageRequest page;
    page.token = page_token;
    if (limit > 0) page.limit = limit;
    if (list->parsed()) return PrintPage(ns.ListNamespaces(ParsedId(), page));
    if (tables->parsed()) return PrintPage(ns.ListTables(ParsedId(), page));
    if (create->parsed()) {
      catalog::Properties props;
      for (const std::string& p : properties) {
        const size_t eq = p.find('=');
        if (eq == std::string::npos || eq == 0) return ReportUsage("--property wants KEY=VALUE, got '" + p + "'");
        props[p.substr(0, eq)] = p.substr(eq + 1);
      }
      auto made = ns.CreateNamespace(ParsedId(),
                                     exist_ok ? catalog::CreateMode::kExistOk : catalog::CreateMode::kCreate, props);
      if (!made.ok()) return Failed(made.status());
      PrintProperties(*made);
      return kExitOk;
    }
    if (describe->parsed()) {
      auto props = ns.DescribeNamespace(ParsedId());
      if (props.ok()) {
        PrintProperties(*props);
        return kExitOk;
      }
      // Not a namespace: maybe a table of that id.
      if (catalog::ErrorCodeOf(props.status()) == catalog::ErrorCode::kNamespaceNotFound && !ParsedId().empty()) {
        auto info = ns.DescribeTable(ParsedId());
        if (info.ok()) {
          PrintTable(*info);
          return kExitOk;
        }
      }
      return Failed(props.status());
    }
    if (drop->parsed()) {
      const Status dropped =
          (ns.DropNamespace(ParsedId(), skip_missing ? catalog::DropMode::kSkip : catalog::DropMode::kFail,
                            cascade ? catalog::DropBehavior::kCascade : catalog::DropBehavior::kRestrict));
      return dropped.ok() ? kExitOk : Failed(dropped);
    }
    Result<catalog::TableInfo> info = Status::Internal("no ns subcommand");
    if (register_table->parsed()) info = ns.RegisterTable(ParsedId(), location, {});
    if (deregister->parsed()) info = ns.DeregisterTable(ParsedId());
    if (drop_table->parsed()) info = ns.DropTable(ParsedId());
    if (declare->parsed()) info = ns.DeclareTable(ParsedId(), {});
    if (!info.ok()) return Failed(info.status());
    PrintTable(*info);
    return kExitOk;
  }
};

}  // namespace

Command AddNsCommand(CLI::App& root) {
  auto state = std::make_shared<NsState>();
  CLI::App* app = root.add_subcommand(
      "ns", "Namespaces and tables of the catalog at --namespace URI (ids are dotted: ns1.ns2.table)");
  app->require_subcommand(1);
  auto paged = [&](CLI::App* sub) {
    sub->add_option("ID", state->id, "Namespace id (default: the root)");
    sub->add_option("--page-token", state->page_token, "Only names after this one");
    sub->add_option("--limit", state->limit, "At most this many names");
    AddListFormatOption(*sub, &state->format);
  };
  state->list = app->add_subcommand("list", "Print the child namespaces of ID");
  paged(state->list);
  state->tables = app->add_subcommand("tables", "Print the tables of namespace ID");
  paged(state->tables);
  state->create = app->add_subcommand("create", "Create namespace ID");
  state->create->add_option("ID", state->id, "Namespace id")->required();
  state->create->add_option("--property", state->properties, "KEY=VALUE; repeatable")->type_name("KEY=VALUE");
  state->create->add_flag("--exist-ok", state->exist_ok, "Succeed if it exists (its properties are kept)");
  state->describe = app->add_subcommand("describe", "Print the properties of namespace ID (or a table's location)");
  state->describe->add_option("ID", state->id, "Namespace or table id");
  state->drop = app->add_subcommand("drop", "Drop namespace ID");
  state->drop->add_option("ID", state->id, "Namespace id")->required();
  state->drop->add_flag("--cascade", state->cascade, "Drop its tables (their data too) and child namespaces");
  state->drop->add_flag("--skip-missing", state->skip_missing, "Succeed if it does not exist");
  state->register_table = app->add_subcommand("register", "Add the dataset at LOCATION as table ID (data kept)");
  state->register_table->add_option("ID", state->id, "Table id")->required();
  state->register_table->add_option("LOCATION", state->location, "Dataset directory inside the root")->required();
  state->deregister = app->add_subcommand("deregister", "Remove table ID from the catalog, keeping its data");
  state->deregister->add_option("ID", state->id, "Table id")->required();
  state->drop_table = app->add_subcommand("drop-table", "Remove table ID and delete its data");
  state->drop_table->add_option("ID", state->id, "Table id")->required();
  state->declare = app->add_subcommand("declare", "Reserve table ID and print where its data goes");
  state->declare->add_option("ID", state->id, "Table id")->required();
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
