// An in-memory object store for tests: a map of path → immutable buffer.
#include <map>
#include <mutex>

#include "lancet/io/object_store.h"

namespace lancet::io {
namespace {

class MemoryFile final : public RandomAccessFile {
 public:
  MemoryFile(std::string path, BufferPtr data, std::shared_ptr<IoStats> stats)
      : path_(std::move(path)), data_(std::move(data)), stats_(std::move(stats)) {}
  const std::string& path() const override { return path_; }
  Result<uint64_t> Size() const override { return data_->size(); }
  IoStats* stats() const override { return stats_.get(); }
  bool cheap_reads() const override { return true; }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    if (offset > data_->size() || length > data_->size() - offset) {
      return Status::IOError(path_ + ": read of [" + std::to_string(offset) + ", " +
                             std::to_string(offset + length) + ") is past the end of the object (" +
                             std::to_string(data_->size()) + " bytes)");
    }
    stats_->RecordRead(length);
    return BufferPtr(Buffer::Slice(data_, offset, length));
  }

 private:
  std::string path_;
  BufferPtr data_;
  std::shared_ptr<IoStats> stats_;
};

std::string Normalize(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

class MemoryStore final : public ObjectStore {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(Normalize(path));
    if (it == objects_.end()) return Status::NotFound(path + ": no such object");
    return std::unique_ptr<RandomAccessFile>(std::make_unique<MemoryFile>(path, it->second, stats_));
  }
  Result<uint64_t> Size(const std::string& path) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(Normalize(path));
    if (it == objects_.end()) return Status::NotFound(path + ": no such object");
    return it->second->size();
  }
  Result<bool> Exists(const std::string& path) const override {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_.count(Normalize(path)) > 0;
  }
  Result<std::vector<ObjectInfo>> List(const std::string& dir) const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string prefix = Normalize(dir) + "/";
    std::vector<ObjectInfo> out;
    std::string last_dir;
    for (auto it = objects_.lower_bound(prefix); it != objects_.end(); ++it) {
      if (it->first.compare(0, prefix.size(), prefix) != 0) break;
      std::string rest = it->first.substr(prefix.size());
      auto slash = rest.find('/');
      if (slash == std::string::npos) {
        out.push_back({rest, it->second->size(), false, std::nullopt});
      } else if (rest.substr(0, slash) != last_dir) {
        last_dir = rest.substr(0, slash);
        out.push_back({last_dir, 0, true, std::nullopt});
      }
    }
    if (out.empty()) return Status::NotFound(dir + ": no such directory");
    return out;
  }
  Status Put(const std::string& path, std::span<const uint8_t> bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    objects_[Normalize(path)] = Buffer::Copy(bytes);
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = objects_.emplace(Normalize(path), nullptr);
    if (!inserted) return Status::AlreadyExists(path + ": already exists");
    it->second = Buffer::Copy(bytes);
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }
  Status Delete(const std::string& path) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (objects_.erase(Normalize(path)) == 0) return Status::NotFound(path + ": no such object");
    return Status::OK();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, BufferPtr> objects_;
};

}  // namespace

std::shared_ptr<ObjectStore> NewMemoryStore() { return std::make_shared<MemoryStore>(); }

}  // namespace lancet::io
