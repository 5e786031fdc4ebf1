#include "io/mapped_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "util/per_process.h"

namespace lancet::io {
namespace {

// Released ranges are tracked per block of a mapping, least recently released first. A
// range released again (the same pages read by the next scan of a hot table) moves its
// blocks to the back instead of queueing a second copy: with a plain FIFO the older copy
// would advise away pages the newer read had just faulted in, and every madvise stops the
// other cores for a TLB flush.
constexpr uintptr_t kBlock = uintptr_t{1} << 20;

struct BlockKey {
  const Mapping* mapping;
  uintptr_t block;
  bool operator==(const BlockKey&) const = default;
};

struct BlockKeyHash {
  size_t operator()(const BlockKey& k) const {
    return std::hash<uintptr_t>()(k.block * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uintptr_t>(k.mapping));
  }
};

struct Resident {
  std::weak_ptr<Mapping> mapping;  // a mapping gone has taken its pages with it
  BlockKey key;
  uintptr_t begin = 0, end = 0;  // the hull of the block's released pages
};

class ResidentPages {
 public:
  explicit ResidentPages(uint64_t budget) : pid_(ThisPid()), budget_(budget) {}
  int pid() const { return pid_; }

  void Add(const std::shared_ptr<Mapping>& mapping, uintptr_t begin, uintptr_t end) {
    std::vector<Resident> advise;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (uintptr_t lo = begin; lo < end;) {
        const uintptr_t hi = std::min(end, (lo / kBlock + 1) * kBlock);
        Touch(mapping, lo, hi);
        lo = hi;
      }
      while (bytes_ > budget_ && !lru_.empty()) {
        bytes_ -= lru_.front().end - lru_.front().begin;
        index_.erase(lru_.front().key);
        advise.push_back(std::move(lru_.front()));
        lru_.pop_front();
      }
    }
    // Outside the lock: an madvise flushes other cores' TLBs and may take a while.
    // Neighbouring blocks of one mapping leave in one call.
    for (size_t i = 0; i < advise.size();) {
      size_t j = i + 1;
      uintptr_t end_of_run = advise[i].end;
      while (j < advise.size() && advise[j].key.mapping == advise[i].key.mapping && advise[j].begin == end_of_run) {
        end_of_run = advise[j++].end;
      }
      if (auto alive = advise[i].mapping.lock()) {
        ::madvise(reinterpret_cast<void*>(advise[i].begin), end_of_run - advise[i].begin, MADV_DONTNEED);
      }
      i = j;
    }
  }

 private:
  void Touch(const std::shared_ptr<Mapping>& mapping, uintptr_t lo, uintptr_t hi) {
    const BlockKey key{mapping.get(), lo / kBlock};
    auto it = index_.find(key);
    if (it != index_.end()) {
      Resident& r = *it->second;
      // Same address, other mapping: the old one was unmapped and its pages went with it.
      const bool same = !r.mapping.owner_before(mapping) && !mapping.owner_before(r.mapping);
      bytes_ -= r.end - r.begin;
      if (same) {
        lo = std::min(lo, r.begin);
        hi = std::max(hi, r.end);
      }
      lru_.erase(it->second);
      index_.erase(it);
    }
    lru_.push_back(Resident{mapping, key, lo, hi});
    index_.emplace(key, std::prev(lru_.end()));
    bytes_ += hi - lo;
  }

  const int pid_;
  const uint64_t budget_;
  std::mutex mu_;
  std::list<Resident> lru_;
  std::unordered_map<BlockKey, std::list<Resident>::iterator, BlockKeyHash> index_;
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
  if (end > begin) PagesOfThisProcess().Add(mapping, begin, end);
}

}  // namespace lancet::io
