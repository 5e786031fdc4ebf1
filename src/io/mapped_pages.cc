#include "io/mapped_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <vector>

#include "util/per_process.h"

namespace lancet::io {
namespace {

struct Released {
  std::weak_ptr<Mapping> mapping;  // a mapping gone has taken its pages with it
  uintptr_t begin = 0, end = 0;
};

class ResidentPages {
 public:
  explicit ResidentPages(uint64_t budget) : pid_(static_cast<int>(::getpid())), budget_(budget) {}
  int pid() const { return pid_; }

  void Add(Released r) {
    std::vector<Released> advise;
    {
      std::lock_guard<std::mutex> lock(mu_);
      bytes_ += r.end - r.begin;
      queue_.push_back(std::move(r));
      while (bytes_ > budget_ && !queue_.empty()) {
        bytes_ -= queue_.front().end - queue_.front().begin;
        advise.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    // Outside the lock: an madvise flushes other cores' TLBs and may take a while.
    for (const Released& x : advise) {
      if (auto alive = x.mapping.lock()) ::madvise(reinterpret_cast<void*>(x.begin), x.end - x.begin, MADV_DONTNEED);
    }
  }

 private:
  const int pid_;
  const uint64_t budget_;
  std::mutex mu_;
  std::deque<Released> queue_;
  uint64_t bytes_ = 0;
};

// Per process, as the thread pools: a fork may have left the parent's locked.
ResidentPages& PagesOfThisProcess() {
  static std::atomic<ResidentPages*> slot{nullptr};
  return OfThisProcess(
      slot, [] { return new ResidentPages(MappedResidentBudget()); }, [](const ResidentPages& p) { return p.pid(); });
}

}  // namespace

Mapping::~Mapping() {
  if (base != nullptr) ::munmap(base, size);
}

uint64_t MappedResidentBudget() {
  static const uint64_t budget = [] {
    const char* text = std::getenv("LANCET_MAPPED_RESIDENT_MIB");
    char* end = nullptr;
    const unsigned long long mib = text != nullptr ? std::strtoull(text, &end, 10) : 0;
    if (text == nullptr || end == text || *end != 0 || mib > (1ull << 30)) return uint64_t{256} << 20;
    return static_cast<uint64_t>(mib) << 20;
  }();
  return budget;
}

void ReleaseMappedRange(const std::shared_ptr<Mapping>& mapping, const uint8_t* data, uint64_t size) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) & ~(page - 1);
  if (end > begin) PagesOfThisProcess().Add({mapping, begin, end});
}

}  // namespace lancet::io
