// The defaults of ObjectStore's optional calls: OpenWrite for stores without streaming
// writes, DeleteMany for stores without batch deletes, no pending uploads.
#include <vector>

#include "lancet/io/object_store.h"

namespace lancet::io {

namespace {

class BufferedObjectWriter final : public ObjectWriter {
 public:
  BufferedObjectWriter(ObjectStore* store, std::string path) : store_(store), path_(std::move(path)) {}
  Status Append(std::span<const uint8_t> bytes) override {
    if (closed_) return Status::IOError(path_ + ": write after close");
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::IOError(path_ + ": closed twice");
    closed_ = true;
    return store_->Put(path_, bytes_);
  }

 private:
  ObjectStore* store_;
  std::string path_;
  std::vector<uint8_t> bytes_;
  bool closed_ = false;
};

}  // namespace

Result<std::unique_ptr<ObjectWriter>> ObjectStore::OpenWrite(const std::string& path) {
  return std::unique_ptr<ObjectWriter>(std::make_unique<BufferedObjectWriter>(this, path));
}

Result<std::vector<bool>> ObjectStore::DeleteMany(const std::vector<std::string>& paths) {
  std::vector<bool> removed;
  removed.reserve(paths.size());
  for (const std::string& p : paths) {
    Status st = Delete(p);
    if (!st.ok() && !st.IsNotFound()) return st;
    removed.push_back(st.ok());
  }
  return removed;
}

Result<std::vector<PendingUpload>> ObjectStore::ListUploads(const std::string& dir) const {
  return std::vector<PendingUpload>{};
}

Status ObjectStore::AbortUpload(const PendingUpload& upload) {
  return Status::NotFound(upload.path + ": no pending upload " + upload.id);
}

}  // namespace lancet::io
