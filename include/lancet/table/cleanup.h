// Removing files a Lance table no longer needs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

#include "lancet/result.h"
#include "lancet/table/dataset.h"

namespace lancet::table {

struct CleanupOptions {
  /// Versions older than this (by manifest timestamp) are removed, except the one the
  /// dataset was opened at, every newer one, and every tagged one. Must not be negative.
  std::chrono::seconds older_than = std::chrono::hours(24 * 14);
  /// Files no manifest references are kept while younger than 7 days (or of unknown age),
  /// since they may belong to a commit in progress; true removes them at any age. Only
  /// safe when nobody writes to the dataset meanwhile.
  bool delete_unverified = false;
  /// Called as the cleanup goes: phase "reading manifests" counts manifests read,
  /// "deleting" counts files deleted or found gone; from the calling thread.
  std::function<void(std::string_view phase, uint64_t done, uint64_t total)> progress;
};

struct CleanupStats {
  uint64_t old_versions = 0;   // manifests removed
  uint64_t files_removed = 0;  // every object removed, manifests included
  uint64_t bytes_removed = 0;
  uint64_t uploads_aborted = 0;  // pending multipart uploads under the dataset (S3)
};

/// \brief Deletes old manifests, then every file under data/ (data files and their .blob
/// sidecars), _deletions/, _transactions/ and _indices/ that no kept version references,
/// temporary files of interrupted writes, and pending uploads of crashed writers (S3
/// multipart uploads under the dataset, by the same age rule as unreferenced files).
/// Deletes go in batches (ObjectStore::DeleteMany). A file only removed versions referenced
/// goes at once; a file no manifest ever referenced goes only once it is 7 days old or
/// with delete_unverified. Files under other base paths and files of unknown kinds are
/// left alone. Never removes anything a kept version uses; an unreadable manifest stops
/// the cleanup before anything is deleted.
Result<CleanupStats> Cleanup(const Dataset& dataset, const CleanupOptions& options = {});

}  // namespace lancet::table
