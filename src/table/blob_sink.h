// Stores the payloads of one data file's Blob V2 columns (docs/format §10.1-10.2).
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/format/file_writer.h"
#include "lancet/io/object_store.h"
#include "lancet/table/blob_location.h"
#include "lancet/table/blob_write.h"

namespace lancet::table {

/// The descriptor of one stored value.
struct StoredBlob {
  BlobKind kind = BlobKind::kInline;
  uint64_t position = 0;
  uint64_t size = 0;
  uint32_t blob_id = 0;
  std::string uri;
  std::optional<BlobInfoValue> info;  // set when a transform stored the value
};

/// A value to store: its length and a way to emit its bytes in order, in chunks.
struct BlobSource {
  uint64_t length = 0;
  std::function<Status(const ByteSink&)> emit;
};

/// \brief Places values by size: inline as raw buffers of the data file, packed into
/// a rolling pack sidecar per column, or into a dedicated sidecar, all under
/// `sidecar_dir` (data/<data file stem>). Sidecar ids count from 1 per data file in
/// the order sidecars are opened, shared by all its blob columns, as the reference
/// allocates them. Not thread-safe.
class BlobSink {
 public:
  /// `written` collects every sidecar created (so a failed write can remove them);
  /// `progress`, if set, gets the bytes stored so far.
  BlobSink(std::shared_ptr<io::ObjectStore> store, std::string sidecar_dir, format::FileWriter* file,
           std::vector<std::string>* written, std::function<void(uint64_t)> progress);
  ~BlobSink();

  /// Stores a value of blob column `column` (its index among the file's blob
  /// columns), placed by its source length. With `transform`, a value that lands
  /// packed or dedicated is stored as the transform's output and gets its blob_info.
  Result<StoredBlob> Put(size_t column, const BlobThresholds& thresholds, const BlobSource& source,
                         const BlobTransform* transform = nullptr);
  Result<StoredBlob> Put(size_t column, const BlobThresholds& thresholds, std::span<const uint8_t> bytes);
  /// Closes the open pack sidecars; call before the data file is finished.
  Status Finish();
  /// Payload bytes stored so far.
  uint64_t stored() const { return stored_; }

 private:
  struct Pack {
    std::unique_ptr<io::ObjectWriter> writer;
    uint32_t id = 0;
    uint64_t size = 0;
  };
  // Writes the value into `w`; returns the bytes written.
  Result<uint64_t> Feed(const BlobSource& source, BlobTransformSession* session, io::ObjectWriter& w,
                        std::optional<BlobInfoValue>* info);
  Result<std::unique_ptr<io::ObjectWriter>> OpenSidecar(uint32_t* id);
  void Progress(uint64_t bytes);

  std::shared_ptr<io::ObjectStore> store_;
  std::string sidecar_dir_;
  format::FileWriter* file_;
  std::vector<std::string>* written_;
  std::function<void(uint64_t)> progress_;
  uint64_t stored_ = 0;
  uint32_t next_id_ = 1;
  std::vector<Pack> packs_;  // by column
};

}  // namespace lancet::table
