// Putting a local dataset on S3 for a benchmark and removing it afterwards, so Lancet and
// the reference read the same bytes from both stores. Shared by the bench/ programs.
#pragma once

#include <algorithm>
#include <string>

#include "bench_check.h"
#include "lancet/io/object_store.h"
#include "lancet/io/uri.h"

namespace lancet::bench {

/// Copies every file under local directory `src` to `dst` in `store` (an S3 key prefix),
/// streaming 8 MiB at a time so a large sidecar never sits in memory. Returns the bytes.
inline uint64_t CopyTree(const std::string& src, io::ObjectStore& store, const std::string& dst) {
  auto local = io::LocalFileSystem(/*map_reads=*/false);
  uint64_t copied = 0;
  for (const io::ObjectInfo& e : Check(local->List(src), "list " + src)) {
    const std::string from = src + "/" + e.path, to = dst + "/" + e.path;
    if (e.is_dir) {
      copied += CopyTree(from, store, to);
      continue;
    }
    auto in = Check(local->OpenRead(from), "open " + from);
    auto out = Check(store.OpenWrite(to), "write " + to);
    constexpr uint64_t kChunk = 8ULL << 20;
    for (uint64_t done = 0; done < e.size;) {
      const uint64_t n = std::min(kChunk, e.size - done);
      BufferPtr chunk = Check(in->ReadAt(done, n), "read " + from);
      Status st = out->Append(chunk->span());
      if (!st.ok()) Die("write " + to + ": " + st.ToString());
      done += n;
    }
    Status st = out->Close();
    if (!st.ok()) Die("close " + to + ": " + st.ToString());
    copied += e.size;
  }
  return copied;
}

/// Deletes every object under `dir` in `store`; a missing directory is no error.
inline void RemoveTree(io::ObjectStore& store, const std::string& dir) {
  auto list = store.List(dir);
  if (!list.ok()) return;
  for (const io::ObjectInfo& e : *list) {
    const std::string p = dir + "/" + e.path;
    if (e.is_dir) {
      RemoveTree(store, p);
    } else {
      (void)store.Delete(p);
    }
  }
}

}  // namespace lancet::bench
