#include "index/row_addr_map.h"

#include <roaring/roaring.h>

#include <cstring>

namespace lancet::index {
namespace {

template <typename T>
void PutLE(std::vector<uint8_t>* out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out->insert(out->end(), b, b + sizeof(T));
}

uint32_t GetU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// A portable bitmap of every 32-bit offset, built once: what a whole fragment means.
const std::vector<uint8_t>& FullFragmentBytes() {
  static const std::vector<uint8_t> bytes = [] {
    Roaring full;
    full.addRange(0, uint64_t{1} << 32);
    std::vector<uint8_t> out(full.getSizeInBytes(true));
    full.write(reinterpret_cast<char*>(out.data()), true);
    return out;
  }();
  return bytes;
}

}  // namespace

std::vector<uint8_t> EncodeRowAddrMap(const Roaring64Map& rows) {
  // Roaring64Map keeps its per-fragment bitmaps private; its own serialization (u64
  // count, then u32 key + portable bitmap each) exposes them, and is re-framed here.
  Roaring64Map plain = rows;
  plain.removeRunCompression();
  std::vector<char> native(plain.getSizeInBytes(true));
  const size_t written = plain.write(native.data(), true);
  std::vector<uint8_t> out;
  out.reserve(written + 4);
  PutLE<uint32_t>(&out, 0);
  uint64_t count;
  std::memcpy(&count, native.data(), 8);
  size_t pos = 8;
  uint32_t kept = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t frag = GetU32(reinterpret_cast<const uint8_t*>(native.data() + pos));
    pos += 4;
    const size_t n = roaring_bitmap_portable_deserialize_size(native.data() + pos, written - pos);
    // An empty bitmap (8 bytes, no containers) names no rows; the reference omits it.
    if (GetU32(reinterpret_cast<const uint8_t*>(native.data() + pos + 4)) != 0) {
      PutLE<uint32_t>(&out, frag);
      PutLE<uint32_t>(&out, static_cast<uint32_t>(n));
      out.insert(out.end(), native.begin() + static_cast<ptrdiff_t>(pos),
                 native.begin() + static_cast<ptrdiff_t>(pos + n));
      ++kept;
    }
    pos += n;
  }
  std::memcpy(out.data(), &kept, 4);
  return out;
}

Result<Roaring64Map> DecodeRowAddrMap(std::span<const uint8_t> bytes, const std::string& where,
                                      uint32_t* whole_left) {
  uint32_t own_limit = kMaxWholeFragments;
  if (whole_left == nullptr) whole_left = &own_limit;
  if (bytes.size() < 4) return Status::Corruption(where + ": row address map shorter than its 4-byte count");
  const uint32_t count = GetU32(bytes.data());
  if (count > (bytes.size() - 4) / 8) {
    return Status::Corruption(where + ": row address map claims " + std::to_string(count) + " fragments in " +
                              std::to_string(bytes.size()) + " bytes");
  }
  // Each bitmap is checked, then handed to CRoaring alone, framed as Roaring64Map's
  // serialization of one entry (see EncodeRowAddrMap): CRoaring never sees bad bytes
  // and never has to find where one bitmap ends.
  Roaring64Map out;
  size_t pos = 4;
  int64_t prev = -1;
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.size() - pos < 8) return Status::Corruption(where + ": row address map truncated in fragment header");
    const uint32_t frag = GetU32(bytes.data() + pos), n = GetU32(bytes.data() + pos + 4);
    pos += 8;
    if (static_cast<int64_t>(frag) <= prev) {
      return Status::Corruption(where + ": row address map fragment " + std::to_string(frag) +
                                " is not after fragment " + std::to_string(prev));
    }
    prev = frag;
    const char* frag_bytes = reinterpret_cast<const char*>(bytes.data() + pos);
    size_t frag_len = n;
    if (n == 0) {
      if (*whole_left == 0) {
        return Status::Corruption(where + ": row address map has more than " + std::to_string(kMaxWholeFragments) +
                                  " whole-fragment entries");
      }
      --*whole_left;
      frag_bytes = reinterpret_cast<const char*>(FullFragmentBytes().data());
      frag_len = FullFragmentBytes().size();
    } else {
      if (n > bytes.size() - pos) {
        return Status::Corruption(where + ": row address map bitmap of fragment " + std::to_string(frag) + " (" +
                                  std::to_string(n) + " bytes) runs past the end");
      }
      if (roaring_bitmap_portable_deserialize_size(frag_bytes, n) != n) {
        return Status::Corruption(where + ": row address map bitmap of fragment " + std::to_string(frag) +
                                  " is not one portable Roaring bitmap of " + std::to_string(n) + " bytes");
      }
      pos += n;
    }
    std::vector<char> one(12 + frag_len);
    const uint64_t entries = 1;
    std::memcpy(one.data(), &entries, 8);
    std::memcpy(one.data() + 8, &frag, 4);
    std::memcpy(one.data() + 12, frag_bytes, frag_len);
    out |= Roaring64Map::readSafe(one.data(), one.size());
  }
  if (pos != bytes.size()) {
    return Status::Corruption(where + ": row address map has " + std::to_string(bytes.size() - pos) +
                              " bytes after its last fragment");
  }
  return out;
}

}  // namespace lancet::index
