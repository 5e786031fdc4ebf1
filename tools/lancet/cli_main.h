// The lancet command line as a function, so main() needs no CLI11.
#pragma once

namespace lancet::cli {

/// Parses argv, runs the chosen command and returns the process exit status. May throw
/// what CLI11 or an allocation throws; main() reports it.
int RunMain(int argc, char** argv);

}  // namespace lancet::cli
