#include "format/flatbuf_builder.h"

#include <algorithm>
#include <cstring>

namespace lancet::format {

void FbBuilder::Reserve(size_t n) {
  if (head_ >= n) return;
  size_t old_used = buf_.size() - head_;
  size_t new_cap = std::max<size_t>(64, 2 * (buf_.size() + n));
  std::vector<uint8_t> bigger(new_cap);
  if (old_used > 0) std::memcpy(bigger.data() + new_cap - old_used, buf_.data() + head_, old_used);
  buf_ = std::move(bigger);
  head_ = new_cap - old_used;
}

void FbBuilder::PushBytes(const void* p, size_t n) {
  Reserve(n);
  head_ -= n;
  if (n > 0) std::memcpy(buf_.data() + head_, p, n);
}

void FbBuilder::Align(size_t n, size_t align) {
  max_align_ = std::max(max_align_, align);
  size_t pad = (align - (used() + n) % align) % align;
  Reserve(pad);
  head_ -= pad;
  if (pad > 0) std::memset(buf_.data() + head_, 0, pad);
}

void FbBuilder::PushRef(Ref ref) {
  Align(4, 4);
  // The stored value is the distance from this field forward to its target.
  uint32_t rel = used() + 4 - ref;
  PushBytes(&rel, 4);
}

FbBuilder::Ref FbBuilder::CreateString(std::string_view s) {
  Align(s.size() + 1, 4);
  uint8_t nul = 0;
  PushBytes(&nul, 1);
  PushBytes(s.data(), s.size());
  uint32_t len = static_cast<uint32_t>(s.size());
  PushBytes(&len, 4);
  return used();
}

FbBuilder::Ref FbBuilder::CreateVectorOfRefs(std::span<const Ref> refs) {
  Align(refs.size() * 4, 4);
  for (size_t i = refs.size(); i-- > 0;) PushRef(refs[i]);
  uint32_t len = static_cast<uint32_t>(refs.size());
  PushBytes(&len, 4);
  return used();
}

FbBuilder::Ref FbBuilder::CreateVectorOfStructs(const void* data, size_t elem_size, size_t count, size_t align) {
  // The element data must be aligned and be immediately preceded by the count.
  Align(elem_size * count, std::max<size_t>(align, 4));
  PushBytes(data, elem_size * count);
  Align(4, 4);
  uint32_t len = static_cast<uint32_t>(count);
  PushBytes(&len, 4);
  return used();
}

void FbBuilder::StartTable() {
  fields_.clear();
  table_start_ = used();
}

void FbBuilder::AddRef(int slot, Ref ref) {
  PushRef(ref);
  fields_.emplace_back(slot, used());
}

FbBuilder::Ref FbBuilder::EndTable() {
  Align(4, 4);
  int32_t placeholder = 0;
  PushBytes(&placeholder, 4);
  Ref table = used();
  int max_slot = -1;
  for (const auto& [slot, ref] : fields_) max_slot = std::max(max_slot, slot);
  std::vector<uint16_t> vtable(2 + static_cast<size_t>(max_slot + 1), 0);
  vtable[0] = static_cast<uint16_t>(vtable.size() * 2);
  vtable[1] = static_cast<uint16_t>(table - table_start_);
  for (const auto& [slot, ref] : fields_) vtable[2 + slot] = static_cast<uint16_t>(table - ref);
  // Keep the vtable 2-aligned and right before the table; 4-alignment of the
  // table itself is already established.
  PushBytes(vtable.data(), vtable.size() * 2);
  Ref vt = used();
  // vtable = table - soffset, and the vtable sits before the table.
  int32_t soffset = static_cast<int32_t>(vt - table);
  std::memcpy(buf_.data() + buf_.size() - table, &soffset, 4);
  fields_.clear();
  return table;
}

std::vector<uint8_t> FbBuilder::Finish(Ref root) {
  Align(4, max_align_);
  PushRef(root);
  return std::vector<uint8_t>(buf_.begin() + static_cast<std::ptrdiff_t>(head_), buf_.end());
}

}  // namespace lancet::format
