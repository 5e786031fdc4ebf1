#include "catalog/byte_pipe.h"

#include <algorithm>

#include "lancet/buffer.h"

namespace lancet::catalog::internal {

class PipeReader : public io::InputStream {
 public:
  PipeReader(std::shared_ptr<BytePipe> pipe, std::string name) : pipe_(std::move(pipe)), name_(std::move(name)) {}
  ~PipeReader() override {
    {
      std::lock_guard<std::mutex> lock(pipe_->mu_);
      pipe_->reader_gone_ = true;
    }
    pipe_->cv_.notify_all();
  }
  const std::string& name() const override { return name_; }

  Result<BufferPtr> Read(uint64_t n) override {
    BytePipe& p = *pipe_;
    std::string out;
    std::unique_lock<std::mutex> lock(p.mu_);
    while (out.size() < n) {
      p.cv_.wait(lock, [&] { return !p.chunks_.empty() || p.closed_; });
      if (p.chunks_.empty()) {
        if (!p.error_.ok()) return Status::IOError(name_ + ": " + p.error_.message());
        break;
      }
      std::string& front = p.chunks_.front();
      const size_t take = std::min<uint64_t>(n - out.size(), front.size() - p.front_offset_);
      out.append(front, p.front_offset_, take);
      p.front_offset_ += take;
      if (p.front_offset_ == front.size()) {
        p.queued_ -= front.size();
        p.chunks_.pop_front();
        p.front_offset_ = 0;
        p.cv_.notify_all();
      }
    }
    return BufferPtr(Buffer::Copy(std::string_view(out)));
  }

 private:
  std::shared_ptr<BytePipe> pipe_;
  std::string name_;
};

bool BytePipe::Write(std::string_view bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return queued_ < capacity_ || reader_gone_; });
  if (reader_gone_) return false;
  chunks_.emplace_back(bytes);
  queued_ += bytes.size();
  cv_.notify_all();
  return true;
}

void BytePipe::Close(Status error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    error_ = std::move(error);
  }
  cv_.notify_all();
}

bool BytePipe::WaitForData() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !chunks_.empty() || closed_; });
  return !chunks_.empty();
}

std::unique_ptr<io::InputStream> BytePipe::Reader(std::string name) {
  return std::make_unique<PipeReader>(shared_from_this(), std::move(name));
}

}  // namespace lancet::catalog::internal
