#include "catalog/iceberg_rowmap.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace lancet::catalog::iceberg {
namespace {

constexpr char kRowMapMagic[4] = {'L', 'R', 'M', 'P'};
constexpr uint32_t kRowMapVersion = 2;
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

Status RowMap::Add(uint64_t id, RowLocation loc) {
  // A run ends one past its last id, which must fit in 64 bits.
  if (id == UINT64_MAX) return Status::Internal("row id 2^64-1 cannot be kept in the Iceberg row map");
  auto next = runs_.upper_bound(id);
  const bool has_next = next != runs_.end() && next->first == id + 1;
  if (next != runs_.begin()) {
    auto prev = std::prev(next);
    const uint64_t end = prev->first + prev->second.length;
    if (id < end) return Status::Internal("row id " + std::to_string(id) + " twice in the Iceberg row map");
    Run& run = prev->second;
    if (id == end && run.file == loc.file && run.pos + run.length == loc.pos) {
      ++run.length;
      ++rows_;
      if (has_next && next->second.file == loc.file && next->second.pos == loc.pos + 1) {
        run.length += next->second.length;
        runs_.erase(next);
      }
      return Status::OK();
    }
  }
  ++rows_;
  if (has_next && next->second.file == loc.file && next->second.pos == loc.pos + 1) {
    auto node = runs_.extract(next);
    node.key() = id;
    ++node.mapped().length;
    node.mapped().pos = loc.pos;
    runs_.insert(std::move(node));
    return Status::OK();
  }
  runs_.emplace_hint(next, id, Run{1, loc.file, loc.pos});
  return Status::OK();
}

std::optional<RowLocation> RowMap::Find(uint64_t id) const {
  auto it = runs_.upper_bound(id);
  if (it == runs_.begin()) return std::nullopt;
  --it;
  const uint64_t k = id - it->first;
  if (k >= it->second.length) return std::nullopt;
  return RowLocation{it->second.file, it->second.pos + k};
}

std::optional<RowLocation> RowMap::Take(uint64_t id) {
  auto it = runs_.upper_bound(id);
  if (it == runs_.begin()) return std::nullopt;
  --it;
  const Run run = it->second;
  const uint64_t k = id - it->first;
  if (k >= run.length) return std::nullopt;
  --rows_;
  if (run.length == 1) {
    runs_.erase(it);
  } else if (k == 0) {
    auto node = runs_.extract(it);
    node.key() = id + 1;
    --node.mapped().length;
    ++node.mapped().pos;
    runs_.insert(std::move(node));
  } else {
    it->second.length = k;
    if (k + 1 < run.length)
      runs_.emplace_hint(std::next(it), id + 1, Run{run.length - k - 1, run.file, run.pos + k + 1});
  }
  return RowLocation{run.file, run.pos + k};
}

std::string RowMap::Serialize() const {
  std::string body;
  Put<uint32_t>(&body, static_cast<uint32_t>(files.size()));
  for (const std::string& f : files) {
    Put<uint32_t>(&body, static_cast<uint32_t>(f.size()));
    body += f;
  }
  Put<uint64_t>(&body, runs_.size());
  uint64_t prev_end = 0;
  for (const auto& [start, run] : runs_) {
    PutVarint(&body, start - prev_end);
    PutVarint(&body, run.length);
    PutVarint(&body, run.file);
    PutVarint(&body, run.pos);
    prev_end = start + run.length;
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
  if (version != 1 && version != kRowMapVersion) {
    return Status::NotSupported("Iceberg row map version " + std::to_string(version));
  }
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
  const size_t min_entry = version == 1 ? 3 : 4;
  if (n > c.left() / min_entry) return Status::Corruption("Iceberg row map: entry count past the data");
  uint64_t next = 0;  // the first id the next entry may take
  for (uint64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(uint64_t gap, c.Varint());
    uint64_t length = 1;
    if (version != 1) {
      ASSIGN_OR_RETURN(length, c.Varint());
    } else if (i > 0) {
      // Version 1 stores the delta from the previous id, which is at least one.
      if (gap == 0) return Status::Corruption("Iceberg row map: a row id twice");
      --gap;
    }
    ASSIGN_OR_RETURN(uint64_t file, c.Varint());
    ASSIGN_OR_RETURN(uint64_t pos, c.Varint());
    if (length == 0) return Status::Corruption("Iceberg row map: an empty run");
    if (file >= map.files.size()) return Status::Corruption("Iceberg row map: file index out of range");
    if (gap > UINT64_MAX - next || length > UINT64_MAX - (next + gap) || length > UINT64_MAX - pos ||
        length > UINT64_MAX - map.rows_) {
      return Status::Corruption("Iceberg row map: a run past the largest row id");
    }
    const uint64_t start = next + gap;
    if (version == 1) {
      RETURN_IF_ERROR(map.Add(start, {static_cast<uint32_t>(file), pos}));
    } else {
      map.runs_.emplace_hint(map.runs_.end(), start, Run{length, static_cast<uint32_t>(file), pos});
      map.rows_ += length;
    }
    next = start + length;
  }
  if (c.left() != 0) return Status::Corruption("Iceberg row map: bytes after the entries");
  return map;
}

}  // namespace lancet::catalog::iceberg
