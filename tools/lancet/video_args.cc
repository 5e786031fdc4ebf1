#include "lancet/video_args.h"

#include <charconv>
#include <cmath>

namespace lancet::cli {

Result<double> ParseSeconds(const std::string& text, const std::string& what) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v < 0) {
    return Status::InvalidArgument(what + " '" + text + "' is not a time in seconds (e.g. 1.5)");
  }
  return v;
}

Result<std::pair<double, double>> ParseWindow(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return Status::InvalidArgument("--window '" + text + "' is not T0:T1 (seconds)");
  ASSIGN_OR_RETURN(double t0, ParseSeconds(text.substr(0, colon), "--window start"));
  ASSIGN_OR_RETURN(double t1, ParseSeconds(text.substr(colon + 1), "--window end"));
  if (t1 <= t0) return Status::InvalidArgument("--window '" + text + "' does not end after it starts");
  return std::make_pair(t0, t1);
}

}  // namespace lancet::cli
