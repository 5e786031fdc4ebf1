#include "lancet/progress.h"

#include <CLI/CLI.hpp>

#include <unistd.h>
#include <cstdio>

namespace lancet::cli {
namespace {

bool StderrIsTerminal() { return isatty(STDERR_FILENO) != 0; }

}  // namespace

void Progress::AddOption(CLI::App& app) {
  app.add_flag("--progress", flag_, "Report progress on stderr (default: only when stderr is a terminal)");
}

bool Progress::enabled() const { return flag_ || StderrIsTerminal(); }

void Progress::Report(const std::string& message, bool force) {
  if (!enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  if (StderrIsTerminal()) {
    std::fprintf(stderr, "\rlancet: %s\033[K", message.c_str());
    pending_newline_ = true;
  } else {
    std::fprintf(stderr, "lancet: %s\n", message.c_str());
  }
}

void Progress::Done() {
  if (pending_newline_) std::fputc('\n', stderr);
  pending_newline_ = false;
}

}  // namespace lancet::cli
