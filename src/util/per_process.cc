#include "util/per_process.h"

#include <pthread.h>
#include <unistd.h>

namespace lancet {
namespace {

std::atomic<int> cached_pid{0};

void RefreshInChild() { cached_pid.store(static_cast<int>(::getpid()), std::memory_order_relaxed); }

}  // namespace

int ThisPid() {
  // Registered before the first pid is handed out, so no fork after it goes unseen.
  static const bool registered = [] {
    ::pthread_atfork(nullptr, nullptr, &RefreshInChild);
    RefreshInChild();
    return true;
  }();
  (void)registered;
  return cached_pid.load(std::memory_order_relaxed);
}

}  // namespace lancet
