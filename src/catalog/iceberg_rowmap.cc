#include "catalog/iceberg_rowmap.h"

#include <cstring>

namespace lancet::catalog::iceberg {
namespace {

constexpr char kRowMapMagic[4] = {'L', 'R', 'M', 'P'};
constexpr uint32_t kRowMapVersion = 1;
constexpr size_t kRowMapEntryBytes = 8 + 4 + 8;

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

class RowMapCursor {
 public:
  explicit RowMapCursor(std::span<const uint8_t> b) : b_(b) {}
  template <typename T>
  Result<T> Get() {
    if (b_.size() - pos_ < sizeof(T)) return Status::Corruption("Iceberg row map: truncated");
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  Result<std::string> Bytes(uint64_t n) {
    if (b_.size() - pos_ < n) return Status::Corruption("Iceberg row map: truncated file name");
    std::string s(reinterpret_cast<const char*>(b_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  size_t left() const { return b_.size() - pos_; }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

}  // namespace

std::string RowMap::Serialize() const {
  std::string out(kRowMapMagic, sizeof kRowMapMagic);
  Put<uint32_t>(&out, kRowMapVersion);
  Put<uint32_t>(&out, static_cast<uint32_t>(files.size()));
  for (const std::string& f : files) {
    Put<uint32_t>(&out, static_cast<uint32_t>(f.size()));
    out += f;
  }
  Put<uint64_t>(&out, rows.size());
  out.reserve(out.size() + rows.size() * kRowMapEntryBytes);
  for (const auto& [id, loc] : rows) {
    Put<uint64_t>(&out, id);
    Put<uint32_t>(&out, loc.file);
    Put<uint64_t>(&out, loc.pos);
  }
  return out;
}

Result<RowMap> RowMap::Parse(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kRowMapMagic, 4) != 0) {
    return Status::Corruption("Iceberg row map: bad magic");
  }
  RowMapCursor c(bytes.subspan(4));
  ASSIGN_OR_RETURN(uint32_t version, c.Get<uint32_t>());
  if (version != kRowMapVersion) return Status::NotSupported("Iceberg row map version " + std::to_string(version));
  ASSIGN_OR_RETURN(uint32_t nfiles, c.Get<uint32_t>());
  if (nfiles > c.left() / 4) return Status::Corruption("Iceberg row map: file count past the data");
  RowMap map;
  for (uint32_t i = 0; i < nfiles; ++i) {
    ASSIGN_OR_RETURN(uint32_t len, c.Get<uint32_t>());
    ASSIGN_OR_RETURN(std::string name, c.Bytes(len));
    map.files.push_back(std::move(name));
  }
  ASSIGN_OR_RETURN(uint64_t n, c.Get<uint64_t>());
  if (n != c.left() / kRowMapEntryBytes || c.left() % kRowMapEntryBytes != 0) {
    return Status::Corruption("Iceberg row map: entry count does not match its size");
  }
  map.rows.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(uint64_t id, c.Get<uint64_t>());
    ASSIGN_OR_RETURN(uint32_t file, c.Get<uint32_t>());
    ASSIGN_OR_RETURN(uint64_t pos, c.Get<uint64_t>());
    if (file >= map.files.size()) return Status::Corruption("Iceberg row map: file index out of range");
    map.rows[id] = {file, pos};
  }
  return map;
}

}  // namespace lancet::catalog::iceberg
