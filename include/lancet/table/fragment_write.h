// Distributed writes: workers write data files without committing them, a driver commits
// what they all wrote as one new version (the way lance-spark splits a write between
// executors and the driver).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lancet/record_batch_reader.h"
#include "lancet/result.h"
#include "lancet/table/write.h"

namespace lancet::table {

/// Data files written into a dataset's data/ directory that no version references yet.
struct UncommittedFragments {
  /// Self-contained bytes to ship to the driver (a serialized lance.table.Transaction:
  /// the fragments without ids, the version read, and for a create or overwrite the
  /// schema).
  std::string bytes;
  uint64_t rows = 0;
  uint32_t fragments = 0;
};

/// \brief Writes `batches` as fragments of the dataset at `uri` without committing
/// them, checked as WriteDataset checks them against the dataset as it is now
/// (params.mode: kAppend needs the dataset's schema, kCreate a dataset that does not
/// exist yet). On an error nothing is left behind. External blob bases cannot be
/// registered this way (NotSupported); create the table first.
Result<UncommittedFragments> WriteFragments(const std::string& uri, RecordBatchReader& batches,
                                            const WriteParams& params = {});

/// \brief Commits every part as one new version and returns it: an append of all their
/// fragments, or for kCreate/kOverwrite a new table of exactly them. Every part must
/// come from WriteFragments on this dataset with the same mode and schema
/// (InvalidArgument otherwise). CommitConflict when the table was replaced (overwrite,
/// restore) after a part was written, or a create finds the dataset existing; then
/// nothing is committed and the caller may AbortFragments.
Result<uint64_t> CommitFragments(const std::string& uri, std::span<const UncommittedFragments> parts,
                                 const WriteParams& params = {});

/// \brief Deletes the data files (and blob sidecars) of parts that will not be
/// committed. Files already gone are not an error.
Status AbortFragments(const std::string& uri, std::span<const UncommittedFragments> parts,
                      const WriteParams& params = {});

}  // namespace lancet::table
