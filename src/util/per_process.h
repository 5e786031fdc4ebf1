// Process-wide singletons that survive fork(): a child made by fork() (Python's
// multiprocessing, PyTorch's DataLoader workers) gets its own on first use, since the
// parent's may be locked by, or wait on, threads the child does not have.
#pragma once

#include <atomic>

namespace lancet {

/// This process's pid, cached and refreshed in a fork's child: getpid() is a system call
/// (glibc stopped caching it), and the singletons below are looked up on every read.
int ThisPid();

/// The object in `slot` if this process made it, else a fresh one from `make()`.
/// `pid_of(obj)` is the pid of the process that made `obj`. Objects are never
/// destroyed: one a fork left behind may be unusable, and the current one may still be
/// used by threads that outlive static destruction.
template <typename T, typename Make, typename PidOf>
T& OfThisProcess(std::atomic<T*>& slot, Make make, PidOf pid_of) {
  const int me = ThisPid();
  T* obj = slot.load(std::memory_order_acquire);
  while (obj == nullptr || pid_of(*obj) != me) {
    T* fresh = make();
    if (slot.compare_exchange_strong(obj, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;  // another thread of this process made one first; `obj` is now it
  }
  return *obj;
}

}  // namespace lancet
