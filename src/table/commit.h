// The commit protocol of a Lance table (docs/format §5.1): build the next manifest on
// top of the latest one, create it only if absent, retry after losing a race.
// Internal to the table layer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lance_proto/table.pb.h"
#include "lance_proto/transaction.pb.h"
#include "lancet/io/object_store.h"
#include "table/manifest.h"
#include "lancet/result.h"

namespace lancet::table {

/// Manifest.writer_version of everything Lancet commits.
inline constexpr const char* kWriterLibrary = "lancet";
inline constexpr const char* kWriterLibraryVersion = "0.1.0";

/// Writer feature bits we can preserve when we build on a manifest (§5.3): every bit
/// describes state we either maintain (1, 2) or copy unchanged (4, 8, 16, 32).
inline constexpr uint64_t kKnownWriterFlags = 1 | 2 | 4 | 8 | 16 | 32 | kFlagBlobInfo;

/// The transaction of `manifest`, from its .txn file; nullopt if it has none or it
/// cannot be read (other writers may skip transaction files, notes §13.4).
std::optional<lance::table::Transaction> LoadTransaction(const io::ObjectStore& store, const std::string& root,
                                                         const lance::table::Manifest& manifest);

/// A random UUIDv4 in hyphenated lowercase form.
std::string NewUuid();
/// A random u64 (deletion file ids).
uint64_t RandomU64();
/// A fresh data file name (notes §1): 24 binary digits of the first 3 random bytes,
/// 26 hex digits of the other 13, then ".lance".
std::string NewDataFileName();

/// Serializes a manifest file (§2.1): [index section][transaction section] manifest
/// trailer. Sets manifest.index_section / transaction_section to the sections' offsets
/// (cleared when absent). `index_section` is a serialized IndexSection copied from an
/// older manifest (empty = none).
std::vector<uint8_t> EncodeManifestFile(lance::table::Manifest manifest, std::span<const uint8_t> index_section,
                                        const lance::table::Transaction* transaction);

/// The raw IndexSection protobuf of the manifest file at `path` (empty if the manifest
/// has none), so a new manifest can carry the indices unchanged.
Result<std::vector<uint8_t>> ReadIndexSection(const io::ObjectStore& store, const std::string& path,
                                              const lance::table::Manifest& manifest);

/// Largest fragment id ever used: max(max_fragment_id, ids of live fragments), or
/// nullopt for a table that never had a fragment.
std::optional<uint64_t> MaxFragmentId(const lance::table::Manifest& manifest);

/// What a commit attempt builds on.
struct CommitBase {
  std::optional<lance::table::Manifest> latest;  // nullopt: the dataset does not exist yet
  uint64_t latest_version = 0;
  std::string latest_path;
  /// Transactions of the versions after the read version, up to latest_version, in
  /// order; nullopt where the version has no readable transaction file.
  std::vector<std::pair<uint64_t, std::optional<lance::table::Transaction>>> since_read;
};

/// One attempt's result: the new manifest (version, timestamp, writer, transaction
/// file and feature flags are filled in by the commit), its operation, and the files
/// the attempt wrote that only it references (deleted if it loses the race).
struct PreparedCommit {
  lance::table::Manifest manifest;
  lance::table::Transaction transaction;  // operation only; the header is filled in
  std::vector<uint8_t> index_section;
  std::vector<std::string> attempt_files;
};

/// Builds the next manifest on `base`. A CommitConflict it returns is final (the
/// change no longer makes sense on top of what others committed).
using CommitBuilder = std::function<Result<PreparedCommit>(const CommitBase& base)>;

/// \brief Commits a change read at `read_version` (0 = nothing read) to the dataset at
/// `root`: up to `max_attempts` times, loads the latest version, calls `build`, writes
/// the transaction file and creates the next manifest if absent, then updates
/// latest_version_hint.json (best effort). Returns the committed version.
/// CommitConflict (naming the dataset) when every attempt lost a race.
Result<uint64_t> CommitWithRetry(io::ObjectStore& store, const std::string& root, uint64_t read_version,
                                 const CommitBuilder& build, int max_attempts);

}  // namespace lancet::table
