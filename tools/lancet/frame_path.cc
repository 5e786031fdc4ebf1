#include "lancet/frame_path.h"

namespace lancet::cli {
namespace {

// One scan of the pattern: literal text, and where the conversion sits with its width.
struct Parsed {
  std::string before, after;
  bool conversion = false;
  bool zero = false;
  int width = 0;
};

Result<Parsed> Parse(const std::string& p) {
  Parsed out;
  for (size_t i = 0; i < p.size(); ++i) {
    std::string& text = out.conversion ? out.after : out.before;
    if (p[i] != '%') {
      text += p[i];
      continue;
    }
    if (i + 1 < p.size() && p[i + 1] == '%') {
      text += '%';
      ++i;
      continue;
    }
    if (out.conversion) return Status::InvalidArgument("--out '" + p + "' has more than one % conversion");
    size_t j = i + 1;
    if (j < p.size() && p[j] == '0') {
      out.zero = true;
      ++j;
    }
    while (j < p.size() && p[j] >= '0' && p[j] <= '9') {
      out.width = out.width * 10 + (p[j] - '0');
      if (out.width > 20) return Status::InvalidArgument("--out '" + p + "': field width above 20");
      ++j;
    }
    if (j >= p.size() || (p[j] != 'd' && p[j] != 'u' && p[j] != 'i')) {
      return Status::InvalidArgument("--out '" + p + "': only an integer conversion such as %04d is allowed (%% for a '%')");
    }
    out.conversion = true;
    i = j;
  }
  return out;
}

}  // namespace

Result<bool> HasFramePattern(const std::string& pattern) {
  ASSIGN_OR_RETURN(Parsed parsed, Parse(pattern));
  return parsed.conversion;
}

std::string FormatFramePath(const std::string& pattern, uint64_t index) {
  auto parsed = Parse(pattern);
  if (!parsed.ok()) return pattern;
  if (!parsed->conversion) return parsed->before;
  std::string digits = std::to_string(index);
  if (static_cast<int>(digits.size()) < parsed->width) {
    digits.insert(0, static_cast<size_t>(parsed->width) - digits.size(), parsed->zero ? '0' : ' ');
  }
  return parsed->before + digits + parsed->after;
}

}  // namespace lancet::cli
