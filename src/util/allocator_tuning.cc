#include "util/allocator_tuning.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lancet {

void TuneAllocatorOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* opt = std::getenv("LANCET_MALLOC_TUNING");
    if (opt != nullptr && std::strcmp(opt, "0") == 0) return;
#if defined(__GLIBC__)
    // Setting one threshold stops glibc adjusting the other, so both are set: the mmap
    // threshold to the largest value glibc's own adjustment would reach.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  });
}

}  // namespace lancet
