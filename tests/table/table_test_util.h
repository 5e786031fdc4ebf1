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

}  // namespace lancet::table::testing
