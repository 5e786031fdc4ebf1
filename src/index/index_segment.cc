// Segment names, timestamps and cleanup shared by the scalar and vector builders.
#include "index/index_segment.h"

#include <chrono>
#include <random>

namespace lancet::index {

std::string RandomUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  uint8_t b[16];
  for (int i = 0; i < 16; i += 8) {
    const uint64_t v = rng();
    for (int j = 0; j < 8; ++j) b[i + j] = static_cast<uint8_t>(v >> (8 * j));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[b[i] >> 4]);
    s.push_back(kHex[b[i] & 15]);
  }
  return s;
}

uint64_t NowMs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

void DeleteSegment(io::ObjectStore& store, const std::string& dir) {
  auto listed = store.List(dir);
  if (!listed.ok()) return;
  for (const io::ObjectInfo& f : *listed) {
    if (!f.is_dir) (void)store.Delete(dir + "/" + f.path);
  }
}

const Field* FieldById(const Schema& schema, int32_t id) {
  for (const Field& f : schema.fields) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

Result<table::IndexMetadata> WriteNewSegment(const table::Dataset& dataset, const Field& field, const std::string& name,
                                             const std::string& type_url, int32_t index_version,
                                             const SegmentWriter& write) {
  table::IndexMetadata meta;
  meta.uuid = RandomUuid();
  meta.name = name;
  meta.fields = {field.id};
  meta.dataset_version = dataset.version();
  for (const table::FragmentInfo& f : dataset.fragments()) meta.fragment_ids.push_back(f.id);
  meta.type_url = type_url;
  meta.index_version = index_version;
  ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(meta));
  auto files = write(dir, meta);
  if (!files.ok()) {
    DeleteSegment(*dataset.store(), dir);
    return files.status();
  }
  for (const IndexFileEntry& f : *files) meta.files.push_back({f.path, f.size_bytes});
  meta.created_at_ms = NowMs();
  return meta;
}

Result<std::vector<std::string>> SegmentsToReplace(const table::Dataset& dataset, const std::string& name,
                                                   bool replace) {
  ASSIGN_OR_RETURN(std::vector<table::IndexMetadata> existing, dataset.ListIndices());
  std::vector<std::string> removed;
  for (const table::IndexMetadata& m : existing) {
    if (m.name != name) continue;
    if (!replace) return Status::AlreadyExists(dataset.uri() + ": an index named '" + name + "' exists");
    removed.push_back(m.uuid);
  }
  return removed;
}

Result<table::IndexMetadata> CommitSegment(const table::Dataset& dataset, table::IndexMetadata meta,
                                           const std::vector<std::string>& removed) {
  auto committed = table::CommitIndexChange(dataset, {meta}, removed);
  if (!committed.ok()) {
    ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(meta));
    DeleteSegment(*dataset.store(), dir);
    return committed.status();
  }
  return meta;
}

}  // namespace lancet::index
