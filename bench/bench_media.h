// What the media benchmarks (bench_extract_frame, bench_extract_audio) share: their
// one-row input datasets, FFmpeg's demuxer reading a BlobFile for the baseline, and
// byte counts for the tables. Header-only: each benchmark is a single program.
#pragma once

extern "C" {
#include <libavformat/avio.h>
#include <libavutil/error.h>
}

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench_check.h"
#include "lancet/blob/blob_file.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/table/blob_write.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace lancet::bench {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A one-row dataset at `root` whose blob column `column` holds `bytes`: ingested by the
/// plugins in `media`, or a plain Blob V2 value when `media` is null. Written under a
/// temporary name and renamed, so an interrupted run leaves no half dataset in the cache.
inline void WriteOne(const std::string& root, const std::string& column, const std::string& bytes,
                     const media::MediaOptions* media) {
  Schema schema{{table::MakeBlobField(column)}, {}};
  const std::vector<std::optional<std::string>> values = {bytes};
  Array data = Check(MakeBinaryArray(MakeType(TypeId::kLargeBinary), values), "data");
  Array uri = Check(MakeNullArray(MakeType(TypeId::kUtf8), 1), "uri");
  Array col = Check(MakeStructArray(schema.fields[0].type, 1, {data, uri}), "column");
  std::vector<RecordBatch> batches = {RecordBatch{schema, 1, {col}}};
  const std::string tmp = root + ".tmp";
  std::filesystem::remove_all(tmp);
  if (media != nullptr) {
    Check(media::WriteDatasetWithBlobInfo(tmp, schema, std::move(batches), {}, *media), "write " + root);
  } else {
    Check(table::WriteDataset(tmp, schema, std::move(batches), {}), "write " + root);
  }
  std::filesystem::rename(tmp, root);
}

/// AVIOContext callbacks over a blob::BlobFile (the opaque pointer): the baseline's
/// demuxer reads the stored container through BlobFile's read-ahead window.
inline int ReadBlob(void* opaque, uint8_t* buf, int size) {
  auto* blob = static_cast<blob::BlobFile*>(opaque);
  auto got = blob->read(static_cast<uint64_t>(size));
  if (!got.ok()) return AVERROR(EIO);
  if ((*got)->size() == 0) return AVERROR_EOF;
  std::memcpy(buf, (*got)->data(), static_cast<size_t>((*got)->size()));
  return static_cast<int>((*got)->size());
}

inline int64_t SeekBlob(void* opaque, int64_t offset, int whence) {
  auto* blob = static_cast<blob::BlobFile*>(opaque);
  const int64_t size = static_cast<int64_t>(blob->size());
  if (whence & AVSEEK_SIZE) return size;
  int64_t to = offset;
  if ((whence & 3) == SEEK_CUR) to += static_cast<int64_t>(blob->tell());
  if ((whence & 3) == SEEK_END) to += size;
  if (to < 0 || to > size || !blob->seek(static_cast<uint64_t>(to)).ok()) return AVERROR(EINVAL);
  return to;
}

/// "12.3 KiB" or "1.23 MiB".
inline std::string Human(double bytes) {
  char b[32];
  if (bytes >= 1 << 20) {
    std::snprintf(b, sizeof(b), "%.2f MiB", bytes / (1 << 20));
  } else {
    std::snprintf(b, sizeof(b), "%.1f KiB", bytes / 1024);
  }
  return b;
}

}  // namespace lancet::bench
