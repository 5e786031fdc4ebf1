#include "catalog/http_body_stream.h"

#include <thread>

#include "catalog/byte_pipe.h"
#include "lancet/buffer.h"

namespace lancet::catalog::internal {
namespace {

// The reader of the pipe, owning the transfer's thread: destroying it stops the transfer
// (the pipe refuses further bytes) and waits for the thread.
class TransferStream : public io::InputStream {
 public:
  TransferStream(std::unique_ptr<io::InputStream> pipe_reader, std::thread worker)
      : reader_(std::move(pipe_reader)), worker_(std::move(worker)) {}
  ~TransferStream() override {
    reader_.reset();
    worker_.join();
  }
  const std::string& name() const override { return reader_->name(); }
  Result<BufferPtr> Read(uint64_t n) override { return reader_->Read(n); }

 private:
  std::unique_ptr<io::InputStream> reader_;
  std::thread worker_;
};

}  // namespace

Result<HttpBodyStream> OpenHttpBodyStream(std::shared_ptr<const io::HttpClient> client, io::HttpRequest request,
                                          std::string name) {
  auto pipe = std::make_shared<BytePipe>();
  request.on_body = [pipe](std::string_view chunk) { return pipe->Write(chunk); };
  auto response = std::make_shared<io::HttpResponse>();
  std::thread worker([pipe, client, response, request = std::move(request)] {
    *response = client->Send(request);
    // A transfer that failed after its body began is an error where the bytes stop.
    pipe->Close(response->status == 0 ? Status::IOError("the answer broke off: " + response->error) : Status::OK());
  });
  // The status is known once body bytes arrive (only a 2xx body enters the pipe) or the
  // transfer ended.
  if (!pipe->WaitForData()) {
    worker.join();
    if (response->status == 0) return Status::IOError(name + ": " + response->error);
    if (response->status < 200 || response->status >= 300) return HttpBodyStream{nullptr, std::move(*response)};
    return HttpBodyStream{io::InputStreamFromBuffer(Buffer::Empty(), name), {}};
  }
  return HttpBodyStream{std::make_unique<TransferStream>(pipe->Reader(name), std::move(worker)), {}};
}

}  // namespace lancet::catalog::internal
