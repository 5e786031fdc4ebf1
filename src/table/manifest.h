// Manifest files, version listing and tags of a Lance dataset (docs/format §1, §2.1,
// §5.3). Internal to the table layer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lance_proto/table.pb.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/storage_version.h"

namespace lancet::table {

/// Reader feature flags lance 12 understands (feature_flags.rs plus the bits the
/// experiments of notes §13.8 showed it accepts). Any other bit means a newer writer
/// relied on something we cannot honour.
inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagUseV2FormatDeprecated = 4;
inline constexpr uint64_t kFlagTableConfig = 8;
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagDisableTransactionFile = 32;
inline constexpr uint64_t kFlagCoveredIndexMetadata = 128;
inline constexpr uint64_t kFlagMixedDataFileVersions = 256;
inline constexpr uint64_t kFlagBlobInfo = kBlobInfoFeatureFlag;
inline constexpr uint64_t kKnownReaderFlags = kFlagBlobInfo | kFlagDeletionFiles | kFlagStableRowIds | kFlagUseV2FormatDeprecated |
                                              kFlagTableConfig | kFlagBasePaths | kFlagDisableTransactionFile |
                                              kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions;

/// Manifest file trailer: i64 manifest position, u16 major, u16 minor, "LANC" (§2.1).
inline constexpr uint64_t kManifestTrailerSize = 16;

/// Joins two '/'-separated path pieces ("" on either side is dropped).
std::string JoinPath(std::string_view a, std::string_view b);

/// `_versions/` file name of `version` under the V2 scheme: 20 digits of u64::MAX - v.
std::string ManifestFileNameV2(uint64_t version);
/// `_versions/` file name of `version` under the V1 scheme: "{v}.manifest".
std::string ManifestFileNameV1(uint64_t version);

/// The version a `_versions/` entry names, or nullopt for entries that are not main-line
/// manifests (detached "d…" versions, the hint file, temporary files).
std::optional<uint64_t> ParseManifestFileName(std::string_view name);

struct ManifestLocation {
  uint64_t version = 0;
  std::string path;  // full path in the store
  uint64_t size = 0;  // from the listing; 0 if unknown
};

/// Lists the main-line manifests under `<root>/_versions`, ascending by version.
/// NotFound (naming the directory) if the dataset has no `_versions` directory.
/// Corruption if two files name the same version.
Result<std::vector<ManifestLocation>> ListManifests(const io::ObjectStore& store, const std::string& root);

/// Parses a whole manifest file (§2.1). Corruption naming `path` for a bad trailer, a
/// length that does not match the file, or protobuf garbage.
Result<lance::table::Manifest> ParseManifestFile(std::span<const uint8_t> file, const std::string& path);

/// Reads and parses the manifest at `path` (one request for small manifests).
/// `known_size` (0 = unknown) saves a size request.
Result<lance::table::Manifest> ReadManifest(const io::ObjectStore& store, const std::string& path,
                                            uint64_t known_size = 0);

/// NotSupported naming `path` if the manifest sets reader feature bits we do not know;
/// Corruption if the mixed-version bit is set in only one of reader and writer flags.
Status CheckReaderFeatureFlags(const lance::table::Manifest& manifest, const std::string& path);

/// InvalidArgument unless `name` is a usable tag name (non-empty, no '/', '\\', "..",
/// no control characters).
Status ValidateTagName(std::string_view name);

struct TagContents {
  uint64_t version = 0;
  std::string branch;  // empty (JSON null or absent): main
  std::optional<uint64_t> manifest_size;
};

/// Parses `_refs/tags/<name>.json`. The reference writes camelCase `manifestSize`; the
/// documentation spells it `manifest_size`; both are accepted. Corruption naming `path`.
Result<TagContents> ParseTagJson(std::string_view json, const std::string& path);

}  // namespace lancet::table
