// Helpers for table-layer tests: hand-built manifests in an in-memory store, and
// copies of corpus datasets that tests may damage.
#pragma once

#include "lancet/array.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance_proto/table.pb.h"
#include "lancet/io/object_store.h"
#include "lancet/result.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace lancet::table::testing {

/// The corpus directory (/tmp/corpus unless LANCET_CORPUS_DIR is set).
std::string CorpusDir();
/// True if `<corpus>/data/<name>.lance` and `<corpus>/expected/<name>.json` exist.
bool HasCorpusDataset(const std::string& name);

/// Serializes `manifest` as a manifest file (§2.1): optional `prefix` bytes standing in
/// for index/transaction sections, then u32 length + protobuf + the 16-byte trailer.
std::vector<uint8_t> EncodeManifestFile(const lance::table::Manifest& manifest,
                                        const std::vector<uint8_t>& prefix = {});

/// Writes `manifest` to `<root>/_versions/` under the V2 (or V1) name of its version.
Status PutManifest(io::ObjectStore& store, const std::string& root, const lance::table::Manifest& manifest,
                   bool v2_naming = true);

/// A manifest with one int64 field "id" (id 0) and no fragments.
lance::table::Manifest MinimalManifest(uint64_t version);

/// Copies every file under local directory `dir` into `store` under `root`.
Status CopyDirToStore(const std::string& dir, io::ObjectStore& store, const std::string& root);

/// Reads a whole local file.
Result<std::vector<uint8_t>> ReadLocalFile(const std::string& path);

/// Rows [begin, begin+n): id int64 = i, name utf8 "r<i>" (every 7th null), x float64 = i/2.
RecordBatch IdNameXRows(int64_t begin, int64_t n);

/// The int64 first column of every row of `ds`, in scan order (empty, with a test
/// failure, when the scan fails).
std::vector<int64_t> ScannedIds(const Dataset& ds);

/// begin, begin+1, ..., end-1.
std::vector<int64_t> IdRange(int64_t begin, int64_t end);

/// A memory store holding `root` as two fragments, `first` written and `second`
/// appended, with the binary column "payload" stored as Blob V2 at thresholds
/// inline 4 / dedicated 12 / pack 1024, so that its values land in every placement.
std::shared_ptr<io::ObjectStore> WriteTwoFragmentBlobTable(const std::string& root, const RecordBatch& first,
                                                           const RecordBatch& second, bool stable_row_ids,
                                                           StorageVersion storage);

/// The latest version of `root` in `store` (a test failure, then a crash, when it does
/// not open).
std::unique_ptr<Dataset> OpenLatest(const std::shared_ptr<io::ObjectStore>& store, const std::string& root);

}  // namespace lancet::table::testing
