#include "table/blob_read.h"

#include "util/thread_pool.h"

namespace lancet::table {
namespace {

// Opens and reads of different objects are latency-bound on remote stores, so a few
// run at once.
constexpr size_t kParallelObjects = 8;

std::string OffsetRangeText(uint64_t offset, uint64_t length) {
  return "[" + std::to_string(offset) + ", " + std::to_string(offset) + "+" + std::to_string(length) + ")";
}

}  // namespace

std::shared_ptr<io::RandomAccessFile> OpenedObjects::Find(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : it->second;
}

void OpenedObjects::Put(const std::string& path, std::shared_ptr<io::RandomAccessFile> file) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capacity_ == 0 || !files_.emplace(path, std::move(file)).second) return;
  order_.push_back(path);
  while (order_.size() > capacity_) {
    files_.erase(order_.front());
    order_.pop_front();
  }
}

Result<std::vector<std::optional<BlobLocation>>> FinalizeBlobLocations(
    const ExternalStores& stores, std::span<const std::optional<ResolvedBlob>> resolved, const std::string& context,
    BlobObjects* objects, OpenedObjects* cache) {
  std::vector<std::string> paths;
  std::vector<bool> cacheable;
  std::map<std::string, uint64_t> object_size;
  for (const auto& r : resolved) {
    if (!r || (r->length == 0 && !r->to_end) || objects->count(r->object)) continue;
    const bool own = cache != nullptr && r->kind != BlobKind::kExternal;
    if (own) {
      if (auto file = cache->Find(r->object)) {
        ASSIGN_OR_RETURN(object_size[r->object], file->Size());
        (*objects)[r->object] = std::move(file);
        continue;
      }
    }
    (*objects)[r->object] = nullptr;
    paths.push_back(r->object);
    cacheable.push_back(own);
  }
  std::vector<Result<std::unique_ptr<io::RandomAccessFile>>> opened;
  opened.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) opened.emplace_back(Status::Internal("not opened"));
  std::vector<Result<uint64_t>> sizes(paths.size(), Status::Internal("not sized"));
  ParallelFor(ThreadPool::Io(), paths.size(), kParallelObjects, [&](size_t i) {
    opened[i] = stores.OpenRead(paths[i]);
    if (opened[i].ok()) sizes[i] = (*opened[i])->Size();
  });
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!opened[i].ok()) return opened[i].status().WithContext(context);
    ASSIGN_OR_RETURN(object_size[paths[i]], std::move(sizes[i]));
    std::shared_ptr<io::RandomAccessFile> file = opened[i].MoveValue();
    if (cacheable[i]) cache->Put(paths[i], file);
    (*objects)[paths[i]] = std::move(file);
  }

  std::vector<std::optional<BlobLocation>> out(resolved.size());
  for (size_t i = 0; i < resolved.size(); ++i) {
    if (!resolved[i]) continue;
    const ResolvedBlob& r = *resolved[i];
    BlobLocation& loc = out[i].emplace();
    loc.kind = r.kind;
    loc.object = r.object;
    loc.offset = r.offset;
    loc.length = r.length;
    if (r.length == 0 && !r.to_end) continue;
    uint64_t size = object_size.at(r.object);
    if (r.to_end) {
      // An external descriptor of size 0 names everything from `position` on.
      if (r.offset > size) {
        return Status::Corruption(r.object + ": external blob starts at " + std::to_string(r.offset) +
                                  ", past the end of the " + std::to_string(size) + "-byte object");
      }
      loc.length = size - r.offset;
    }
    if (loc.offset > size || loc.length > size - loc.offset) {
      return Status::Corruption(r.object + ": blob descriptor range " + OffsetRangeText(loc.offset, loc.length) +
                                " is past the end of the " + std::to_string(size) + "-byte object");
    }
  }
  return out;
}

Result<std::vector<std::optional<BufferPtr>>> ReadBlobLocations(std::span<const std::optional<BlobLocation>> locations,
                                                                const BlobObjects& objects) {
  std::vector<std::optional<BufferPtr>> out(locations.size());
  struct ObjectReads {
    const io::RandomAccessFile* file = nullptr;
    std::vector<io::ByteRange> ranges;
    std::vector<size_t> outputs;
  };
  std::map<std::string, ObjectReads> by_object;
  for (size_t i = 0; i < locations.size(); ++i) {
    if (!locations[i]) continue;
    const BlobLocation& loc = *locations[i];
    if (loc.length == 0) {
      out[i] = BufferPtr(Buffer::Empty());
      continue;
    }
    ObjectReads& reads = by_object[loc.object];
    if (reads.file == nullptr) {
      auto it = objects.find(loc.object);
      if (it == objects.end() || !it->second) return Status::Internal(loc.object + ": blob object was not opened");
      reads.file = it->second.get();
    }
    reads.ranges.push_back({loc.offset, loc.length});
    reads.outputs.push_back(i);
  }
  std::vector<ObjectReads*> work;
  bool cheap = true;
  for (auto& [path, reads] : by_object) {
    work.push_back(&reads);
    cheap = cheap && reads.file->cheap_reads();
  }
  std::vector<Status> statuses(work.size());
  ParallelFor(ThreadPool::Io(), work.size(), cheap ? 1 : kParallelObjects, [&](size_t w) {
    ObjectReads& reads = *work[w];
    auto bufs = reads.file->ReadMany(reads.ranges);
    if (!bufs.ok()) {
      statuses[w] = bufs.status();
      return;
    }
    // Each task writes only its own output slots.
    for (size_t k = 0; k < reads.outputs.size(); ++k) out[reads.outputs[k]] = std::move((*bufs)[k]);
  });
  for (const Status& st : statuses) RETURN_IF_ERROR(st);
  return out;
}

}  // namespace lancet::table
