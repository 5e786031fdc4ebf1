// Ending a benchmark on an error: a benchmark has nothing to recover, so it prints
// "<program>: <what>: <status>" and exits 2. Shared by the bench/ programs.
#pragma once

#include <errno.h>  // program_invocation_short_name (glibc)

#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>

#include "lancet/result.h"

namespace lancet::bench {

[[noreturn]] inline void Die(const std::string& msg) {
  std::cerr << program_invocation_short_name << ": " << msg << "\n";
  std::exit(2);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(*r);
}

}  // namespace lancet::bench
