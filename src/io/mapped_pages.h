// Keeps what the reads of mapped files leave resident in the process within a budget.
//
// Pages a process touched through a mapping count in its RSS until they are unmapped or
// advised away, and a dataset keeps its files mapped: a scan of 10 GB would show 10 GB
// resident although the kernel may drop those pages at will. Large reads report their
// pages here when their buffer is released; past the budget the least recently released
// leave the process (MADV_DONTNEED; they stay in the page cache). Below it they stay
// mapped, so scanning the same data again costs no page faults.
#pragma once

#include <cstdint>
#include <memory>

namespace lancet::io {

/// A read-only shared mapping of a whole file.
struct Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping();
};

/// Bytes of released reads left resident before the oldest are advised away: 256 MiB, or
/// LANCET_MAPPED_RESIDENT_MIB (read once per process; 0 advises every release at once).
uint64_t MappedResidentBudget();

/// Records that the pages wholly inside [data, data + size) of `mapping` are no longer
/// needed by the read that touched them. Another live buffer sharing such a page stays
/// correct when it is advised away: the files are immutable and an access faults the
/// same bytes back in. Thread-safe; per process (a forked child starts empty).
void ReleaseMappedRange(const std::shared_ptr<Mapping>& mapping, const uint8_t* data, uint64_t size);

}  // namespace lancet::io
