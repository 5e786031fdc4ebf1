#include "table/blob_sink.h"

#include <limits>

#include "table/blob.h"
#include "table/manifest.h"

namespace lancet::table {
BlobSink::BlobSink(std::shared_ptr<io::ObjectStore> store, std::string sidecar_dir, format::FileWriter* file,
                   std::vector<std::string>* written, std::function<void(uint64_t)> progress)
    : store_(std::move(store)),
      sidecar_dir_(std::move(sidecar_dir)),
      file_(file),
      written_(written),
      progress_(std::move(progress)) {}

BlobSink::~BlobSink() = default;

void BlobSink::Progress(uint64_t bytes) {
  stored_ += bytes;
  if (progress_) progress_(stored_);
}

Result<std::unique_ptr<io::ObjectWriter>> BlobSink::OpenSidecar(uint32_t* id) {
  if (next_id_ == std::numeric_limits<uint32_t>::max()) {
    return Status::InvalidArgument(sidecar_dir_ + ": more than 2^32-2 blob sidecars for one data file");
  }
  *id = next_id_++;
  std::string path = JoinPath(sidecar_dir_, BlobSidecarFileName(*id));
  written_->push_back(path);
  return store_->OpenWrite(path);
}

Result<uint64_t> BlobSink::Feed(const BlobSource& source, BlobTransformSession* session, io::ObjectWriter& w,
                                std::optional<BlobInfoValue>* info) {
  uint64_t written = 0;
  ByteSink out = [&](std::span<const uint8_t> bytes) -> Status {
    written += bytes.size();
    return w.Append(bytes);
  };
  if (session == nullptr) {
    RETURN_IF_ERROR(source.emit(out));
  } else {
    RETURN_IF_ERROR(source.emit([&](std::span<const uint8_t> bytes) { return session->Push(bytes, out); }));
    ASSIGN_OR_RETURN(BlobInfoValue value, session->Finish(out));
    if (value.blob_type == 0) return Status::InvalidArgument(sidecar_dir_ + ": a blob transform returned blob_type 0");
    *info = std::move(value);
  }
  return written;
}

Result<StoredBlob> BlobSink::Put(size_t column, const BlobThresholds& t, const BlobSource& source,
                                 const BlobTransform* transform) {
  StoredBlob out;
  const uint64_t length = source.length;
  if (length <= t.inline_max) {
    if (length > 0) {
      // Inline values are small (the inline threshold bounds them) and stored whole.
      std::string bytes;
      bytes.reserve(length);
      RETURN_IF_ERROR(source.emit([&](std::span<const uint8_t> chunk) {
        bytes.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
        return Status::OK();
      }));
      if (bytes.size() != length) {
        return Status::IOError(sidecar_dir_ + ": a blob source gave " + std::to_string(bytes.size()) +
                               " bytes instead of " + std::to_string(length));
      }
      ASSIGN_OR_RETURN(out.position,
                       file_->WriteRawBuffer({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
      out.size = length;
      Progress(length);
    }
    return out;  // empty: kind 0, size 0
  }
  std::unique_ptr<BlobTransformSession> session;
  if (transform != nullptr) {
    ASSIGN_OR_RETURN(session, transform->Start());
  }
  if (length > t.dedicated_min) {
    out.kind = BlobKind::kDedicated;
    ASSIGN_OR_RETURN(auto writer, OpenSidecar(&out.blob_id));
    ASSIGN_OR_RETURN(out.size, Feed(source, session.get(), *writer, &out.info));
    RETURN_IF_ERROR(writer->Close());
    Progress(length);
    return out;
  }
  out.kind = BlobKind::kPacked;
  if (packs_.size() <= column) packs_.resize(column + 1);
  Pack& pack = packs_[column];
  // A pack that would pass its threshold is closed, but a fresh pack takes any value.
  if (pack.writer && pack.size + length > t.pack_file_max) {
    RETURN_IF_ERROR(pack.writer->Close());
    pack = Pack{};
  }
  if (!pack.writer) {
    ASSIGN_OR_RETURN(pack.writer, OpenSidecar(&pack.id));
  }
  out.blob_id = pack.id;
  out.position = pack.size;
  ASSIGN_OR_RETURN(out.size, Feed(source, session.get(), *pack.writer, &out.info));
  pack.size += out.size;
  Progress(length);
  return out;
}

Result<StoredBlob> BlobSink::Put(size_t column, const BlobThresholds& t, std::span<const uint8_t> bytes) {
  BlobSource source{bytes.size(), [bytes](const ByteSink& out) { return out(bytes); }};
  return Put(column, t, source);
}

Status BlobSink::Finish() {
  for (Pack& pack : packs_) {
    if (pack.writer) RETURN_IF_ERROR(pack.writer->Close());
    pack = Pack{};
  }
  return Status::OK();
}

}  // namespace lancet::table
