// Output names for extracted frames: "frames/%04d.png" formatted with the frame index.
#pragma once

#include <cstdint>
#include <string>

#include "lancet/result.h"

namespace lancet::cli {

/// \brief Whether `pattern` holds one integer conversion (%d, %u or %i with optional
/// '0' flag and width, e.g. %04d; "%%" is a literal '%').
///
/// InvalidArgument for any other conversion, a second one, or a width above 20: the
/// pattern is parsed here, never handed to printf.
Result<bool> HasFramePattern(const std::string& pattern);

/// `pattern` with its conversion replaced by `index` ("%%" becomes "%"). REQUIRES:
/// HasFramePattern(pattern) is OK.
std::string FormatFramePath(const std::string& pattern, uint64_t index);

}  // namespace lancet::cli
