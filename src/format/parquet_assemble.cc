#include "format/parquet_assemble.h"

#include <cstring>
#include <limits>
#include <string>

namespace lancet::format::parquet {
namespace {

// Julian day number of 1970-01-01: INT96 timestamps count days from the Julian epoch.
constexpr int64_t kJulianUnixEpochDay = 2440588;
constexpr uint64_t kNanosPerDay = 86400ULL * 1000 * 1000 * 1000;

Status AssembleFail(const ReadNode& node, const std::string& what) {
  return Status::Corruption("parquet column '" + node.field.name + "': " + what);
}

class ValidityBuilder {
 public:
  void Append(bool valid) {
    if ((length_ & 7) == 0) bits_.push_back(0);
    if (valid) {
      bits_.back() |= static_cast<uint8_t>(1u << (length_ & 7));
    } else {
      ++null_count_;
    }
    ++length_;
  }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  BufferPtr Finish() { return null_count_ == 0 ? nullptr : Buffer::FromVector(std::move(bits_)); }

 private:
  std::vector<uint8_t> bits_;
  int64_t length_ = 0, null_count_ = 0;
};

// Sign-extends a two's complement integer of `len` bytes (big-endian when `big_endian`)
// into `width` little-endian bytes.
void SignExtend(const uint8_t* in, size_t len, bool big_endian, uint8_t* out, size_t width) {
  const bool negative = len > 0 && ((big_endian ? in[0] : in[len - 1]) & 0x80);
  std::memset(out, negative ? 0xff : 0, width);
  for (size_t i = 0; i < len; ++i) out[i] = big_endian ? in[len - 1 - i] : in[i];
}

class Assembler {
 public:
  Assembler(const std::vector<ReadLeaf>& leaves, const std::vector<LeafColumn>& columns,
            const std::vector<LeafCursor>& cursors)
      : leaves_(leaves), columns_(columns), cursors_(cursors) {}

  Result<Array> Build(const ReadNode& node) {
    switch (node.kind) {
      case ReadNode::Kind::kLeaf:
        return BuildLeaf(node);
      case ReadNode::Kind::kStruct:
        return BuildStruct(node);
      default:
        return BuildList(node);
    }
  }

 private:
  struct Slots {
    ValidityBuilder validity;
    std::vector<int64_t> value_index;  // leaves: the value of each slot, -1 for null
  };

  Result<Array> BuildStruct(const ReadNode& node) {
    const int leaf = node.leaf_begin;
    const LeafColumn& col = columns_[leaf];
    const LeafCursor& cur = cursors_[leaf];
    const int16_t max_def = leaves_[leaf].max_def;
    ValidityBuilder validity;
    for (uint64_t i = cur.begin; i < cur.end; ++i) {
      const int16_t d = col.Def(i, max_def);
      if (col.Rep(i) <= node.rep_level && d >= node.slot_def) validity.Append(d >= node.def_level);
    }
    Array out;
    out.type = node.field.type;
    out.length = validity.length();
    out.null_count = validity.null_count();
    out.buffers.push_back(validity.Finish());
    for (const ReadNode& child : node.children) {
      ASSIGN_OR_RETURN(Array a, Build(child));
      if (a.length != out.length) return AssembleFail(node, "members disagree on the number of rows");
      out.children.push_back(std::move(a));
    }
    return out;
  }

  // Lists and maps: offsets from the first leaf's levels.
  Result<Array> BuildList(const ReadNode& node) {
    const int leaf = node.leaf_begin;
    const LeafColumn& col = columns_[leaf];
    const LeafCursor& cur = cursors_[leaf];
    const int16_t max_def = leaves_[leaf].max_def;
    const ReadNode& element = node.children[0];
    ValidityBuilder validity;
    BufferBuilder offsets;
    int64_t elements = 0;
    for (uint64_t i = cur.begin; i < cur.end; ++i) {
      const int16_t d = col.Def(i, max_def), r = col.Rep(i);
      if (r <= node.rep_level && d >= node.slot_def) {
        if (elements > std::numeric_limits<int32_t>::max())
          return AssembleFail(node, "over 2^31 list elements in one batch");
        offsets.AppendValue(static_cast<int32_t>(elements));
        validity.Append(d >= node.def_level);
      }
      if (r <= element.rep_level && d >= element.slot_def) ++elements;
    }
    if (elements > std::numeric_limits<int32_t>::max())
      return AssembleFail(node, "over 2^31 list elements in one batch");
    offsets.AppendValue(static_cast<int32_t>(elements));
    ASSIGN_OR_RETURN(Array child, Build(element));
    if (child.length != elements) return AssembleFail(node, "elements disagree with the list's levels");
    Array out;
    out.type = node.field.type;
    out.length = validity.length();
    out.null_count = validity.null_count();
    out.buffers = {validity.Finish(), offsets.Finish()};
    out.children.push_back(std::move(child));
    return out;
  }

  Result<Array> BuildLeaf(const ReadNode& node) {
    const int leaf = node.leaf_begin;
    const ReadLeaf& info = leaves_[leaf];
    const LeafColumn& col = columns_[leaf];
    const LeafCursor& cur = cursors_[leaf];
    Slots slots;
    uint64_t value = cur.value;
    for (uint64_t i = cur.begin; i < cur.end; ++i) {
      const int16_t d = col.Def(i, info.max_def);
      if (col.Rep(i) > node.rep_level || d < node.slot_def) continue;
      const bool present = d >= info.max_def;
      if (present && value >= col.values.size()) return AssembleFail(node, "fewer values than levels say");
      slots.validity.Append(present);
      slots.value_index.push_back(present ? static_cast<int64_t>(value++) : -1);
    }
    Array out;
    out.type = node.field.type;
    out.length = slots.validity.length();
    out.null_count = slots.validity.null_count();
    if (out.type.id == TypeId::kNull) {
      out.null_count = out.length;
      return out;
    }
    out.buffers.push_back(slots.validity.Finish());
    if (out.type.id == TypeId::kUtf8 || out.type.id == TypeId::kBinary) {
      RETURN_IF_ERROR(BinaryValues(node, col.values, slots.value_index, &out));
    } else if (out.type.id == TypeId::kBool) {
      std::vector<uint8_t> bits((slots.value_index.size() + 7) / 8, 0);
      for (size_t s = 0; s < slots.value_index.size(); ++s) {
        const int64_t v = slots.value_index[s];
        if (v >= 0 && col.values.data[v]) bits[s >> 3] |= static_cast<uint8_t>(1u << (s & 7));
      }
      out.buffers.push_back(Buffer::FromVector(std::move(bits)));
    } else {
      RETURN_IF_ERROR(FixedValues(node, info, col.values, slots.value_index, &out));
    }
    return out;
  }

  Status BinaryValues(const ReadNode& node, const ValueBuffer& values, const std::vector<int64_t>& index, Array* out) {
    BufferBuilder offsets, data;
    offsets.Reserve((index.size() + 1) * 4);
    offsets.AppendValue(int32_t{0});
    uint64_t total = 0;
    for (int64_t v : index) {
      if (v >= 0) {
        const uint64_t b = values.offsets[v], e = values.offsets[v + 1];
        total += e - b;
        if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          return AssembleFail(node, "over 2 GiB of string data in one batch");
        }
        data.Append(values.data.data() + b, e - b);
      }
      offsets.AppendValue(static_cast<int32_t>(total));
    }
    out->buffers.push_back(offsets.Finish());
    out->buffers.push_back(data.Finish());
    return Status::OK();
  }

  Status FixedValues(const ReadNode& node, const ReadLeaf& info, const ValueBuffer& values,
                     const std::vector<int64_t>& index, Array* out) {
    const size_t out_width = static_cast<size_t>(out->type.BitWidth() / 8);
    const size_t in_width = static_cast<size_t>(values.width);
    const TypeId id = out->type.id;
    const bool decimal = id == TypeId::kDecimal128 || id == TypeId::kDecimal256;
    if (out_width == 0 || (in_width == 0 && !decimal) || (in_width != 0 && in_width < out_width && !decimal)) {
      return AssembleFail(node, "physical values do not fit the type " + out->type.ToString());
    }
    ASSIGN_OR_RETURN(std::shared_ptr<Buffer> buf, Buffer::Allocate(index.size() * out_width));
    uint8_t* dst = buf->mutable_data();
    const bool big_endian =
        info.physical == PhysicalType::kFixedLenByteArray || info.physical == PhysicalType::kByteArray;
    for (size_t s = 0; s < index.size(); ++s, dst += out_width) {
      const int64_t v = index[s];
      if (v < 0) continue;
      const uint8_t* src = in_width ? values.data.data() + v * in_width : values.data.data() + values.offsets[v];
      const size_t len = in_width ? in_width : values.offsets[v + 1] - values.offsets[v];
      if (decimal) {
        if (len > out_width) return AssembleFail(node, "decimal of " + std::to_string(len) + " bytes");
        SignExtend(src, len, big_endian, dst, out_width);
      } else if (info.physical == PhysicalType::kInt96) {
        uint64_t nanos;
        int32_t days;
        std::memcpy(&nanos, src, 8);
        std::memcpy(&days, src + 8, 4);
        // Wrapping arithmetic: hostile days must not overflow into undefined behaviour.
        const uint64_t ns =
            static_cast<uint64_t>(static_cast<int64_t>(days) - kJulianUnixEpochDay) * kNanosPerDay + nanos;
        std::memcpy(dst, &ns, 8);
      } else {
        std::memcpy(dst, src, out_width);
      }
    }
    out->buffers.push_back(std::move(buf));
    return Status::OK();
  }

  const std::vector<ReadLeaf>& leaves_;
  const std::vector<LeafColumn>& columns_;
  const std::vector<LeafCursor>& cursors_;
};

}  // namespace

Result<Array> AssembleNode(const ReadNode& node, const std::vector<ReadLeaf>& leaves,
                           const std::vector<LeafColumn>& columns, const std::vector<LeafCursor>& cursors) {
  return Assembler(leaves, columns, cursors).Build(node);
}

}  // namespace lancet::format::parquet
