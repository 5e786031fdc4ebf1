#include "io/s3_writer.h"

#include <vector>

#include "io/s3_xml.h"

namespace lancet::io::s3 {
namespace {

class S3Writer final : public ObjectWriter {
 public:
  S3Writer(std::shared_ptr<const S3Client> client, std::string key, std::shared_ptr<IoStats> stats)
      : client_(std::move(client)), key_(std::move(key)), stats_(std::move(stats)) {}
  ~S3Writer() override {
    if (!upload_id_.empty()) Abort();
  }

  Status Append(std::span<const uint8_t> bytes) override {
    if (closed_) return Status::IOError(client_->Uri(key_) + ": write after close");
    const size_t part = client_->options().part_size;
    while (!bytes.empty()) {
      size_t take = std::min(bytes.size(), part - buffer_.size());
      buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
      bytes = bytes.subspan(take);
      if (buffer_.size() == part) {
        Status st = FlushPart();
        if (!st.ok()) return Fail(st);
      }
    }
    return Status::OK();
  }

  Status Close() override {
    if (closed_) return Status::IOError(client_->Uri(key_) + ": closed twice");
    closed_ = true;
    if (upload_id_.empty()) {
      // Small object: one plain PUT.
      S3Request req{"PUT", key_, {}, {}, buffer_, {}};
      ASSIGN_OR_RETURN(HttpResponse r, client_->Send(req));
      if (r.status != 200) return client_->ErrorFor(r, "PUT", key_);
      stats_->RecordWrite(buffer_.size());
      return Status::OK();
    }
    if (!buffer_.empty()) {
      Status st = FlushPart();
      if (!st.ok()) return Fail(st);
    }
    std::string xml = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + XmlEscape(etags_[i]) +
             "</ETag></Part>";
    }
    xml += "</CompleteMultipartUpload>";
    S3Request req{"POST", key_, {{"uploadId", upload_id_}}, {}, AsBytes(xml), {}, "CompleteMultipartUploadResult"};
    auto r = client_->Send(req);
    if (!r.ok()) return Fail(r.status());
    // S3 may report a failed completion inside a 200 response.
    if (r->status != 200 || r->body.find("<Error>") != std::string::npos) {
      return Fail(client_->ErrorFor(*r, "CompleteMultipartUpload", key_));
    }
    upload_id_.clear();
    stats_->RecordWrite(written_);
    return Status::OK();
  }

 private:
  static std::span<const uint8_t> AsBytes(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
  }

  Status FlushPart() {
    if (upload_id_.empty()) {
      S3Request req{"POST", key_, {{"uploads", ""}}, {}, {}, {}, "InitiateMultipartUploadResult"};
      ASSIGN_OR_RETURN(HttpResponse r, client_->Send(req));
      if (r.status != 200) return client_->ErrorFor(r, "CreateMultipartUpload", key_);
      auto id = XmlText(r.body, "UploadId");
      if (!id || id->empty()) return Status::IOError(client_->Uri(key_) + ": CreateMultipartUpload gave no UploadId");
      upload_id_ = *id;
    }
    const std::string number = std::to_string(etags_.size() + 1);
    S3Request req{"PUT", key_, {{"partNumber", number}, {"uploadId", upload_id_}}, {}, buffer_, {}};
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(req));
    if (r.status != 200) return client_->ErrorFor(r, "UploadPart " + number, key_);
    std::string etag = r.Header("etag");
    if (etag.empty()) return Status::IOError(client_->Uri(key_) + ": UploadPart " + number + " gave no ETag");
    etags_.push_back(std::move(etag));
    written_ += buffer_.size();
    buffer_.clear();
    return Status::OK();
  }

  Status Fail(Status st) {
    closed_ = true;
    if (!upload_id_.empty()) Abort();
    return st;
  }

  void Abort() {
    S3Request req{"DELETE", key_, {{"uploadId", upload_id_}}, {}, {}, {}};
    (void)client_->Send(req);
    upload_id_.clear();
  }

  std::shared_ptr<const S3Client> client_;
  std::string key_;
  std::shared_ptr<IoStats> stats_;
  std::vector<uint8_t> buffer_;
  std::string upload_id_;
  std::vector<std::string> etags_;
  uint64_t written_ = 0;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<ObjectWriter> NewS3Writer(std::shared_ptr<const S3Client> client, std::string key,
                                          std::shared_ptr<IoStats> stats) {
  return std::make_unique<S3Writer>(std::move(client), std::move(key), std::move(stats));
}

}  // namespace lancet::io::s3
