// `lancet completion bash|zsh`: a completion script made from the command tree itself,
// so it never falls behind the commands and options it completes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "lancet/cli_common.h"
#include "lancet/commands.h"

namespace lancet::cli {
namespace {

struct Node {
  std::string path;  // "lancet blob get"
  std::vector<std::string> subcommands;
  std::vector<std::string> options;
};

void Walk(const CLI::App& app, const std::string& path, std::vector<Node>* out) {
  const std::vector<const CLI::App*> subs = app.get_subcommands([](const CLI::App*) { return true; });
  Node node{path, {}, {}};
  for (const CLI::App* sub : subs) node.subcommands.push_back(sub->get_name());
  // Options of the parents apply below them too (fallthrough), as --storage-option.
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options()) {
      for (const std::string& l : opt->get_lnames()) node.options.push_back("--" + l);
      for (const std::string& s : opt->get_snames()) node.options.push_back("-" + s);
    }
  }
  out->push_back(std::move(node));
  for (const CLI::App* sub : subs) Walk(*sub, path + " " + sub->get_name(), out);
}

std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Bash: the words typed so far pick a node of the tree (unknown words, such as paths
// and values, are skipped); a word starting with '-' completes that node's options,
// another its subcommands, else file names.
std::string BashScript(const std::vector<Node>& nodes) {
  std::string s =
      "# lancet completion for bash: source it, or put it in\n"
      "# ~/.local/share/bash-completion/completions/lancet\n"
      "_lancet() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" path=lancet i subs opts\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"$path ${COMP_WORDS[i]}\" in\n";
  for (const Node& n : nodes) {
    if (n.path != "lancet") s += "      \"" + n.path + "\") path=\"$path ${COMP_WORDS[i]}\" ;;\n";
  }
  s += "    esac\n  done\n  case \"$path\" in\n";
  for (const Node& n : nodes) {
    s += "    \"" + n.path + "\") subs=\"" + Join(n.subcommands) + "\"; opts=\"" + Join(n.options) + "\" ;;\n";
  }
  s += "  esac\n"
       "  if [[ \"$cur\" == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  elif [[ -n \"$subs\" ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  fi\n"
       "}\n"
       "complete -o filenames -F _lancet lancet\n";
  return s;
}

}  // namespace

Command AddCompletionCommand(CLI::App& root) {
  auto shell = std::make_shared<std::string>();
  CLI::App* app = root.add_subcommand("completion", "Print a shell completion script (bash or zsh)");
  app->footer(
      "Completes commands, subcommands and options; other words complete as file names.\n"
      "Examples:\n"
      "  source <(lancet completion bash)\n"
      "  lancet completion zsh > \"${fpath[1]}/_lancet\"   # or: source <(lancet completion zsh)");
  app->add_option("SHELL", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  return {app, [&root, shell] {
            std::vector<Node> nodes;
            Walk(root, "lancet", &nodes);
            std::string script = BashScript(nodes);
            if (*shell == "zsh") {
              // zsh runs bash completion functions through its bashcompinit layer.
              script = "#compdef lancet\n# lancet completion for zsh\nautoload -U +X bashcompinit && bashcompinit\n" +
                       script;
            }
            std::fputs(script.c_str(), stdout);
            return kExitOk;
          }};
}

}  // namespace lancet::cli
