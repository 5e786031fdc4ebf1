// S3ObjectStore: object keys in one bucket; range GETs for reads, conditional PUTs for
// commits, multipart uploads for streamed writes.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

#include "io/s3_client.h"
#include "io/s3_sigv4.h"
#include "io/s3_writer.h"
#include "io/s3_xml.h"
#include "lancet/io/s3_store.h"

namespace lancet::io {
namespace {

using s3::S3Client;
using s3::S3Request;

// ReadMany on S3 (S3Options::coalesce_gap, max_request_size, parallelism).
// Measured with bench/s3_bench against radosgw on loopback (2 cores, load ~12): a range
// GET costs ~1.7 ms plus ~530 MB/s, so serially a request is worth ~900 KiB of transfer.
// But merged requests run 8 at a time (the I/O pool), so an extra request mostly overlaps others
// while bytes read across a gap are paid in full. Fetching 50 of 200 packed blobs
// (16-256 KiB, gaps of ~3 blobs) took, median of 9: gap 0: 70 ms (52 GETs, 6.7 MB);
// 64 KiB: 63 ms (51, 6.8 MB); 256 KiB: 51 ms (37, 9.1 MB); 1 MiB: 63 ms (6, 24.6 MB).
// Hence 256 KiB. Requests stay below 8 MiB so one large read still spreads over
// parallel streams (~500 MB/s per stream from 4 MiB up). AWS S3 has a higher first-byte
// latency (20-50 ms) and ~90 MB/s per stream, where a larger gap pays; it is per store.

std::optional<uint64_t> ParseU64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string KeyOf(const std::string& path) {
  size_t b = 0;
  while (b < path.size() && path[b] == '/') ++b;
  size_t e = path.size();
  while (e > b && path[e - 1] == '/') --e;
  return path.substr(b, e - b);
}

class S3File final : public RandomAccessFile {
 public:
  S3File(std::shared_ptr<const S3Client> client, std::string path, std::string key, uint64_t size,
         std::shared_ptr<IoStats> stats)
      : client_(std::move(client)),
        path_(std::move(path)),
        key_(std::move(key)),
        size_(size),
        stats_(std::move(stats)) {}

  const std::string& path() const override { return path_; }
  Result<uint64_t> Size() const override { return size_; }
  IoStats* stats() const override { return stats_.get(); }
  ReadOptions TuneReadOptions(const ReadOptions& r) const override {
    ReadOptions o = r;
    const S3Options& s3 = client_->options();
    o.coalesce_gap = std::max(o.coalesce_gap, s3.coalesce_gap);
    if (o.max_request_size == 0 || o.max_request_size > s3.max_request_size) o.max_request_size = s3.max_request_size;
    o.parallelism = std::max(o.parallelism, s3.parallelism);
    return o;
  }

  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    if (offset > size_ || length > size_ - offset) {
      return Status::IOError(client_->Uri(key_) + ": read of [" + std::to_string(offset) + ", " +
                             std::to_string(offset + length) + ") is past the end of the object (" +
                             std::to_string(size_) + " bytes)");
    }
    if (length == 0) {
      stats_->RecordRead(0);
      return BufferPtr(Buffer::Empty());
    }
    ASSIGN_OR_RETURN(auto buf, Buffer::AllocateUninitialized(length));
    const std::string range = "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    S3Request req{"GET", key_, {}, {{"range", range}}, {}, {buf->mutable_data(), static_cast<size_t>(length)}};
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(req));
    if (r.status != 206 && !(r.status == 200 && offset == 0 && length == size_)) {
      return client_->ErrorFor(r, "GET " + range, key_);
    }
    if (r.body_size != length) {
      return Status::IOError(client_->Uri(key_) + ": GET " + range + " returned " + std::to_string(r.body_size) +
                             " bytes");
    }
    stats_->RecordRead(length);
    return BufferPtr(std::move(buf));
  }

 private:
  std::shared_ptr<const S3Client> client_;
  std::string path_;
  std::string key_;
  uint64_t size_;
  std::shared_ptr<IoStats> stats_;
};

class S3Store final : public ObjectStore {
 public:
  explicit S3Store(std::shared_ptr<const S3Client> client) : client_(std::move(client)) {}

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) const override {
    std::string key = KeyOf(path);
    ASSIGN_OR_RETURN(uint64_t size, Head(key));
    return std::unique_ptr<RandomAccessFile>(std::make_unique<S3File>(client_, path, key, size, stats_));
  }

  Result<uint64_t> Size(const std::string& path) const override { return Head(KeyOf(path)); }

  Result<bool> Exists(const std::string& path) const override {
    auto size = Head(KeyOf(path));
    if (size.ok()) return true;
    if (size.status().IsNotFound()) return false;
    return size.status();
  }

  Result<std::vector<ObjectInfo>> List(const std::string& dir) const override {
    std::string prefix = KeyOf(dir);
    if (!prefix.empty()) prefix += "/";
    std::vector<ObjectInfo> out;
    std::string token;
    do {
      s3::HeaderList query = {{"list-type", "2"}, {"delimiter", "/"}, {"prefix", prefix}};
      if (list_page_size_ > 0) query.emplace_back("max-keys", std::to_string(list_page_size_));
      if (!token.empty()) query.emplace_back("continuation-token", token);
      // A cut answer would silently drop keys (and IsTruncated with them).
      ASSIGN_OR_RETURN(HttpResponse r, client_->Send(S3Request{"GET", "", query, {}, {}, {}, "ListBucketResult"}));
      if (r.status != 200) return client_->ErrorFor(r, "ListObjectsV2 prefix=" + prefix, "");
      for (std::string_view c : s3::XmlElements(r.body, "Contents")) {
        std::string key = s3::XmlText(c, "Key").value_or("");
        if (key.size() <= prefix.size()) continue;
        ObjectInfo info;
        info.path = key.substr(prefix.size());
        info.size = ParseU64(s3::XmlText(c, "Size").value_or("0")).value_or(0);
        if (auto t = s3::XmlText(c, "LastModified")) info.modified_ms = s3::ParseIsoTimeMs(*t);
        out.push_back(std::move(info));
      }
      for (std::string_view c : s3::XmlElements(r.body, "CommonPrefixes")) {
        std::string p = s3::XmlText(c, "Prefix").value_or("");
        if (p.size() <= prefix.size() + 1) continue;
        out.push_back({p.substr(prefix.size(), p.size() - prefix.size() - 1), 0, true, std::nullopt});
      }
      token = s3::XmlText(r.body, "IsTruncated").value_or("false") == "true"
                  ? s3::XmlText(r.body, "NextContinuationToken").value_or("")
                  : "";
    } while (!token.empty());
    // S3 has no directories: an empty listing is what a missing one looks like.
    if (out.empty()) return Status::NotFound(client_->Uri(prefix) + ": no such directory");
    return out;
  }

  Status Put(const std::string& path, std::span<const uint8_t> bytes) override {
    std::string key = KeyOf(path);
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(S3Request{"PUT", key, {}, {}, bytes, {}}));
    if (r.status != 200) return client_->ErrorFor(r, "PUT", key);
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }

  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override {
    std::string key = KeyOf(path);
    int attempts = 0;
    ASSIGN_OR_RETURN(HttpResponse r,
                     client_->Send(S3Request{"PUT", key, {}, {{"if-none-match", "*"}}, bytes, {}}, &attempts));
    // 409 is S3's answer to a conditional write racing another one on the same key.
    if ((r.status == 412 || r.status == 409) && attempts > 1 && IsOurs(key, bytes)) {
      // An earlier attempt did land before its response was lost: the object is ours.
      r.status = 200;
    }
    if (r.status == 409) return Status::AlreadyExists(client_->Uri(key) + ": already exists (HTTP 409)");
    if (r.status != 200) {
      Status st = client_->ErrorFor(r, "conditional PUT", key);
      if (r.status == 412) return Status::AlreadyExists(client_->Uri(key) + ": already exists");
      return st;
    }
    stats_->RecordWrite(bytes.size());
    return Status::OK();
  }

  Result<std::unique_ptr<ObjectWriter>> OpenWrite(const std::string& path) override {
    return s3::NewS3Writer(client_, KeyOf(path), stats_);
  }

  Status Delete(const std::string& path) override {
    std::string key = KeyOf(path);
    // S3 answers 204 for a missing key too; the HEAD keeps the store contract (NotFound
    // for a missing object) that tag deletion and cleanup rely on. A racing delete
    // between the two requests is harmless.
    ASSIGN_OR_RETURN(uint64_t size, Head(key));
    (void)size;
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(S3Request{"DELETE", key, {}, {}, {}, {}}));
    if (r.status != 204 && r.status != 200) return client_->ErrorFor(r, "DELETE", key);
    return Status::OK();
  }

  Result<std::vector<bool>> DeleteMany(const std::vector<std::string>& paths) override {
    const size_t batch = static_cast<size_t>(std::clamp(client_->options().delete_batch_size, 1, 1000));
    std::vector<bool> removed;
    removed.reserve(paths.size());
    for (size_t at = 0; at < paths.size(); at += batch) {
      const size_t end = std::min(paths.size(), at + batch);
      // Quiet: the answer lists only the keys that failed.
      std::string xml = "<Delete><Quiet>true</Quiet>";
      for (size_t i = at; i < end; ++i) xml += "<Object><Key>" + s3::XmlEscape(KeyOf(paths[i])) + "</Key></Object>";
      xml += "</Delete>";
      std::span<const uint8_t> body(reinterpret_cast<const uint8_t*>(xml.data()), xml.size());
      // A cut answer could hide the keys that failed.
      S3Request req{"POST", "", {{"delete", ""}}, {{"content-md5", s3::Md5Base64(body)}}, body, {}, "DeleteResult"};
      ASSIGN_OR_RETURN(HttpResponse r, client_->Send(req));
      const std::string what = "DeleteObjects of " + std::to_string(end - at) + " keys from";
      if (r.status != 200) return client_->ErrorFor(r, what, KeyOf(paths[at]));
      // Keys that could not be deleted are reported inside the 200.
      for (std::string_view e : s3::XmlElements(r.body, "Error")) {
        return Status::IOError(client_->Uri(s3::XmlText(e, "Key").value_or("")) +
                               ": DeleteObjects failed: " + s3::XmlText(e, "Code").value_or("unknown error"));
      }
      removed.insert(removed.end(), end - at, true);
    }
    return removed;
  }

  Result<std::vector<PendingUpload>> ListUploads(const std::string& dir) const override {
    std::string prefix = KeyOf(dir);
    if (!prefix.empty()) prefix += "/";
    std::vector<PendingUpload> out;
    std::string key_marker, id_marker;
    while (true) {
      s3::HeaderList query = {{"uploads", ""}, {"prefix", prefix}};
      if (!key_marker.empty()) query.emplace_back("key-marker", key_marker);
      if (!id_marker.empty()) query.emplace_back("upload-id-marker", id_marker);
      ASSIGN_OR_RETURN(HttpResponse r,
                       client_->Send(S3Request{"GET", "", query, {}, {}, {}, "ListMultipartUploadsResult"}));
      if (r.status != 200) return client_->ErrorFor(r, "ListMultipartUploads prefix=" + prefix, "");
      for (std::string_view u : s3::XmlElements(r.body, "Upload")) {
        PendingUpload p;
        p.path = s3::XmlText(u, "Key").value_or("");
        p.id = s3::XmlText(u, "UploadId").value_or("");
        if (auto t = s3::XmlText(u, "Initiated")) p.initiated_ms = s3::ParseIsoTimeMs(*t);
        if (!p.path.empty() && !p.id.empty()) out.push_back(std::move(p));
      }
      if (s3::XmlText(r.body, "IsTruncated").value_or("false") != "true") break;
      std::string next_key = s3::XmlText(r.body, "NextKeyMarker").value_or("");
      std::string next_id = s3::XmlText(r.body, "NextUploadIdMarker").value_or("");
      // A server that does not advance its markers would page forever.
      if (next_key == key_marker && next_id == id_marker) break;
      key_marker = std::move(next_key);
      id_marker = std::move(next_id);
    }
    return out;
  }

  Status AbortUpload(const PendingUpload& upload) override {
    std::string key = KeyOf(upload.path);
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(S3Request{"DELETE", key, {{"uploadId", upload.id}}, {}, {}, {}}));
    if (r.status != 204 && r.status != 200) return client_->ErrorFor(r, "AbortMultipartUpload", key);
    return Status::OK();
  }

  void set_list_page_size(int n) { list_page_size_ = n; }

 private:
  Result<uint64_t> Head(const std::string& key) const {
    if (key.empty()) return Status::InvalidArgument(client_->Uri(key) + ": empty object key");
    ASSIGN_OR_RETURN(HttpResponse r, client_->Send(S3Request{"HEAD", key, {}, {}, {}, {}}));
    if (r.status != 200) return client_->ErrorFor(r, "HEAD", key);
    const std::string len = r.Header("content-length");
    if (len.empty()) return Status::IOError(client_->Uri(key) + ": HEAD gave no Content-Length");
    auto n = ParseU64(len);
    if (!n) return Status::IOError(client_->Uri(key) + ": HEAD gave a bad Content-Length");
    return *n;
  }

  bool IsOurs(const std::string& key, std::span<const uint8_t> bytes) const {
    auto size = Head(key);
    if (!size.ok() || *size != bytes.size()) return false;
    S3File file(client_, key, key, *size, std::make_shared<IoStats>());
    auto got = file.ReadAt(0, *size);
    return got.ok() && std::equal(bytes.begin(), bytes.end(), (*got)->data());
  }

  std::shared_ptr<const S3Client> client_;
  int list_page_size_ = 0;
};

}  // namespace

Result<std::shared_ptr<ObjectStore>> NewS3Store(const std::string& bucket, S3Options options) {
  const int page = options.list_page_size;
  ASSIGN_OR_RETURN(auto client, s3::MakeS3Client(bucket, std::move(options)));
  auto store = std::make_shared<S3Store>(std::shared_ptr<const S3Client>(std::move(client)));
  store->set_list_page_size(page);
  return std::shared_ptr<ObjectStore>(store);
}

std::string S3Options::Describe() const {
  std::string ep = endpoint.empty() ? "https://s3." + region + ".amazonaws.com" : endpoint;
  return "endpoint " + ep + ", region " + region + (virtual_hosted_style ? ", virtual-hosted" : ", path-style") +
         (session_token.empty() ? "" : ", session token set");
}

}  // namespace lancet::io
