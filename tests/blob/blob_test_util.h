// Helpers for blob-layer tests: corpus datasets and their expected JSON, temp copies
// that tests may damage, and a store that counts read requests per object.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::blob::testing {

using nlohmann::json;

/// The corpus directory (/tmp/corpus unless LANCET_CORPUS_DIR is set).
std::string CorpusDir();
/// True if `<corpus>/data/<name>.lance` and `<corpus>/expected/<name>.json` exist.
bool HasCorpusDataset(const std::string& name);
std::string DatasetPath(const std::string& name);
json LoadExpected(const std::string& name);
/// A JSON number or decimal string as u64.
uint64_t U64(const json& v);

/// The latest snapshot's value of blob column `column` (dotted path) in `row`: null if
/// the blob or a parent is null, else {"descriptor": ..., "bytes": ...}.
json BlobValue(const json& row, const std::string& column);
/// Whether `bytes` matches the expected {"len", "sha256"} or hex string.
bool BytesMatch(std::string_view bytes, const json& expected);

/// A fresh local directory unique to this process and test; the caller removes it.
std::string TestTempDir();
/// Copies corpus dataset `name` into TestTempDir() and returns the copy's path.
std::string CopyDatasetToTemp(const std::string& name);

/// The file name of sidecar `blob_id` (32 bits least significant first, ".blob").
std::string SidecarName(uint32_t blob_id);

/// \brief Wraps a store and counts read requests and bytes per object path.
class CountingStore final : public io::ObjectStore {
 public:
  explicit CountingStore(std::shared_ptr<io::ObjectStore> base) : base_(std::move(base)) {}

  Result<std::unique_ptr<io::RandomAccessFile>> OpenRead(const std::string& path) const override;
  Result<uint64_t> Size(const std::string& path) const override { return base_->Size(path); }
  Result<bool> Exists(const std::string& path) const override { return base_->Exists(path); }
  Result<std::vector<io::ObjectInfo>> List(const std::string& dir) const override { return base_->List(dir); }
  Status Put(const std::string& path, std::span<const uint8_t> bytes) override { return base_->Put(path, bytes); }
  Status PutIfAbsent(const std::string& path, std::span<const uint8_t> bytes) override {
    return base_->PutIfAbsent(path, bytes);
  }
  Status Delete(const std::string& path) override { return base_->Delete(path); }

  struct Reads {
    uint64_t requests = 0;
    uint64_t bytes = 0;
  };
  /// Reads of `path` since the last Reset.
  Reads ReadsOf(const std::string& path) const;
  /// Reads of every path.
  std::map<std::string, Reads> AllReads() const;
  void Reset();
  void Record(const std::string& path, uint64_t bytes) const;

 private:
  std::shared_ptr<io::ObjectStore> base_;
  mutable std::mutex mu_;
  mutable std::map<std::string, Reads> reads_;
};

}  // namespace lancet::blob::testing
