// Examples at the end of each command's --help.
#pragma once

#include <map>
#include <string>

namespace CLI {
class App;
}

namespace lancet::cli {

/// Appends "Example:" and the command's example to the footer of every subcommand of
/// `root` that has one. Call once every command has been added.
void AddHelpExamples(CLI::App& root);

/// Command path ("blob get") to its example line, for the tests.
const std::map<std::string, std::string>& HelpExamples();

}  // namespace lancet::cli
