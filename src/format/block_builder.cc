#include "format/block_builder.h"

#include <cstring>
#include <limits>

#include "lancet/format/file_reader.h"

namespace lancet::format::internal {

using encoding::DataBlock;
using Kind = DataBlock::Kind;

namespace {

bool GetBit(const uint8_t* bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

void AppendBits(std::vector<uint8_t>* dst, uint64_t* dst_bits, const uint8_t* src, uint64_t begin, uint64_t n) {
  dst->resize((*dst_bits + n + 7) / 8, 0);
  uint8_t* d = dst->data();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t j = *dst_bits + i;
    if (GetBit(src, begin + i)) d[j >> 3] |= static_cast<uint8_t>(1u << (j & 7));
  }
  *dst_bits += n;
}

void AppendConstBits(std::vector<uint8_t>* dst, uint64_t* dst_bits, bool value, uint64_t n) {
  dst->resize((*dst_bits + n + 7) / 8, 0);
  if (value) {
    uint8_t* d = dst->data();
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t j = *dst_bits + i;
      d[j >> 3] |= static_cast<uint8_t>(1u << (j & 7));
    }
  }
  *dst_bits += n;
}

Status BadBlock(const std::string& what) { return Status::Corruption("decoded values: " + what); }

}  // namespace

void BlockBuilder::InitShape(const DataBlock& proto) {
  shaped_ = true;
  kind_ = proto.kind;
  bits_ = proto.bits_per_value;
  dimension_ = proto.dimension;
  children_.clear();
  if (kind_ == Kind::kFixedSizeList && !proto.children.empty()) {
    children_.resize(1);
    children_[0].InitShape(proto.children[0]);
  } else if (kind_ == Kind::kStruct) {
    children_.resize(proto.children.size());
    for (size_t i = 0; i < proto.children.size(); ++i) children_[i].InitShape(proto.children[i]);
  }
}

void BlockBuilder::AppendPlaceholders(uint64_t n) {
  if (n == 0) return;
  num_values_ += n;
  if (!shaped_) {
    pending_ += n;
    return;
  }
  switch (kind_) {
    case Kind::kFixed:
      if (bits_ == 1) {
        AppendConstBits(&data_, &data_bits_, false, n);
      } else {
        segments_.push_back({nullptr, nullptr, 0, 0, n * (bits_ / 8)});
      }
      break;
    case Kind::kVariable:
      segments_.push_back({nullptr, nullptr, 0, 0, n});
      break;
    case Kind::kFixedSizeList:
      if (!children_.empty()) children_[0].AppendPlaceholders(n * dimension_);
      // Placeholder items are null; the bitmap is only materialised once some
      // block carried one.
      if (has_item_validity_) {
        uint64_t bits = (num_values_ - n) * dimension_;
        AppendConstBits(&item_validity_, &bits, false, n * dimension_);
      }
      break;
    case Kind::kStruct:
      for (auto& c : children_) c.AppendPlaceholders(n);
      break;
    case Kind::kEmpty:
      break;
  }
}

void BlockBuilder::MaterializePending() {
  uint64_t n = pending_;
  pending_ = 0;
  num_values_ -= n;
  AppendPlaceholders(n);
}

Status BlockBuilder::Append(const DataBlock& src, uint64_t begin, uint64_t end) {
  if (begin > end || end > src.num_values) {
    return BadBlock("range [" + std::to_string(begin) + ", " + std::to_string(end) + ") of a block of " +
                    std::to_string(src.num_values) + " values");
  }
  const uint64_t n = end - begin;
  if (src.kind == Kind::kEmpty) {
    AppendPlaceholders(n);
    return Status::OK();
  }
  if (!shaped_) {
    InitShape(src);
    MaterializePending();
  }
  if (src.kind != kind_) return BadBlock("pages of one column decoded to different shapes");
  switch (kind_) {
    case Kind::kFixed: {
      if (src.bits_per_value != bits_) {
        return BadBlock("value widths " + std::to_string(bits_) + " and " + std::to_string(src.bits_per_value) +
                        " mixed in one column");
      }
      if (bits_ == 0 || (bits_ != 1 && bits_ % 8 != 0)) {
        return Status::NotSupported("decoded values of " + std::to_string(bits_) + " bits");
      }
      const uint64_t need = bits_ == 1 ? (src.num_values + 7) / 8 : src.num_values * (bits_ / 8);
      if (!src.data || src.data->size() < need) return BadBlock("fixed-width buffer shorter than its values");
      if (bits_ == 1) {
        AppendBits(&data_, &data_bits_, src.data->data(), begin, n);
      } else {
        const uint64_t w = bits_ / 8;
        if (n > 0) segments_.push_back({src.data, nullptr, 0, begin * w, end * w});
      }
      break;
    }
    case Kind::kVariable: {
      if (src.offset_bits != 32 && src.offset_bits != 64) return BadBlock("offsets must be 32 or 64 bits");
      if (!src.offsets || src.offsets->size() < (src.num_values + 1) * (src.offset_bits / 8)) {
        return BadBlock("offset buffer shorter than its values");
      }
      const uint64_t data_size = src.data ? src.data->size() : 0;
      uint64_t start = src.OffsetAt(begin);
      uint64_t prev = start;
      for (uint64_t i = begin + 1; i <= end; ++i) {
        uint64_t o = src.OffsetAt(i);
        if (o < prev || o > data_size) return BadBlock("offsets decrease or point past the data");
        prev = o;
      }
      if (n > 0) segments_.push_back({src.data, src.offsets, src.offset_bits, begin, end});
      break;
    }
    case Kind::kFixedSizeList: {
      if (src.dimension != dimension_ || src.children.size() != 1 || children_.size() != 1) {
        return BadBlock("fixed-size-list blocks of different dimension");
      }
      if (dimension_ != 0 && src.children[0].num_values / dimension_ < src.num_values) {
        return BadBlock("fixed-size-list block has fewer items than values");
      }
      RETURN_IF_ERROR(children_[0].Append(src.children[0], begin * dimension_, end * dimension_));
      const uint64_t before = (num_values_)*dimension_;
      if (src.item_validity) {
        if (src.item_validity->size() < (src.num_values * dimension_ + 7) / 8) {
          return BadBlock("item validity shorter than the items");
        }
        if (!has_item_validity_) {
          has_item_validity_ = true;
          uint64_t bits = 0;
          item_validity_.clear();
          AppendConstBits(&item_validity_, &bits, true, before);
        }
        uint64_t bits = before;
        AppendBits(&item_validity_, &bits, src.item_validity->data(), begin * dimension_, n * dimension_);
      } else if (has_item_validity_) {
        uint64_t bits = before;
        AppendConstBits(&item_validity_, &bits, true, n * dimension_);
      }
      break;
    }
    case Kind::kStruct: {
      if (src.children.size() != children_.size()) return BadBlock("struct blocks with different children");
      for (size_t i = 0; i < children_.size(); ++i) {
        RETURN_IF_ERROR(children_[i].Append(src.children[i], begin, end));
      }
      break;
    }
    case Kind::kEmpty:
      break;
  }
  num_values_ += n;
  return Status::OK();
}

Result<BufferPtr> BlockBuilder::FinishFixed() {
  if (segments_.size() == 1 && segments_[0].data) {
    const Segment& s = segments_[0];
    return BufferPtr(Buffer::Slice(s.data, s.begin, s.end - s.begin));
  }
  uint64_t total = 0;
  for (const Segment& s : segments_) total += s.end - s.begin;
  if (total == 0) return BufferPtr(Buffer::Empty());
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::AllocateUninitialized(total));
  uint8_t* d = out->mutable_data();
  for (const Segment& s : segments_) {
    if (s.data) {
      std::memcpy(d, s.data->data() + s.begin, s.end - s.begin);
    } else {
      std::memset(d, 0, s.end - s.begin);
    }
    d += s.end - s.begin;
  }
  segments_.clear();
  return BufferPtr(std::move(out));
}

Result<DataBlock> BlockBuilder::FinishVariable() {
  auto offset_at = [](const Segment& s, uint64_t i) {
    DataBlock view;
    view.offset_bits = s.offset_bits;
    view.offsets = s.offsets;
    return view.OffsetAt(i);
  };
  if (segments_.size() == 1 && segments_[0].offsets) {
    const Segment& s = segments_[0];
    const uint64_t w = s.offset_bits / 8;
    return DataBlock::Variable(s.offset_bits, num_values_, Buffer::Slice(s.offsets, s.begin * w, (num_values_ + 1) * w),
                               s.data ? s.data : Buffer::Empty());
  }
  uint64_t bytes = 0;
  for (const Segment& s : segments_) {
    if (s.offsets) bytes += offset_at(s, s.end) - offset_at(s, s.begin);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> data, Buffer::AllocateUninitialized(std::max<uint64_t>(bytes, 1)));
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> offsets, Buffer::AllocateUninitialized((num_values_ + 1) * 8));
  uint8_t* d = data->mutable_data();
  auto* o = reinterpret_cast<uint64_t*>(offsets->mutable_data());
  uint64_t pos = 0, slot = 0;
  o[slot++] = 0;
  for (const Segment& s : segments_) {
    if (!s.offsets) {
      for (uint64_t i = s.begin; i < s.end; ++i) o[slot++] = pos;
      continue;
    }
    const uint64_t start = offset_at(s, s.begin), stop = offset_at(s, s.end);
    if (stop > start) std::memcpy(d + pos, s.data->data() + start, stop - start);
    if (s.offset_bits == 64) {
      for (uint64_t i = s.begin + 1; i <= s.end; ++i) {
        uint64_t v;
        std::memcpy(&v, s.offsets->data() + i * 8, 8);
        o[slot++] = pos + v - start;
      }
    } else {
      for (uint64_t i = s.begin + 1; i <= s.end; ++i) {
        uint32_t v;
        std::memcpy(&v, s.offsets->data() + i * 4, 4);
        o[slot++] = pos + v - start;
      }
    }
    pos += stop - start;
  }
  segments_.clear();
  return DataBlock::Variable(64, num_values_, std::move(offsets), Buffer::Slice(std::move(data), 0, bytes));
}

Result<DataBlock> BlockBuilder::Finish() {
  DataBlock out;
  out.num_values = num_values_;
  if (!shaped_) return out;
  out.kind = kind_;
  switch (kind_) {
    case Kind::kFixed:
      out.bits_per_value = bits_;
      if (bits_ == 1) {
        out.data = Buffer::FromVector(std::move(data_));
      } else {
        ASSIGN_OR_RETURN(out.data, FinishFixed());
      }
      break;
    case Kind::kVariable: {
      ASSIGN_OR_RETURN(DataBlock v, FinishVariable());
      v.num_values = num_values_;
      return v;
    }
    case Kind::kFixedSizeList: {
      out.dimension = dimension_;
      ASSIGN_OR_RETURN(DataBlock child, children_[0].Finish());
      out.children.push_back(std::move(child));
      if (has_item_validity_) out.item_validity = Buffer::FromVector(std::move(item_validity_));
      break;
    }
    case Kind::kStruct:
      for (auto& c : children_) {
        ASSIGN_OR_RETURN(DataBlock child, c.Finish());
        out.children.push_back(std::move(child));
      }
      break;
    case Kind::kEmpty:
      break;
  }
  return out;
}

BufferPtr PackValidity(const std::vector<uint8_t>& valid, int64_t* null_count) {
  *null_count = 0;
  for (uint8_t v : valid) *null_count += v ? 0 : 1;
  if (*null_count == 0) return nullptr;
  std::vector<uint8_t> bits((valid.size() + 7) / 8, 0);
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return Buffer::FromVector(std::move(bits));
}

Result<Array> NullArrayOf(const DataType& type, int64_t length) {
  if (length < 0 || static_cast<uint64_t>(length) > kMaxAllocation) {
    return Status::Corruption("null array of " + std::to_string(length) + " values");
  }
  Array a;
  a.type = type;
  a.length = length;
  a.null_count = length;
  const uint64_t n = static_cast<uint64_t>(length);
  if (type.id == TypeId::kNull) return a;
  ASSIGN_OR_RETURN(auto validity, Buffer::Allocate((n + 7) / 8));
  a.buffers.push_back(length == 0 ? nullptr : BufferPtr(validity));
  if (length == 0) a.null_count = 0;
  int bits = type.BitWidth();
  switch (type.id) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const uint64_t w = type.IsLargeBinaryLike() ? 8 : 4;
      ASSIGN_OR_RETURN(auto offsets, Buffer::Allocate((n + 1) * w));
      a.buffers.push_back(offsets);
      a.buffers.push_back(Buffer::Empty());
      return a;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      const uint64_t w = type.id == TypeId::kLargeList ? 8 : 4;
      ASSIGN_OR_RETURN(auto offsets, Buffer::Allocate((n + 1) * w));
      a.buffers.push_back(offsets);
      if (type.children.size() != 1) return Status::InvalidArgument("list type without an item field");
      ASSIGN_OR_RETURN(Array child, NullArrayOf(type.children[0].type, 0));
      a.children.push_back(std::move(child));
      return a;
    }
    case TypeId::kFixedSizeList: {
      if (type.children.size() != 1) return Status::InvalidArgument("fixed_size_list without an item field");
      ASSIGN_OR_RETURN(Array child, NullArrayOf(type.children[0].type, length * type.list_size));
      a.children.push_back(std::move(child));
      return a;
    }
    case TypeId::kStruct:
      for (const auto& c : type.children) {
        ASSIGN_OR_RETURN(Array child, NullArrayOf(c.type, length));
        a.children.push_back(std::move(child));
      }
      return a;
    case TypeId::kDictionary:
      return Status::NotSupported("null arrays of dictionary type");
    default:
      break;
  }
  if (bits <= 0) return Status::NotSupported("null array of " + type.ToString());
  ASSIGN_OR_RETURN(auto values, Buffer::Allocate((n * static_cast<uint64_t>(bits) + 7) / 8));
  a.buffers.push_back(values);
  return a;
}

namespace {

Status Mismatch(const std::string& context, const DataType& type, const std::string& what) {
  return Status::Corruption(context + ": values do not fit " + type.ToString() + ": " + what);
}

Result<BufferPtr> VariableOffsets(const DataBlock& b, bool large, const std::string& context,
                                  const DataType& type) {
  const uint64_t n = b.num_values;
  if (b.offset_bits != 32 && b.offset_bits != 64) return Mismatch(context, type, "offset width");
  if (!b.offsets || b.offsets->size() < (n + 1) * (b.offset_bits / 8)) {
    return Mismatch(context, type, "offset buffer too short");
  }
  const uint64_t data_size = b.data ? b.data->size() : 0;
  const uint64_t base = b.OffsetAt(0);
  ASSIGN_OR_RETURN(auto out, Buffer::Allocate((n + 1) * (large ? 8 : 4)));
  uint64_t prev = base;
  for (uint64_t i = 0; i <= n; ++i) {
    uint64_t o = b.OffsetAt(i);
    if (o < prev || o > data_size) return Mismatch(context, type, "offsets decrease or point past the data");
    prev = o;
    uint64_t rel = o - base;
    if (large) {
      int64_t v = static_cast<int64_t>(rel);
      std::memcpy(out->mutable_data() + i * 8, &v, 8);
    } else {
      if (rel > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return Status::NotSupported(context + ": more than 2 GiB of " + type.ToString() +
                                    " values in one array; read fewer rows");
      }
      int32_t v = static_cast<int32_t>(rel);
      std::memcpy(out->mutable_data() + i * 4, &v, 4);
    }
  }
  return BufferPtr(out);
}

}  // namespace

Result<Array> BlockToArray(const DataType& type, const DataBlock& b, const std::vector<uint8_t>& valid,
                           const std::string& context) {
  const uint64_t n = b.num_values;
  if (!valid.empty() && valid.size() != n) {
    return Mismatch(context, type, std::to_string(n) + " values for " + std::to_string(valid.size()) + " slots");
  }
  if (b.kind == Kind::kEmpty) {
    // Only placeholders: every slot must be null.
    for (uint8_t v : valid) {
      if (v) return Mismatch(context, type, "a valid slot has no stored value");
    }
    if (valid.empty() && n > 0 && type.id != TypeId::kNull) {
      return Mismatch(context, type, "valid slots have no stored values");
    }
    return NullArrayOf(type, static_cast<int64_t>(n));
  }
  Array a;
  a.type = type;
  a.length = static_cast<int64_t>(n);
  if (type.id == TypeId::kNull) {
    a.null_count = a.length;
    return a;
  }
  a.buffers.push_back(PackValidity(valid, &a.null_count));
  switch (type.id) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      if (b.kind != Kind::kVariable) return Mismatch(context, type, "expected variable-width values");
      ASSIGN_OR_RETURN(BufferPtr offsets, VariableOffsets(b, type.IsLargeBinaryLike(), context, type));
      a.buffers.push_back(offsets);
      const uint64_t base = b.OffsetAt(0), last = b.OffsetAt(n);
      a.buffers.push_back(b.data ? Buffer::Slice(b.data, base, last - base) : Buffer::Empty());
      return a;
    }
    case TypeId::kFixedSizeList: {
      if (b.kind == Kind::kFixed && type.children.size() == 1 && type.children[0].type.BitWidth() > 0 &&
          b.bits_per_value == static_cast<uint64_t>(type.children[0].type.BitWidth()) * type.list_size) {
        // A constant page stores a whole fixed-size list as one fixed-width value.
        DataBlock items = DataBlock::Fixed(static_cast<uint32_t>(type.children[0].type.BitWidth()),
                                           n * type.list_size, b.data);
        ASSIGN_OR_RETURN(Array child, BlockToArray(type.children[0].type, items, {}, context));
        a.children.push_back(std::move(child));
        return a;
      }
      if (b.kind != Kind::kFixedSizeList || b.children.size() != 1 || type.children.size() != 1) {
        return Mismatch(context, type, "expected fixed-size-list values");
      }
      if (b.dimension != static_cast<uint64_t>(type.list_size)) {
        return Mismatch(context, type, "dimension " + std::to_string(b.dimension));
      }
      const DataBlock& items = b.children[0];
      if (items.num_values != n * b.dimension) return Mismatch(context, type, "item count");
      std::vector<uint8_t> item_valid;
      if (b.item_validity) {
        if (b.item_validity->size() < (items.num_values + 7) / 8) return Mismatch(context, type, "item validity");
        item_valid.resize(items.num_values);
        for (uint64_t i = 0; i < items.num_values; ++i) item_valid[i] = GetBit(b.item_validity->data(), i);
      }
      ASSIGN_OR_RETURN(Array child, BlockToArray(type.children[0].type, items, item_valid, context));
      a.children.push_back(std::move(child));
      return a;
    }
    case TypeId::kStruct: {
      // A packed struct: one block per child, children never null on their own.
      if (b.kind != Kind::kStruct || b.children.size() != type.children.size()) {
        return Mismatch(context, type, "expected packed struct values with " +
                                           std::to_string(type.children.size()) + " children");
      }
      for (size_t i = 0; i < type.children.size(); ++i) {
        if (b.children[i].num_values != n) return Mismatch(context, type, "child value count");
        ASSIGN_OR_RETURN(Array child, BlockToArray(type.children[i].type, b.children[i], {}, context));
        a.children.push_back(std::move(child));
      }
      return a;
    }
    case TypeId::kDictionary:
      return Status::NotSupported(context + ": dictionary-typed fields");
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return Status::Internal(context + ": list type reached the leaf converter");
    default:
      break;
  }
  const int bits = type.BitWidth();
  if (bits <= 0) return Status::NotSupported(context + ": no leaf conversion for " + type.ToString());
  if (b.kind != Kind::kFixed) return Mismatch(context, type, "expected fixed-width values");
  if (type.id == TypeId::kBool && b.bits_per_value == 8) {
    // Constant pages store a bool as one byte.
    if (!b.data || b.data->size() < n) return Mismatch(context, type, "value buffer too short");
    ASSIGN_OR_RETURN(auto bits_buf, Buffer::Allocate((n + 7) / 8));
    for (uint64_t i = 0; i < n; ++i) {
      if (b.data->data()[i]) bits_buf->mutable_data()[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
    a.buffers.push_back(bits_buf);
    return a;
  }
  if (b.bits_per_value != static_cast<uint32_t>(bits)) {
    return Mismatch(context, type, std::to_string(b.bits_per_value) + "-bit values");
  }
  const uint64_t need = (n * static_cast<uint64_t>(bits) + 7) / 8;
  if (!b.data || b.data->size() < need) return Mismatch(context, type, "value buffer too short");
  a.buffers.push_back(b.data);
  return a;
}

}  // namespace lancet::format::internal
