// How Blob V2 columns are written: size thresholds, binary columns declared blob,
// external URIs and their base paths (docs/format §10.1).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lancet/buffer.h"
#include "lancet/data_type.h"
#include "lancet/result.h"
#include "lancet/table/blob_info_value.h"

namespace lancet::table {

/// Field metadata keys (decimal strings) the reference reads its thresholds from.
inline constexpr const char* kBlobInlineThresholdKey = "lance-encoding:blob-inline-size-threshold";
inline constexpr const char* kBlobDedicatedThresholdKey = "lance-encoding:blob-dedicated-size-threshold";
inline constexpr const char* kBlobPackFileThresholdKey = "lance-encoding:blob-pack-file-size-threshold";

/// \brief Where a blob column's values go, by size L (all thresholds inclusive):
/// L <= inline: inside the data file; L <= dedicated: appended to a shared pack
/// sidecar (a new pack when it would pass pack_file); larger: a sidecar of its own.
struct BlobThresholds {
  uint64_t inline_max = 64 * 1024;
  uint64_t dedicated_min = 4 * 1024 * 1024;  // values above this are dedicated
  uint64_t pack_file_max = 1024ULL * 1024 * 1024;
};

/// The thresholds `field` declares in its metadata, defaults for absent keys.
/// InvalidArgument (naming the field and key) for a value that is not a decimal
/// number, a zero dedicated or pack threshold, or inline > dedicated.
Result<BlobThresholds> BlobThresholdsOf(const Field& field);

/// \brief A Blob V2 input field: struct<data: large_binary, uri: utf8> with the
/// lance.blob.v2 extension and, for each threshold set in `thresholds`, its metadata
/// key. Each non-null row sets either data or uri.
Field MakeBlobField(const std::string& name, bool nullable = true,
                    const std::optional<BlobThresholds>& thresholds = std::nullopt);

/// What a `uri` value of a blob column means.
enum class BlobUriMode : uint8_t {
  /// Store a reference (kind 3, External): the bytes stay where they are.
  kReference,
  /// Copy the bytes of the local file the URI names into the dataset (placed by size
  /// like `data`, streamed: a file is never held in memory whole).
  kCopy,
};

/// Receives bytes in order.
using ByteSink = std::function<Status(std::span<const uint8_t>)>;

/// \brief Rewrites one value on its way into a sidecar (format 2.3): source bytes in,
/// stored bytes out, and the blob_info describing the stored bytes.
class BlobTransformSession {
 public:
  virtual ~BlobTransformSession() = default;
  virtual Status Push(std::span<const uint8_t> source, const ByteSink& out) = 0;
  virtual Result<BlobInfoValue> Finish(const ByteSink& out) = 0;
};

/// \brief Starts a session per value. Implementations must be thread-safe.
class BlobTransform {
 public:
  virtual ~BlobTransform() = default;
  virtual Result<std::unique_ptr<BlobTransformSession>> Start() const = 0;
};

struct BlobWriteOptions {
  /// Top-level binary or large_binary columns to store as Blob V2 columns (as
  /// lance-spark's `<column>.lance.encoding = blob`), with their thresholds.
  std::map<std::string, BlobThresholds> binary_as_blob;
  /// Directories external blob URIs may point into. When the table is created they
  /// become Manifest.base_paths; an external URI is stored relative to its base.
  std::vector<std::string> external_bases;
  /// Accept external URIs outside every base (stored as absolute URIs, blob_id 0).
  bool allow_external_outside_bases = false;
  BlobUriMode uri_mode = BlobUriMode::kReference;
  /// Per blob column (dotted path): values that land packed or dedicated go through the
  /// transform and get a blob_info; inline values and other columns get none. Needs
  /// storage version 2.3 (WriteParams::storage_version).
  std::map<std::string, std::shared_ptr<const BlobTransform>> transforms;
  /// Called from the writing thread after each blob value is stored, with the bytes
  /// stored so far by this write (for progress displays).
  std::function<void(uint64_t bytes)> on_progress;
};

}  // namespace lancet::table
