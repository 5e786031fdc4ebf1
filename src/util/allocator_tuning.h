// How Lancet asks glibc's malloc to keep memory it will reuse. Internal to the library.
#pragma once

namespace lancet {

/// Once per process, unless LANCET_MALLOC_TUNING=0 (or malloc is not glibc's): serves
/// blocks below 32 MiB from the heap (not fresh mmaps) and returns the heap's free top
/// to the kernel only past 64 MiB. Scans and takes allocate and free batch-sized
/// buffers at a high rate; with glibc's defaults the heap top is handed back after each
/// batch and faulted in again by the next, which cost a full scan about a third of its
/// time. Peak memory is unchanged: what stays mapped was in use a moment before.
void TuneAllocatorOnce();

}  // namespace lancet
