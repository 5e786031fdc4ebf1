// Command-line times for the video commands: "1.5" seconds and "T0:T1" windows.
#pragma once

#include <string>
#include <utility>

#include "lancet/result.h"

namespace lancet::cli {

/// A finite, non-negative decimal number of seconds; InvalidArgument naming `what`.
Result<double> ParseSeconds(const std::string& text, const std::string& what);

/// "T0:T1" with T0 < T1 (seconds) → {T0, T1}.
Result<std::pair<double, double>> ParseWindow(const std::string& text);

}  // namespace lancet::cli
