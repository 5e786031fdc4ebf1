// Progress lines on stderr for long commands: on when stderr is a terminal or
// --progress is given, silent otherwise (scripts and tests).
#pragma once

#include <chrono>
#include <string>

namespace CLI {
class App;
}

namespace lancet::cli {

class Progress {
 public:
  /// Adds --progress to `app`.
  void AddOption(CLI::App& app);
  bool enabled() const;
  /// Prints "lancet: <message>" at most a few times a second (rewriting the
  /// line on a terminal); `force` prints regardless, for a step's last line.
  void Report(const std::string& message, bool force = false);
  /// Ends a rewritten line.
  void Done();

 private:
  bool flag_ = false;
  bool pending_newline_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace lancet::cli
