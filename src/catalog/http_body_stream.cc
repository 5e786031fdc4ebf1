#include "catalog/http_body_stream.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "lancet/buffer.h"

namespace lancet::catalog::internal {
namespace {

// Bytes the transfer may run ahead of the reader before it waits.
constexpr size_t kMaxQueued = size_t{4} << 20;

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> chunks;
  size_t queued = 0;
  bool got_body = false;   // the first 2xx body byte arrived
  bool done = false;       // Send returned; `response` is final
  bool cancelled = false;  // the reader is gone
  io::HttpResponse response;
};

class BodyStream : public io::InputStream {
 public:
  BodyStream(std::shared_ptr<Shared> shared, std::thread worker, std::string name)
      : shared_(std::move(shared)), worker_(std::move(worker)), name_(std::move(name)) {}
  ~BodyStream() override {
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->cancelled = true;
    }
    shared_->cv.notify_all();
    worker_.join();
  }
  const std::string& name() const override { return name_; }

  Result<BufferPtr> Read(uint64_t n) override {
    std::string out;
    std::unique_lock<std::mutex> lock(shared_->mu);
    while (out.size() < n) {
      shared_->cv.wait(lock, [&] { return !shared_->chunks.empty() || shared_->done; });
      if (shared_->chunks.empty()) break;  // done
      std::string& front = shared_->chunks.front();
      const size_t take = std::min<uint64_t>(n - out.size(), front.size() - offset_);
      out.append(front, offset_, take);
      offset_ += take;
      if (offset_ == front.size()) {
        shared_->queued -= front.size();
        shared_->chunks.pop_front();
        offset_ = 0;
        shared_->cv.notify_all();
      }
    }
    if (out.size() < n && shared_->done && shared_->response.status == 0) {
      return Status::IOError(name_ + ": the answer broke off: " + shared_->response.error);
    }
    return BufferPtr(Buffer::Copy(std::string_view(out)));
  }

 private:
  std::shared_ptr<Shared> shared_;
  std::thread worker_;
  std::string name_;
  size_t offset_ = 0;  // into chunks.front()
};

}  // namespace

Result<HttpBodyStream> OpenHttpBodyStream(std::shared_ptr<const io::HttpClient> client, io::HttpRequest request,
                                          std::string name) {
  auto shared = std::make_shared<Shared>();
  request.on_body = [shared](std::string_view chunk) {
    std::unique_lock<std::mutex> lock(shared->mu);
    shared->cv.wait(lock, [&] { return shared->queued < kMaxQueued || shared->cancelled; });
    if (shared->cancelled) return false;
    shared->chunks.emplace_back(chunk);
    shared->queued += chunk.size();
    shared->got_body = true;
    shared->cv.notify_all();
    return true;
  };
  std::thread worker([shared, client, request = std::move(request)] {
    io::HttpResponse response = client->Send(request);
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->response = std::move(response);
    shared->done = true;
    shared->cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(shared->mu);
    shared->cv.wait(lock, [&] { return shared->got_body || shared->done; });
    if (!shared->got_body) {
      lock.unlock();
      worker.join();
      if (shared->response.status == 0) return Status::IOError(name + ": " + shared->response.error);
      if (shared->response.status < 200 || shared->response.status >= 300) {
        return HttpBodyStream{nullptr, std::move(shared->response)};
      }
      // A 2xx answer with an empty body.
      return HttpBodyStream{io::InputStreamFromBuffer(Buffer::Empty(), name), {}};
    }
  }
  return HttpBodyStream{std::make_unique<BodyStream>(shared, std::move(worker), std::move(name)), {}};
}

}  // namespace lancet::catalog::internal
