#include "table/commit.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "table/manifest.h"

namespace lancet::table {
namespace {

using lance::table::Manifest;
using lance::table::Transaction;

// Manifest file trailer version (§2.1): the reference writes 0.2.
constexpr int16_t kManifestMajor = 0;
constexpr int16_t kManifestMinor = 2;
// Backoff between commit attempts: a random wait below min(kBackoffCap, 2^attempt ms),
// so racing writers spread out instead of colliding again in lock step.
constexpr int kBackoffCapMs = 100;

std::mt19937_64& Rng() {
  // One generator per thread, seeded from the OS: names must not collide across
  // threads or processes that write the same dataset.
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }());
  return rng;
}

std::array<uint8_t, 16> UuidBytes() {
  std::array<uint8_t, 16> b;
  uint64_t hi = Rng()(), lo = Rng()();
  std::memcpy(b.data(), &hi, 8);
  std::memcpy(b.data() + 8, &lo, 8);
  b[6] = static_cast<uint8_t>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return b;
}

void AppendHex(uint8_t byte, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back(kHex[byte >> 4]);
  out->push_back(kHex[byte & 15]);
}

void AppendU32(uint32_t v, std::vector<uint8_t>* out) {
  uint8_t b[4];
  std::memcpy(b, &v, 4);
  out->insert(out->end(), b, b + 4);
}

void AppendSection(const std::string& bytes, std::vector<uint8_t>* out) {
  AppendU32(static_cast<uint32_t>(bytes.size()), out);
  out->insert(out->end(), bytes.begin(), bytes.end());
}

Status CheckWriterFeatureFlags(const Manifest& manifest, const std::string& path) {
  uint64_t unknown = manifest.writer_feature_flags() & ~kKnownWriterFlags;
  if (unknown != 0) {
    return Status::NotSupported(path + ": the dataset uses writer features Lancet cannot maintain (writer feature "
                                       "flags " +
                                std::to_string(manifest.writer_feature_flags()) + ", unknown bits " +
                                std::to_string(unknown) + ")");
  }
  return CheckReaderFeatureFlags(manifest, path);
}

// Reader and writer flags of a manifest we write: bits we do not track are kept as the
// builder left them; the deletion bit follows the fragments (§5.3, notes §4.3).
void SetFeatureFlags(Manifest* m) {
  bool deletions = std::any_of(m->fragments().begin(), m->fragments().end(),
                               [](const lance::table::DataFragment& f) { return f.has_deletion_file(); });
  uint64_t r = m->reader_feature_flags() & ~kFlagDeletionFiles;
  uint64_t w = m->writer_feature_flags() & ~kFlagDeletionFiles;
  if (deletions) {
    r |= kFlagDeletionFiles;
    w |= kFlagDeletionFiles;
  }
  m->set_reader_feature_flags(r);
  m->set_writer_feature_flags(w);
}

}  // namespace

std::optional<Transaction> LoadTransaction(const io::ObjectStore& store, const std::string& root,
                                           const Manifest& manifest) {
  if (manifest.transaction_file().empty() || manifest.transaction_file().find('/') != std::string::npos) {
    return std::nullopt;
  }
  std::string path = JoinPath(root, "_transactions/" + manifest.transaction_file());
  auto file = store.OpenRead(path);
  if (!file.ok()) return std::nullopt;
  auto size = (*file)->Size();
  if (!size.ok()) return std::nullopt;
  auto bytes = (*file)->ReadAt(0, *size);
  if (!bytes.ok()) return std::nullopt;
  Transaction txn;
  if (!txn.ParseFromArray((*bytes)->data(), static_cast<int>((*bytes)->size()))) return std::nullopt;
  return txn;
}

namespace {

bool UsesV1Naming(const std::string& path, uint64_t version) {
  std::string_view name = path;
  name = name.substr(name.rfind('/') + 1);
  return name != ManifestFileNameV2(version);
}

}  // namespace

std::string NewUuid() {
  std::array<uint8_t, 16> b = UuidBytes();
  std::string s;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    AppendHex(b[i], &s);
  }
  return s;
}

uint64_t RandomU64() { return Rng()(); }

std::string NewDataFileName() {
  std::array<uint8_t, 16> b = UuidBytes();
  std::string s;
  for (int i = 0; i < 3; ++i) {
    for (int bit = 7; bit >= 0; --bit) s.push_back(((b[i] >> bit) & 1) ? '1' : '0');
  }
  for (size_t i = 3; i < b.size(); ++i) AppendHex(b[i], &s);
  return s + ".lance";
}

std::vector<uint8_t> EncodeManifestFile(Manifest manifest, std::span<const uint8_t> index_section,
                                        const Transaction* transaction) {
  std::vector<uint8_t> out;
  manifest.clear_index_section();
  manifest.clear_transaction_section();
  if (!index_section.empty()) {
    manifest.set_index_section(out.size());
    AppendU32(static_cast<uint32_t>(index_section.size()), &out);
    out.insert(out.end(), index_section.begin(), index_section.end());
  }
  if (transaction != nullptr) {
    // lance 12 writes the transaction both inline and as a .txn file (§2.1).
    manifest.set_transaction_section(out.size());
    AppendSection(transaction->SerializeAsString(), &out);
  }
  int64_t pos = static_cast<int64_t>(out.size());
  AppendSection(manifest.SerializeAsString(), &out);
  uint8_t trailer[kManifestTrailerSize];
  std::memcpy(trailer, &pos, 8);
  std::memcpy(trailer + 8, &kManifestMajor, 2);
  std::memcpy(trailer + 10, &kManifestMinor, 2);
  std::memcpy(trailer + 12, "LANC", 4);
  out.insert(out.end(), trailer, trailer + kManifestTrailerSize);
  return out;
}

Result<std::vector<uint8_t>> ReadIndexSection(const io::ObjectStore& store, const std::string& path,
                                              const Manifest& manifest) {
  if (!manifest.has_index_section()) return std::vector<uint8_t>{};
  ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, store.OpenRead(path));
  ASSIGN_OR_RETURN(uint64_t size, file->Size());
  uint64_t pos = manifest.index_section();
  if (pos > size || size - pos < 4 + kManifestTrailerSize) {
    return Status::Corruption(path + ": index section offset " + std::to_string(pos) + " is outside the file");
  }
  ASSIGN_OR_RETURN(BufferPtr len_bytes, file->ReadAt(pos, 4));
  uint32_t len;
  std::memcpy(&len, len_bytes->data(), 4);
  if (len > size - pos - 4 - kManifestTrailerSize) {
    return Status::Corruption(path + ": index section of " + std::to_string(len) + " bytes runs past the file");
  }
  ASSIGN_OR_RETURN(BufferPtr body, file->ReadAt(pos + 4, len));
  lance::table::IndexSection check;
  if (!check.ParseFromArray(body->data(), static_cast<int>(body->size()))) {
    return Status::Corruption(path + ": index section is not a valid lance.table.IndexSection");
  }
  return std::vector<uint8_t>(body->data(), body->data() + body->size());
}

std::optional<uint64_t> MaxFragmentId(const Manifest& manifest) {
  std::optional<uint64_t> max;
  if (manifest.has_max_fragment_id()) max = manifest.max_fragment_id();
  for (const auto& f : manifest.fragments()) {
    if (!max || f.id() > *max) max = f.id();
  }
  return max;
}

Result<uint64_t> CommitWithRetry(io::ObjectStore& store, const std::string& root, uint64_t read_version,
                                 const CommitBuilder& build, int max_attempts) {
  if (max_attempts < 1) return Status::InvalidArgument(root + ": max_commit_attempts must be at least 1");
  const std::string uuid = NewUuid();
  const std::string txn_name = std::to_string(read_version) + "-" + uuid + ".txn";
  // Transactions of versions already examined; they never change.
  std::map<uint64_t, std::optional<Transaction>> txn_cache;
  // How long the last attempt took: on object stores an attempt is several requests
  // of milliseconds each, so the backoff scales with it (a fixed 100 ms cap kept S3
  // writers colliding in lock step until their attempts ran out).
  int64_t last_attempt_ms = 0;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    if (attempt > 0) {
      const int64_t cap =
          std::min<int64_t>(std::max<int64_t>(kBackoffCapMs, 8 * last_attempt_ms), int64_t{1} << std::min(attempt, 12));
      std::uniform_int_distribution<int64_t> wait(1, std::max<int64_t>(1, cap));
      std::this_thread::sleep_for(std::chrono::milliseconds(wait(Rng())));
    }
    const auto attempt_start = std::chrono::steady_clock::now();
    CommitBase base;
    std::vector<ManifestLocation> manifests;
    auto listed = ListManifests(store, root);
    if (listed.ok()) {
      manifests = std::move(*listed);
    } else if (!listed.status().IsNotFound()) {
      return listed.status();
    }
    if (!manifests.empty()) {
      const ManifestLocation& loc = manifests.back();
      ASSIGN_OR_RETURN(Manifest latest, ReadManifest(store, loc.path, loc.size));
      if (latest.version() != loc.version) {
        return Status::Corruption(loc.path + ": manifest says version " + std::to_string(latest.version()) +
                                  " but its file name is version " + std::to_string(loc.version));
      }
      RETURN_IF_ERROR(CheckWriterFeatureFlags(latest, loc.path));
      base.latest_version = loc.version;
      base.latest_path = loc.path;
      for (const ManifestLocation& m : manifests) {
        if (m.version <= read_version) continue;
        auto it = txn_cache.find(m.version);
        if (it == txn_cache.end()) {
          std::optional<Transaction> txn;
          if (m.version == loc.version) {
            txn = LoadTransaction(store, root, latest);
          } else {
            ASSIGN_OR_RETURN(Manifest older, ReadManifest(store, m.path, m.size));
            txn = LoadTransaction(store, root, older);
          }
          it = txn_cache.emplace(m.version, std::move(txn)).first;
        }
        base.since_read.emplace_back(m.version, it->second);
      }
      base.latest = std::move(latest);
    }

    auto built = build(base);
    if (!built.ok()) {
      // An earlier lost attempt may have written our transaction file; no manifest
      // names it, so it must not outlive the failed change.
      if (attempt > 0) (void)store.Delete(JoinPath(root, "_transactions/" + txn_name));
      return built.status();
    }
    PreparedCommit prep = std::move(*built);
    const uint64_t version = base.latest_version + 1;
    Transaction& txn = prep.transaction;
    txn.set_read_version(read_version);
    txn.set_uuid(uuid);
    Manifest& m = prep.manifest;
    m.set_version(version);
    auto now = std::chrono::system_clock::now().time_since_epoch();
    auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
    m.mutable_timestamp()->set_seconds(nanos / 1000000000);
    m.mutable_timestamp()->set_nanos(static_cast<int32_t>(nanos % 1000000000));
    m.mutable_writer_version()->Clear();
    m.mutable_writer_version()->set_library(kWriterLibrary);
    m.mutable_writer_version()->set_version(kWriterLibraryVersion);
    if (!m.has_data_format()) {
      m.mutable_data_format()->set_file_format("lance");
      m.mutable_data_format()->set_version("2.2");
    }
    m.set_transaction_file(txn_name);
    m.clear_tag();
    SetFeatureFlags(&m);

    // The .txn file is ours alone (the uuid is fresh), so rewriting it with this
    // attempt's operation is safe: no committed manifest names it yet.
    std::string txn_bytes = txn.SerializeAsString();
    RETURN_IF_ERROR(store.Put(JoinPath(root, "_transactions/" + txn_name),
                              std::span(reinterpret_cast<const uint8_t*>(txn_bytes.data()), txn_bytes.size())));

    bool v1 = base.latest && UsesV1Naming(base.latest_path, base.latest_version);
    std::string path =
        JoinPath(root, "_versions/" + (v1 ? ManifestFileNameV1(version) : ManifestFileNameV2(version)));
    std::vector<uint8_t> file = EncodeManifestFile(m, prep.index_section, &txn);
    Status put = store.PutIfAbsent(path, file);
    if (put.code() == StatusCode::kAlreadyExists) {
      // Lost the race for this version: the files only this attempt referenced are
      // garbage now (shared inputs such as appended data files are not listed).
      for (const std::string& f : prep.attempt_files) (void)store.Delete(f);
      last_attempt_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - attempt_start)
              .count();
      continue;
    }
    // Any other error leaves the outcome unknown, so nothing is cleaned up.
    RETURN_IF_ERROR(put);
    // Only an optimisation for readers (notes §1): a failure does not undo the commit.
    std::string hint = "{\"version\":" + std::to_string(version) + "}";
    (void)store.Put(JoinPath(root, "_versions/latest_version_hint.json"),
                    std::span(reinterpret_cast<const uint8_t*>(hint.data()), hint.size()));
    return version;
  }
  // Leave no dangling transaction file for a change that never landed.
  (void)store.Delete(JoinPath(root, "_transactions/" + txn_name));
  return Status::CommitConflict(root + ": commit lost the race for a new version " + std::to_string(max_attempts) +
                                " times in a row; try again");
}

}  // namespace lancet::table
