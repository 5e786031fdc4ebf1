// Runs a CLI writer against a real OutputSink and returns what it wrote.
#pragma once

#include <functional>
#include <string>

#include "lancet/json_writer.h"
#include "lancet/result.h"

namespace lancet::cli {

// Each call writes to its own file: ctest runs the tests of one binary as
// concurrent processes, so a shared name lets one test delete another's output.
Result<std::string> CaptureSink(const std::function<Status(OutputSink&)>& write);

}  // namespace lancet::cli
