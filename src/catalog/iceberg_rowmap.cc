#include "catalog/iceberg_rowmap.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace lancet::catalog::iceberg {
namespace {

constexpr char kRowMapMagic[4] = {'L', 'R', 'M', 'P'};
constexpr uint32_t kRowMapVersion = 1;
constexpr size_t kRowMapHeader = 8;
// A hostile frame may claim any content size; real maps shrink far less than this.
constexpr uint64_t kMaxRowMapRatio = 4096;

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

class RowMapCursor {
 public:
  explicit RowMapCursor(std::string_view b) : b_(b) {}
  template <typename T>
  Result<T> Get() {
    if (b_.size() - pos_ < sizeof(T)) return Status::Corruption("Iceberg row map: truncated");
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  Result<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= b_.size()) return Status::Corruption("Iceberg row map: truncated entry");
      const uint8_t byte = static_cast<uint8_t>(b_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return Status::Corruption("Iceberg row map: varint longer than 64 bits");
  }
  Result<std::string> Bytes(uint64_t n) {
    if (b_.size() - pos_ < n) return Status::Corruption("Iceberg row map: truncated file name");
    std::string s(b_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  size_t left() const { return b_.size() - pos_; }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

}  // namespace

std::string RowMap::Serialize() const {
  std::string body;
  Put<uint32_t>(&body, static_cast<uint32_t>(files.size()));
  for (const std::string& f : files) {
    Put<uint32_t>(&body, static_cast<uint32_t>(f.size()));
    body += f;
  }
  Put<uint64_t>(&body, rows.size());
  std::vector<std::pair<uint64_t, RowLocation>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  uint64_t prev = 0;
  for (const auto& [id, loc] : sorted) {
    PutVarint(&body, id - prev);
    PutVarint(&body, loc.file);
    PutVarint(&body, loc.pos);
    prev = id;
  }
  std::string out(kRowMapMagic, sizeof kRowMapMagic);
  Put<uint32_t>(&out, kRowMapVersion);
  const size_t head = out.size();
  out.resize(head + ZSTD_compressBound(body.size()));
  const size_t n = ZSTD_compress(out.data() + head, out.size() - head, body.data(), body.size(), 3);
  // Compressing into a buffer of ZSTD_compressBound bytes cannot fail.
  out.resize(head + n);
  return out;
}

Result<RowMap> RowMap::Parse(std::span<const uint8_t> bytes) {
  if (bytes.size() < kRowMapHeader || std::memcmp(bytes.data(), kRowMapMagic, 4) != 0) {
    return Status::Corruption("Iceberg row map: bad magic");
  }
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 4, sizeof version);
  if (version != kRowMapVersion) return Status::NotSupported("Iceberg row map version " + std::to_string(version));
  const std::span<const uint8_t> frame = bytes.subspan(kRowMapHeader);
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
      size > frame.size() * kMaxRowMapRatio + 1024) {
    return Status::Corruption("Iceberg row map: bad zstd frame");
  }
  std::string body(size, '\0');
  const size_t got = ZSTD_decompress(body.data(), body.size(), frame.data(), frame.size());
  if (ZSTD_isError(got) || got != size) return Status::Corruption("Iceberg row map: bad zstd frame");

  RowMapCursor c(body);
  ASSIGN_OR_RETURN(uint32_t nfiles, c.Get<uint32_t>());
  if (nfiles > c.left() / 4) return Status::Corruption("Iceberg row map: file count past the data");
  RowMap map;
  for (uint32_t i = 0; i < nfiles; ++i) {
    ASSIGN_OR_RETURN(uint32_t len, c.Get<uint32_t>());
    ASSIGN_OR_RETURN(std::string name, c.Bytes(len));
    map.files.push_back(std::move(name));
  }
  ASSIGN_OR_RETURN(uint64_t n, c.Get<uint64_t>());
  if (n > c.left() / 3) return Status::Corruption("Iceberg row map: entry count past the data");
  map.rows.reserve(n);
  uint64_t id = 0;
  for (uint64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(uint64_t delta, c.Varint());
    ASSIGN_OR_RETURN(uint64_t file, c.Varint());
    ASSIGN_OR_RETURN(uint64_t pos, c.Varint());
    if (i > 0 && delta == 0) return Status::Corruption("Iceberg row map: a row id twice");
    id += delta;
    if (file >= map.files.size()) return Status::Corruption("Iceberg row map: file index out of range");
    map.rows[id] = {static_cast<uint32_t>(file), pos};
  }
  if (c.left() != 0) return Status::Corruption("Iceberg row map: bytes after the entries");
  return map;
}

}  // namespace lancet::catalog::iceberg
