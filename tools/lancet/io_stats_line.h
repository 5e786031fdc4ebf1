// --io-stats: what a command read, as one JSON line on stderr.
#pragma once

#include <CLI/CLI.hpp>

#include "lancet/table/dataset.h"

namespace lancet::cli {

/// Adds --io-stats to `app`, setting `*on`.
void AddIoStatsFlag(CLI::App& app, bool* on);

/// Writes {"requests":N,"bytes":N,"logical_ranges":N} to stderr: every read of
/// `dataset`'s store since it was opened (the manifest included).
void PrintIoStats(const table::Dataset& dataset);

}  // namespace lancet::cli
