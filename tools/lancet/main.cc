// lancet: command-line access to Lance datasets.
#include <csignal>
#include <cstdio>
#include <exception>

#include "lancet/cli_common.h"
#include "lancet/cli_main.h"

int main(int argc, char** argv) {
  // A reader that stops early (`lancet scan X | head -1`) must not kill lancet with
  // SIGPIPE; writes fail with EPIPE instead and lancet ends quietly (StdoutClosedEarly).
  std::signal(SIGPIPE, SIG_IGN);
  // CLI11 reports parse problems with exceptions; nothing else in lancet throws,
  // but an allocation failure must still end with a message rather than abort.
  try {
    return lancet::cli::RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lancet: %s\n", e.what());
    return lancet::cli::kExitFailure;
  }
}
