#include "format/flatbuf_reader.h"

#include <bit>

namespace lancet::format {

static_assert(std::endian::native == std::endian::little,
              "FlatBuffers are little-endian; this reader loads them with memcpy");

namespace {

Result<std::string_view> StringAtPos(std::span<const uint8_t> buf, uint64_t pos) {
  if (pos > buf.size() || buf.size() - pos < 4) return Status::Corruption("flatbuffer: string offset out of range");
  uint32_t len = LoadLE<uint32_t>(buf.data() + pos);
  if (buf.size() - pos - 4 < len) return Status::Corruption("flatbuffer: string length out of range");
  return std::string_view(reinterpret_cast<const char*>(buf.data() + pos + 4), len);
}

}  // namespace

Result<FbTable> FbTable::Root(std::span<const uint8_t> buf) {
  if (buf.size() < 4) return Status::Corruption("flatbuffer: too short for a root offset");
  return At(buf, LoadLE<uint32_t>(buf.data()));
}

Result<FbTable> FbTable::At(std::span<const uint8_t> buf, uint64_t pos) {
  if (pos > buf.size() || buf.size() - pos < 4) return Status::Corruption("flatbuffer: table offset out of range");
  int64_t vt = static_cast<int64_t>(pos) - LoadLE<int32_t>(buf.data() + pos);
  if (vt < 0 || static_cast<uint64_t>(vt) > buf.size() || buf.size() - vt < 4) {
    return Status::Corruption("flatbuffer: vtable offset out of range");
  }
  FbTable t;
  t.buf_ = buf;
  t.pos_ = pos;
  t.vtable_ = static_cast<uint64_t>(vt);
  t.vtable_size_ = LoadLE<uint16_t>(buf.data() + vt);
  t.table_size_ = LoadLE<uint16_t>(buf.data() + vt + 2);
  if (t.vtable_size_ < 4 || t.vtable_size_ % 2 != 0 || buf.size() - vt < t.vtable_size_) {
    return Status::Corruption("flatbuffer: bad vtable size");
  }
  if (t.table_size_ < 4 || buf.size() - pos < t.table_size_) {
    return Status::Corruption("flatbuffer: table extends past end of buffer");
  }
  return t;
}

uint16_t FbTable::FieldOffset(int slot) const {
  uint64_t entry = 4 + 2 * static_cast<uint64_t>(slot);
  if (slot < 0 || entry + 2 > vtable_size_) return 0;
  return LoadLE<uint16_t>(buf_.data() + vtable_ + entry);
}

Result<uint64_t> FbTable::Indirect(int slot) const {
  uint16_t off = FieldOffset(slot);
  if (off == 0) return uint64_t{0};
  if (off + 4u > table_size_) return Status::Corruption("flatbuffer: offset field past end of table");
  uint64_t at = pos_ + off;
  uint32_t rel = LoadLE<uint32_t>(buf_.data() + at);
  // A zero uoffset would point at itself, which no valid object does.
  if (rel == 0 || at + rel >= buf_.size()) return Status::Corruption("flatbuffer: offset out of range");
  return at + rel;
}

Result<std::optional<FbTable>> FbTable::Table(int slot) const {
  ASSIGN_OR_RETURN(uint64_t target, Indirect(slot));
  if (target == 0) return std::optional<FbTable>();
  ASSIGN_OR_RETURN(FbTable t, At(buf_, target));
  return std::optional<FbTable>(t);
}

Result<std::optional<std::string_view>> FbTable::String(int slot) const {
  ASSIGN_OR_RETURN(uint64_t target, Indirect(slot));
  if (target == 0) return std::optional<std::string_view>();
  ASSIGN_OR_RETURN(std::string_view s, StringAtPos(buf_, target));
  return std::optional<std::string_view>(s);
}

Result<std::optional<FbVector>> FbVector::Get(const FbTable& table, int slot, uint64_t elem_size) {
  ASSIGN_OR_RETURN(uint64_t target, table.Indirect(slot));
  if (target == 0) return std::optional<FbVector>();
  const auto& buf = table.buf_;
  if (buf.size() - target < 4) return Status::Corruption("flatbuffer: vector offset out of range");
  FbVector v;
  v.buf_ = buf;
  v.size_ = LoadLE<uint32_t>(buf.data() + target);
  v.data_ = target + 4;
  v.elem_size_ = elem_size;
  // size_ < 2^32 and elem_size is a small constant, so the product cannot overflow.
  if (uint64_t{v.size_} * elem_size > buf.size() - v.data_) {
    return Status::Corruption("flatbuffer: vector length out of range");
  }
  return std::optional<FbVector>(v);
}

Result<FbTable> FbVector::TableAt(uint32_t i) const {
  uint64_t at = data_ + uint64_t{i} * 4;
  uint32_t rel = LoadLE<uint32_t>(buf_.data() + at);
  if (rel == 0 || at + rel >= buf_.size()) return Status::Corruption("flatbuffer: table element out of range");
  return FbTable::At(buf_, at + rel);
}

Result<std::string_view> FbVector::StringAt(uint32_t i) const {
  uint64_t at = data_ + uint64_t{i} * 4;
  uint32_t rel = LoadLE<uint32_t>(buf_.data() + at);
  if (rel == 0 || at + rel >= buf_.size()) return Status::Corruption("flatbuffer: string element out of range");
  return StringAtPos(buf_, at + rel);
}

}  // namespace lancet::format
