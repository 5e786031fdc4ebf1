// Latency quantiles and the reference's JSON lines (bench.mjs output), shared by the
// search benchmarks.
#pragma once

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lancet::bench {

/// The q-quantile (0..1) of `v` by rank; 0 for no samples.
inline double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

/// The last line of `path` (one JSON object per line) with "op" equal to `op` that `keep`
/// accepts; nullopt without `path` or such a line.
inline std::optional<nlohmann::json> LastJsonLine(const std::string& path, const std::string& op,
                                                  const std::function<bool(const nlohmann::json&)>& keep = {}) {
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  std::optional<nlohmann::json> found;
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("op", "") != op || (keep && !keep(j))) continue;
    found = j;
  }
  return found;
}

}  // namespace lancet::bench
