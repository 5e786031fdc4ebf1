#include "lancet/io_stats_line.h"

#include <cstdio>
#include <string>

namespace lancet::cli {

void AddIoStatsFlag(CLI::App& app, bool* on) {
  app.add_flag("--io-stats", *on, "Print the reads it took as one JSON line on stderr");
}

void PrintIoStats(const table::Dataset& dataset) {
  const io::IoCounters c = dataset.store()->stats().Snapshot();
  const std::string line = "{\"requests\":" + std::to_string(c.read_requests) +
                           ",\"bytes\":" + std::to_string(c.read_bytes) +
                           ",\"logical_ranges\":" + std::to_string(c.logical_ranges) + "}\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace lancet::cli
