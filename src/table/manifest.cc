#include "table/manifest.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

namespace lancet::table {
namespace {

constexpr std::string_view kManifestSuffix = ".manifest";
constexpr std::string_view kMagic = "LANC";
// V2 names are u64::MAX - version printed with this many digits (commit.rs).
constexpr size_t kV2NameDigits = 20;
// The reference prefetches this much of a manifest's tail, which covers the manifest
// message itself in all but huge tables.
constexpr uint64_t kManifestPrefetch = 64 * 1024;

uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

int64_t LoadI64(const uint8_t* p) {
  int64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

std::optional<uint64_t> ParseDecimal(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

// Checks the trailer of a manifest file and returns the position of its u32 length.
Result<uint64_t> ManifestPosition(std::span<const uint8_t> trailer, uint64_t file_size, const std::string& path) {
  if (file_size < kManifestTrailerSize + 4) {
    return Status::Corruption(path + ": manifest file is " + std::to_string(file_size) +
                              " bytes, too small for a length prefix and the 16-byte trailer");
  }
  const uint8_t* t = trailer.data() + trailer.size() - kManifestTrailerSize;
  if (std::memcmp(t + 12, kMagic.data(), kMagic.size()) != 0) {
    return Status::Corruption(path + ": manifest trailer does not end in \"LANC\"");
  }
  int64_t pos = LoadI64(t);
  if (pos < 0 || static_cast<uint64_t>(pos) > file_size - kManifestTrailerSize - 4) {
    return Status::Corruption(path + ": manifest position " + std::to_string(pos) + " is outside the " +
                              std::to_string(file_size) + "-byte file");
  }
  return static_cast<uint64_t>(pos);
}

// `section` is [pos, file_size) of the file.
Result<lance::table::Manifest> DecodeManifestSection(std::span<const uint8_t> section, uint64_t pos,
                                                     uint64_t file_size, const std::string& path) {
  uint64_t body = file_size - pos - 4 - kManifestTrailerSize;
  uint32_t len = LoadU32(section.data());
  if (len != body) {
    return Status::Corruption(path + ": manifest at offset " + std::to_string(pos) + " claims " +
                              std::to_string(len) + " bytes but " + std::to_string(body) +
                              " bytes lie between it and the trailer");
  }
  if (body > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    return Status::Corruption(path + ": manifest of " + std::to_string(body) + " bytes is too large");
  }
  lance::table::Manifest manifest;
  if (!manifest.ParseFromArray(section.data() + 4, static_cast<int>(body))) {
    return Status::Corruption(path + ": manifest is not a valid lance.table.Manifest protobuf");
  }
  return manifest;
}

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  while (!a.empty() && a.back() == '/' && a.size() > 1) a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out += b;
  return out;
}

std::string ManifestFileNameV2(uint64_t version) {
  std::string digits = std::to_string(std::numeric_limits<uint64_t>::max() - version);
  return std::string(kV2NameDigits - digits.size(), '0') + digits + std::string(kManifestSuffix);
}

std::string ManifestFileNameV1(uint64_t version) { return std::to_string(version) + std::string(kManifestSuffix); }

std::optional<uint64_t> ParseManifestFileName(std::string_view name) {
  if (name.size() <= kManifestSuffix.size() || !name.ends_with(kManifestSuffix)) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - kManifestSuffix.size());
  // Detached versions ("d…") and anything else not purely decimal are not main-line.
  std::optional<uint64_t> n = ParseDecimal(stem);
  if (!n) return std::nullopt;
  if (stem.size() == kV2NameDigits) {
    uint64_t v = std::numeric_limits<uint64_t>::max() - *n;
    if (v == 0) return std::nullopt;
    return v;
  }
  if (*n == 0) return std::nullopt;
  return n;
}

Result<std::vector<ManifestLocation>> ListManifests(const io::ObjectStore& store, const std::string& root) {
  std::string dir = JoinPath(root, "_versions");
  auto listed = store.List(dir);
  if (!listed.ok()) {
    if (listed.status().IsNotFound()) {
      return Status::NotFound(dir + ": no such directory; " + root + " is not a Lance dataset");
    }
    return listed.status();
  }
  std::map<uint64_t, ManifestLocation> by_version;
  for (const io::ObjectInfo& info : *listed) {
    if (info.is_dir) continue;
    std::optional<uint64_t> v = ParseManifestFileName(info.path);
    if (!v) continue;
    ManifestLocation loc{*v, JoinPath(dir, info.path), info.size};
    auto [it, inserted] = by_version.emplace(*v, loc);
    if (!inserted) {
      return Status::Corruption(dir + ": version " + std::to_string(*v) + " has two manifests, " +
                                it->second.path + " and " + loc.path);
    }
  }
  std::vector<ManifestLocation> out;
  out.reserve(by_version.size());
  for (auto& [v, loc] : by_version) out.push_back(std::move(loc));
  return out;
}

Result<lance::table::Manifest> ParseManifestFile(std::span<const uint8_t> file, const std::string& path) {
  ASSIGN_OR_RETURN(uint64_t pos, ManifestPosition(file, file.size(), path));
  return DecodeManifestSection(file.subspan(pos), pos, file.size(), path);
}

Result<lance::table::Manifest> ReadManifest(const io::ObjectStore& store, const std::string& path,
                                            uint64_t known_size) {
  ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, store.OpenRead(path));
  uint64_t size = known_size;
  if (size == 0) {
    ASSIGN_OR_RETURN(size, file->Size());
  }
  if (size < kManifestTrailerSize + 4) {
    return Status::Corruption(path + ": manifest file is " + std::to_string(size) +
                              " bytes, too small for a length prefix and the 16-byte trailer");
  }
  uint64_t tail_start = size - std::min(size, kManifestPrefetch);
  ASSIGN_OR_RETURN(BufferPtr tail, file->ReadAt(tail_start, size - tail_start));
  ASSIGN_OR_RETURN(uint64_t pos, ManifestPosition(tail->span(), size, path));
  if (pos >= tail_start) {
    return DecodeManifestSection(tail->span().subspan(pos - tail_start), pos, size, path);
  }
  ASSIGN_OR_RETURN(BufferPtr section, file->ReadAt(pos, size - pos));
  return DecodeManifestSection(section->span(), pos, size, path);
}

Status CheckReaderFeatureFlags(const lance::table::Manifest& manifest, const std::string& path) {
  uint64_t reader = manifest.reader_feature_flags();
  uint64_t unknown = reader & ~kKnownReaderFlags;
  if (unknown != 0) {
    return Status::NotSupported(path + ": the dataset needs reader features this version of Lancet does not "
                                       "know (reader feature flags " +
                                std::to_string(reader) + ", unknown bits " + std::to_string(unknown) + ")");
  }
  bool mixed_r = (reader & kFlagMixedDataFileVersions) != 0;
  bool mixed_w = (manifest.writer_feature_flags() & kFlagMixedDataFileVersions) != 0;
  if (mixed_r != mixed_w) {
    return Status::Corruption(path +
                              ": only one of the reader and writer feature flags has the mixed data-file-version "
                              "bit (256), so its meaning is undefined");
  }
  return Status::OK();
}

Status ValidateTagName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("tag name is empty");
  if (name == "." || name == ".." || name.find("..") != std::string_view::npos) {
    return Status::InvalidArgument("tag name '" + std::string(name) + "' may not contain '..'");
  }
  for (char c : name) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return Status::InvalidArgument("tag name '" + std::string(name) + "' contains a path separator or control "
                                     "character");
    }
  }
  return Status::OK();
}

Result<TagContents> ParseTagJson(std::string_view json, const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::Corruption(path + ": tag file is not a JSON object");
  }
  TagContents out;
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_unsigned()) {
    return Status::Corruption(path + ": tag file has no unsigned integer \"version\"");
  }
  out.version = version->get<uint64_t>();
  if (out.version == 0) return Status::Corruption(path + ": tag points at version 0");
  auto branch = doc.find("branch");
  if (branch != doc.end() && !branch->is_null()) {
    if (!branch->is_string()) return Status::Corruption(path + ": tag file's \"branch\" is not a string");
    out.branch = branch->get<std::string>();
  }
  for (const char* key : {"manifestSize", "manifest_size"}) {
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) continue;
    if (!it->is_number_unsigned()) {
      return Status::Corruption(path + ": tag file's \"" + key + "\" is not an unsigned integer");
    }
    out.manifest_size = it->get<uint64_t>();
    break;
  }
  return out;
}

}  // namespace lancet::table
