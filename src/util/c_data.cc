#include "lancet/c_data.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "util/bit_util.h"

namespace lancet {

namespace {

// Nesting beyond this is treated as hostile rather than recursed into.
constexpr int kMaxDepth = 64;

// Zeros handed out for buffers that are absent on our side but must be non-null
// in the C interface (e.g. the single offset of an empty utf8 array). Aligned so
// any offset width can read it.
alignas(64) constexpr uint8_t kZeros[64] = {};

// ---------------------------------------------------------------------------
// Formats

std::string FormatOf(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull: return "n";
    case TypeId::kBool: return "b";
    case TypeId::kInt8: return "c";
    case TypeId::kUInt8: return "C";
    case TypeId::kInt16: return "s";
    case TypeId::kUInt16: return "S";
    case TypeId::kInt32: return "i";
    case TypeId::kUInt32: return "I";
    case TypeId::kInt64: return "l";
    case TypeId::kUInt64: return "L";
    case TypeId::kFloat16: return "e";
    case TypeId::kFloat32: return "f";
    case TypeId::kFloat64: return "g";
    case TypeId::kUtf8: return "u";
    case TypeId::kLargeUtf8: return "U";
    case TypeId::kBinary: return "z";
    case TypeId::kLargeBinary: return "Z";
    case TypeId::kFixedSizeBinary: return "w:" + std::to_string(t.byte_width);
    case TypeId::kDate32: return "tdD";
    case TypeId::kDate64: return "tdm";
    case TypeId::kTime32: return std::string("tt") + (t.unit == TimeUnit::kSecond ? "s" : "m");
    case TypeId::kTime64: return std::string("tt") + (t.unit == TimeUnit::kMicro ? "u" : "n");
    case TypeId::kTimestamp: return std::string("ts") + TimeUnitName(t.unit)[0] + ":" + t.timezone.value_or("");
    case TypeId::kDuration: return std::string("tD") + TimeUnitName(t.unit)[0];
    case TypeId::kDecimal128: return "d:" + std::to_string(t.precision) + "," + std::to_string(t.scale);
    case TypeId::kDecimal256:
      return "d:" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ",256";
    case TypeId::kList: return "+l";
    case TypeId::kLargeList: return "+L";
    case TypeId::kFixedSizeList: return "+w:" + std::to_string(t.list_size);
    case TypeId::kStruct: return "+s";
    case TypeId::kMap: return "+m";
    case TypeId::kDictionary: return t.index_type ? FormatOf(*t.index_type) : "";
  }
  return "";
}

// Parses a non-negative int32 that must span all of `s`.
std::optional<int32_t> ParseInt32(std::string_view s) {
  int32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::optional<TimeUnit> UnitFromChar(char c) {
  switch (c) {
    case 's': return TimeUnit::kSecond;
    case 'm': return TimeUnit::kMilli;
    case 'u': return TimeUnit::kMicro;
    case 'n': return TimeUnit::kNano;
    default: return std::nullopt;
  }
}

// The type a format string names, leaving children to the caller.
Result<DataType> ParseFormat(std::string_view f) {
  auto bad = [&]() { return Status::NotSupported("unsupported Arrow format \"" + std::string(f) + "\""); };
  if (f.size() == 1) {
    switch (f[0]) {
      case 'n': return MakeType(TypeId::kNull);
      case 'b': return MakeType(TypeId::kBool);
      case 'c': return MakeType(TypeId::kInt8);
      case 'C': return MakeType(TypeId::kUInt8);
      case 's': return MakeType(TypeId::kInt16);
      case 'S': return MakeType(TypeId::kUInt16);
      case 'i': return MakeType(TypeId::kInt32);
      case 'I': return MakeType(TypeId::kUInt32);
      case 'l': return MakeType(TypeId::kInt64);
      case 'L': return MakeType(TypeId::kUInt64);
      case 'e': return MakeType(TypeId::kFloat16);
      case 'f': return MakeType(TypeId::kFloat32);
      case 'g': return MakeType(TypeId::kFloat64);
      case 'u': return MakeType(TypeId::kUtf8);
      case 'U': return MakeType(TypeId::kLargeUtf8);
      case 'z': return MakeType(TypeId::kBinary);
      case 'Z': return MakeType(TypeId::kLargeBinary);
      default: return bad();
    }
  }
  if (f.starts_with("w:")) {
    auto w = ParseInt32(f.substr(2));
    if (!w) return bad();
    DataType t = MakeType(TypeId::kFixedSizeBinary);
    t.byte_width = *w;
    return t;
  }
  if (f.starts_with("d:")) {
    std::string_view rest = f.substr(2);
    size_t c1 = rest.find(',');
    if (c1 == std::string_view::npos) return bad();
    size_t c2 = rest.find(',', c1 + 1);
    auto p = ParseInt32(rest.substr(0, c1));
    auto s = ParseInt32(rest.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1));
    std::optional<int32_t> bits = 128;
    if (c2 != std::string_view::npos) bits = ParseInt32(rest.substr(c2 + 1));
    if (!p || !s || !bits || (*bits != 128 && *bits != 256)) return bad();
    DataType t = MakeType(*bits == 128 ? TypeId::kDecimal128 : TypeId::kDecimal256);
    t.precision = *p;
    t.scale = *s;
    return t;
  }
  if (f == "tdD") return MakeType(TypeId::kDate32);
  if (f == "tdm") return MakeType(TypeId::kDate64);
  if (f.size() == 3 && f.starts_with("tt")) {
    auto unit = UnitFromChar(f[2]);
    if (!unit) return bad();
    DataType t = MakeType(*unit == TimeUnit::kSecond || *unit == TimeUnit::kMilli ? TypeId::kTime32 : TypeId::kTime64);
    t.unit = *unit;
    return t;
  }
  if (f.size() == 3 && f.starts_with("tD")) {
    auto unit = UnitFromChar(f[2]);
    if (!unit) return bad();
    DataType t = MakeType(TypeId::kDuration);
    t.unit = *unit;
    return t;
  }
  if (f.size() >= 4 && f.starts_with("ts") && f[3] == ':') {
    auto unit = UnitFromChar(f[2]);
    if (!unit) return bad();
    std::string_view tz = f.substr(4);
    return TimestampType(*unit, tz.empty() ? std::nullopt : std::optional<std::string>(tz));
  }
  if (f == "+l") return MakeType(TypeId::kList);
  if (f == "+L") return MakeType(TypeId::kLargeList);
  if (f == "+s") return MakeType(TypeId::kStruct);
  if (f == "+m") return MakeType(TypeId::kMap);
  if (f.starts_with("+w:")) {
    auto n = ParseInt32(f.substr(3));
    if (!n) return bad();
    DataType t = MakeType(TypeId::kFixedSizeList);
    t.list_size = *n;
    return t;
  }
  return bad();
}

// Metadata: int32 pair count, then per pair an int32 length and bytes for the key
// and for the value (native endianness, as the spec says).
std::string EncodeMetadata(const Metadata& md) {
  std::string out;
  auto put_int = [&](int32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put_int(static_cast<int32_t>(md.size()));
  for (const auto& [k, v] : md) {
    put_int(static_cast<int32_t>(k.size()));
    out += k;
    put_int(static_cast<int32_t>(v.size()));
    out += v;
  }
  return out;
}

Result<Metadata> DecodeMetadata(const char* p) {
  Metadata md;
  if (p == nullptr) return md;
  auto get_int = [&]() {
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    p += sizeof(v);
    return v;
  };
  const int32_t n = get_int();
  if (n < 0) return Status::InvalidArgument("negative metadata pair count");
  for (int32_t i = 0; i < n; ++i) {
    const int32_t klen = get_int();
    if (klen < 0) return Status::InvalidArgument("negative metadata key length");
    std::string key(p, static_cast<size_t>(klen));
    p += klen;
    const int32_t vlen = get_int();
    if (vlen < 0) return Status::InvalidArgument("negative metadata value length");
    md[std::move(key)] = std::string(p, static_cast<size_t>(vlen));
    p += vlen;
  }
  return md;
}

// ---------------------------------------------------------------------------
// Schema export

struct ExportedSchema {
  std::string format, name, metadata;
  bool has_metadata = false;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;
  std::unique_ptr<ArrowSchema> dictionary;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  std::unique_ptr<ExportedSchema> priv(static_cast<ExportedSchema*>(schema->private_data));
  for (ArrowSchema& child : priv->children) {
    if (child.release) child.release(&child);
  }
  if (priv->dictionary && priv->dictionary->release) priv->dictionary->release(priv->dictionary.get());
  schema->release = nullptr;
  schema->private_data = nullptr;
}

void MarkReleased(ArrowSchema* s) { std::memset(s, 0, sizeof(*s)); }
void MarkReleased(ArrowArray* a) { std::memset(a, 0, sizeof(*a)); }

// Fills `out`; on error leaves it released and frees anything built so far.
Status ExportNode(const DataType& type, const std::string& name, bool nullable, const Metadata* metadata,
                  ArrowSchema* out, int depth) {
  MarkReleased(out);
  if (depth > kMaxDepth) return Status::InvalidArgument("type nesting too deep to export");
  auto priv = std::make_unique<ExportedSchema>();
  priv->format = FormatOf(type);
  if (priv->format.empty()) return Status::InvalidArgument("cannot export malformed type " + type.ToString());
  priv->name = name;
  if (metadata && !metadata->empty()) {
    priv->metadata = EncodeMetadata(*metadata);
    priv->has_metadata = true;
  }
  static const std::vector<Field> kNoChildren;
  // A dictionary node describes its indices; the values hang off `dictionary`.
  const std::vector<Field>* children = type.id == TypeId::kDictionary ? &kNoChildren : &type.children;
  if (type.id == TypeId::kDictionary) {
    if (!type.value_type) return Status::InvalidArgument("dictionary type without a value type");
    priv->dictionary = std::make_unique<ArrowSchema>();
    RETURN_IF_ERROR(ExportNode(*type.value_type, "", true, nullptr, priv->dictionary.get(), depth + 1));
  }
  priv->children.resize(children->size());
  for (size_t i = 0; i < children->size(); ++i) {
    const Field& f = (*children)[i];
    Status st = ExportNode(f.type, f.name, f.nullable, &f.metadata, &priv->children[i], depth + 1);
    if (!st.ok()) {
      for (ArrowSchema& c : priv->children) {
        if (c.release) c.release(&c);
      }
      if (priv->dictionary && priv->dictionary->release) priv->dictionary->release(priv->dictionary.get());
      return st;
    }
  }
  for (ArrowSchema& c : priv->children) priv->child_ptrs.push_back(&c);

  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = priv->has_metadata ? priv->metadata.data() : nullptr;
  out->flags = (nullable ? ARROW_FLAG_NULLABLE : 0) |
               (type.id == TypeId::kMap && type.keys_sorted ? ARROW_FLAG_MAP_KEYS_SORTED : 0);
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->children = priv->child_ptrs.empty() ? nullptr : priv->child_ptrs.data();
  out->dictionary = priv->dictionary.get();
  out->release = &ReleaseSchema;
  out->private_data = priv.release();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Array export

struct ExportedArray {
  std::vector<BufferPtr> buffers;
  std::vector<const void*> buffer_ptrs;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_ptrs;
  std::unique_ptr<ArrowArray> dictionary;
};

void ReleaseArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  std::unique_ptr<ExportedArray> priv(static_cast<ExportedArray*>(array->private_data));
  for (ArrowArray& child : priv->children) {
    if (child.release) child.release(&child);
  }
  if (priv->dictionary && priv->dictionary->release) priv->dictionary->release(priv->dictionary.get());
  array->release = nullptr;
  array->private_data = nullptr;
}

Status ExportArrayNode(const Array& a, ArrowArray* out, int depth) {
  MarkReleased(out);
  if (depth > kMaxDepth) return Status::InvalidArgument("array nesting too deep to export");
  auto priv = std::make_unique<ExportedArray>();
  priv->buffers = a.buffers;
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const BufferPtr& b = a.buffers[i];
    if (i == 0) {
      priv->buffer_ptrs.push_back(b ? b->data() : nullptr);
    } else {
      // Consumers may dereference any non-validity buffer, even when it is empty.
      priv->buffer_ptrs.push_back(b && b->size() > 0 ? b->data() : kZeros);
    }
  }
  auto cleanup = [&]() {
    for (ArrowArray& c : priv->children) {
      if (c.release) c.release(&c);
    }
    if (priv->dictionary && priv->dictionary->release) priv->dictionary->release(priv->dictionary.get());
  };
  priv->children.resize(a.children.size());
  for (size_t i = 0; i < a.children.size(); ++i) {
    Status st = ExportArrayNode(a.children[i], &priv->children[i], depth + 1);
    if (!st.ok()) {
      cleanup();
      return st;
    }
  }
  if (a.dictionary) {
    priv->dictionary = std::make_unique<ArrowArray>();
    Status st = ExportArrayNode(*a.dictionary, priv->dictionary.get(), depth + 1);
    if (!st.ok()) {
      cleanup();
      return st;
    }
  }
  for (ArrowArray& c : priv->children) priv->child_ptrs.push_back(&c);

  out->length = a.length;
  out->null_count = a.null_count;
  out->offset = a.offset;
  out->n_buffers = static_cast<int64_t>(priv->buffer_ptrs.size());
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->buffers = priv->buffer_ptrs.empty() ? nullptr : priv->buffer_ptrs.data();
  out->children = priv->child_ptrs.empty() ? nullptr : priv->child_ptrs.data();
  out->dictionary = priv->dictionary.get();
  out->release = &ReleaseArray;
  out->private_data = priv.release();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Schema import

Result<Field> ImportNode(const ArrowSchema* s, int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("schema nesting too deep");
  if (s == nullptr || s->format == nullptr) return Status::InvalidArgument("schema node without a format");
  if (s->n_children < 0 || (s->n_children > 0 && s->children == nullptr)) {
    return Status::InvalidArgument("schema node with a bad child list");
  }
  Field field;
  field.name = s->name ? s->name : "";
  field.nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  ASSIGN_OR_RETURN(field.metadata, DecodeMetadata(s->metadata));
  ASSIGN_OR_RETURN(DataType type, ParseFormat(s->format));
  std::vector<Field> children;
  for (int64_t i = 0; i < s->n_children; ++i) {
    Result<Field> child = ImportNode(s->children[i], depth + 1);
    if (!child.ok()) return child.status().WithContext("child " + std::to_string(i) + " of " + field.name);
    children.push_back(child.MoveValue());
  }
  size_t expected = 0;
  switch (type.id) {
    case TypeId::kList: case TypeId::kLargeList: case TypeId::kFixedSizeList: case TypeId::kMap:
      expected = 1;
      break;
    case TypeId::kStruct:
      expected = children.size();
      break;
    default:
      break;
  }
  if (children.size() != expected) {
    return Status::InvalidArgument("format \"" + std::string(s->format) + "\" with " +
                                   std::to_string(children.size()) + " children");
  }
  if (type.id == TypeId::kMap) {
    const DataType& entries = children[0].type;
    if (entries.id != TypeId::kStruct || entries.children.size() != 2) {
      return Status::InvalidArgument("map entries must be a struct of key and value");
    }
    type.keys_sorted = (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0;
  }
  type.children = std::move(children);
  if (s->dictionary != nullptr) {
    if (type.id < TypeId::kInt8 || type.id > TypeId::kUInt64) {
      return Status::InvalidArgument("dictionary indices must be integers, got " + type.ToString());
    }
    ASSIGN_OR_RETURN(Field values, ImportNode(s->dictionary, depth + 1));
    DataType dict = MakeType(TypeId::kDictionary);
    dict.index_type = std::make_shared<DataType>(std::move(type));
    dict.value_type = std::make_shared<DataType>(std::move(values.type));
    type = std::move(dict);
  }
  field.type = std::move(type);
  return field;
}

// Runs the producer's release on every exit path of an import.
struct SchemaReleaser {
  ArrowSchema* schema;
  ~SchemaReleaser() {
    if (schema->release) schema->release(schema);
    schema->release = nullptr;
  }
};

// ---------------------------------------------------------------------------
// Array import

// Owns a moved ArrowArray; every imported buffer of the tree shares one of these,
// so the producer's release runs once, when the last buffer goes away.
struct ImportedArray {
  ArrowArray array;
  ~ImportedArray() {
    if (array.release) array.release(&array);
  }
};

size_t BufferCount(TypeId id) {
  switch (id) {
    case TypeId::kNull: return 0;
    case TypeId::kUtf8: case TypeId::kLargeUtf8: case TypeId::kBinary: case TypeId::kLargeBinary: return 3;
    case TypeId::kFixedSizeList: case TypeId::kStruct: return 1;
    default: return 2;
  }
}

int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return -1;
  return r;
}

Result<Array> ImportArrayNode(const ArrowArray* c, const DataType& type, const std::shared_ptr<ImportedArray>& owner,
                              int depth) {
  if (depth > kMaxDepth) return Status::InvalidArgument("array nesting too deep");
  if (c == nullptr) return Status::InvalidArgument("missing child array");
  if (c->length < 0 || c->offset < 0 || c->null_count < -1 || c->n_buffers < 0 || c->n_children < 0) {
    return Status::InvalidArgument("negative length, offset or count in " + type.ToString() + " array");
  }
  constexpr int64_t kMaxLength = int64_t{1} << 48;  // mirrors Array::Validate's bound
  if (c->length > kMaxLength || c->offset > kMaxLength) return Status::InvalidArgument("array too long");
  const size_t nbuf = BufferCount(type.id);
  // Producers may pass the null type with no buffers or a lone null validity slot.
  const bool null_ok = type.id == TypeId::kNull && c->n_buffers <= 1;
  if (!null_ok && static_cast<size_t>(c->n_buffers) != nbuf) {
    return Status::InvalidArgument(type.ToString() + " array with " + std::to_string(c->n_buffers) +
                                   " buffers, expected " + std::to_string(nbuf));
  }
  if (c->n_buffers > 0 && c->buffers == nullptr) return Status::InvalidArgument("null buffer list");
  if (c->n_children > 0 && c->children == nullptr) return Status::InvalidArgument("null child list");
  const size_t nchild = type.id == TypeId::kStruct ? type.children.size()
                        : (type.id == TypeId::kList || type.id == TypeId::kLargeList ||
                           type.id == TypeId::kFixedSizeList || type.id == TypeId::kMap)
                            ? 1
                            : 0;
  if (static_cast<size_t>(c->n_children) != nchild || type.children.size() != nchild) {
    return Status::InvalidArgument(type.ToString() + " array with " + std::to_string(c->n_children) + " children");
  }

  Array out;
  out.type = type;
  out.length = c->length;
  out.offset = c->offset;
  const int64_t end = c->offset + c->length;
  if (type.id == TypeId::kNull) {
    out.null_count = out.length;
    return out;
  }

  auto wrap = [&](size_t slot, int64_t size) -> Result<BufferPtr> {
    const auto* p = static_cast<const uint8_t*>(c->buffers[slot]);
    if (size < 0) return Status::InvalidArgument("buffer size overflows in " + type.ToString() + " array");
    if (p == nullptr) {
      if (size > 0 && slot != 0) return Status::InvalidArgument("null buffer " + std::to_string(slot) + " in " + type.ToString() + " array");
      return slot == 0 ? BufferPtr() : BufferPtr(Buffer::Empty());
    }
    return BufferPtr(Buffer::Wrap(p, static_cast<uint64_t>(size), std::shared_ptr<const void>(owner)));
  };

  out.buffers.resize(nbuf);
  if (c->buffers[0] != nullptr && c->null_count != 0) {
    ASSIGN_OR_RETURN(out.buffers[0], wrap(0, bit_util::BytesForBits(end)));
  }
  switch (type.id) {
    case TypeId::kUtf8: case TypeId::kBinary: case TypeId::kLargeUtf8: case TypeId::kLargeBinary: {
      const int64_t width = (type.id == TypeId::kLargeUtf8 || type.id == TypeId::kLargeBinary) ? 8 : 4;
      const bool has_offsets = c->buffers[1] != nullptr;
      if (!has_offsets && c->length > 0) return Status::InvalidArgument("missing offsets");
      ASSIGN_OR_RETURN(out.buffers[1], wrap(1, has_offsets ? (end + 1) * width : 0));
      int64_t data_size = 0;
      if (has_offsets) {
        const auto* raw = static_cast<const uint8_t*>(c->buffers[1]);
        if (width == 8) {
          std::memcpy(&data_size, raw + end * 8, 8);
        } else {
          int32_t v;
          std::memcpy(&v, raw + end * 4, 4);
          data_size = v;
        }
      }
      ASSIGN_OR_RETURN(out.buffers[2], wrap(2, data_size));
      break;
    }
    case TypeId::kList: case TypeId::kLargeList: case TypeId::kMap: {
      const int64_t width = type.id == TypeId::kLargeList ? 8 : 4;
      if (c->buffers[1] == nullptr && c->length > 0) return Status::InvalidArgument("missing offsets");
      ASSIGN_OR_RETURN(out.buffers[1], wrap(1, c->buffers[1] ? (end + 1) * width : 0));
      break;
    }
    case TypeId::kFixedSizeList: case TypeId::kStruct:
      break;
    case TypeId::kDictionary: {
      if (!type.index_type || !type.value_type) return Status::InvalidArgument("malformed dictionary type");
      ASSIGN_OR_RETURN(out.buffers[1], wrap(1, CheckedMul(end, type.index_type->BitWidth() / 8)));
      if (c->dictionary == nullptr) return Status::InvalidArgument("dictionary array without a dictionary");
      Result<Array> dict = ImportArrayNode(c->dictionary, *type.value_type, owner, depth + 1);
      if (!dict.ok()) return dict.status().WithContext("dictionary");
      out.dictionary = std::make_shared<Array>(dict.MoveValue());
      break;
    }
    case TypeId::kFixedSizeBinary: {
      ASSIGN_OR_RETURN(out.buffers[1], wrap(1, CheckedMul(end, type.byte_width)));
      break;
    }
    default: {
      const int64_t bits = CheckedMul(end, type.BitWidth());
      ASSIGN_OR_RETURN(out.buffers[1], wrap(1, bits < 0 ? -1 : bit_util::BytesForBits(bits)));
      break;
    }
  }
  for (size_t i = 0; i < nchild; ++i) {
    Result<Array> child = ImportArrayNode(c->children[i], type.children[i].type, owner, depth + 1);
    if (!child.ok()) return child.status().WithContext("child " + std::to_string(i));
    out.children.push_back(child.MoveValue());
  }
  if (!out.buffers[0]) {
    if (c->null_count > 0) return Status::InvalidArgument("nulls without a validity bitmap");
    out.null_count = 0;
  } else {
    out.null_count = out.length - bit_util::CountSetBits(out.buffers[0]->data(), out.offset, out.length);
    if (c->null_count >= 0 && c->null_count != out.null_count) {
      return Status::InvalidArgument("null_count " + std::to_string(c->null_count) + " disagrees with the bitmap");
    }
  }
  return out;
}

Array SliceRows(const Array& a, int64_t begin, int64_t length) {
  Array out = a;
  out.offset = a.offset + begin;
  out.length = length;
  out.null_count = 0;
  if (a.type.id == TypeId::kNull) {
    out.null_count = length;
  } else if (!a.buffers.empty() && a.buffers[0]) {
    out.null_count = length - bit_util::CountSetBits(a.buffers[0]->data(), out.offset, length);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Streams

struct ExportedStream {
  std::unique_ptr<RecordBatchReader> reader;
  std::string last_error;
};

int StreamError(ArrowArrayStream* s, const Status& st) {
  auto* priv = static_cast<ExportedStream*>(s->private_data);
  priv->last_error = st.ToString();
  return st.code() == StatusCode::kNotSupported ? ENOSYS : (st.code() == StatusCode::kIOError ? EIO : EINVAL);
}

int StreamGetSchema(ArrowArrayStream* s, ArrowSchema* out) {
  auto* priv = static_cast<ExportedStream*>(s->private_data);
  Status st = ExportSchema(priv->reader->schema(), out);
  return st.ok() ? 0 : StreamError(s, st);
}

int StreamGetNext(ArrowArrayStream* s, ArrowArray* out) {
  auto* priv = static_cast<ExportedStream*>(s->private_data);
  // Each batch is pulled when the consumer asks, so a scan streams through.
  Result<std::optional<RecordBatch>> next = priv->reader->Next();
  if (!next.ok()) {
    MarkReleased(out);
    return StreamError(s, next.status());
  }
  if (!next->has_value()) {
    MarkReleased(out);  // end of stream
    return 0;
  }
  if ((*next)->schema.fields != priv->reader->schema().fields) {
    MarkReleased(out);
    return StreamError(s, Status::Internal("stream batch schema differs from the stream's"));
  }
  Status st = ExportRecordBatch(**next, out);
  return st.ok() ? 0 : StreamError(s, st);
}

const char* StreamLastError(ArrowArrayStream* s) {
  auto* priv = static_cast<ExportedStream*>(s->private_data);
  return priv->last_error.empty() ? nullptr : priv->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* s) {
  if (s == nullptr || s->release == nullptr) return;
  std::unique_ptr<ExportedStream> priv(static_cast<ExportedStream*>(s->private_data));
  s->release = nullptr;
  s->private_data = nullptr;
}

}  // namespace

Status ExportType(const DataType& type, ArrowSchema* out) { return ExportNode(type, "", true, nullptr, out, 0); }

Status ExportField(const Field& field, ArrowSchema* out) {
  return ExportNode(field.type, field.name, field.nullable, &field.metadata, out, 0);
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  return ExportNode(StructOf(schema.fields), "", false, &schema.metadata, out, 0);
}

Status ExportArray(const Array& array, ArrowArray* out) {
  MarkReleased(out);
  RETURN_IF_ERROR(array.Validate());
  return ExportArrayNode(array, out, 0);
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema) {
  MarkReleased(out);
  if (out_schema) MarkReleased(out_schema);
  if (batch.columns.size() != batch.schema.fields.size()) {
    return Status::InvalidArgument("record batch has " + std::to_string(batch.columns.size()) + " columns for " +
                                   std::to_string(batch.schema.fields.size()) + " fields");
  }
  Array st;
  st.type = StructOf(batch.schema.fields);
  st.length = batch.num_rows;
  st.buffers = {nullptr};
  st.children = batch.columns;
  RETURN_IF_ERROR(ExportArray(st, out));
  if (out_schema) {
    Status s = ExportSchema(batch.schema, out_schema);
    if (!s.ok()) {
      out->release(out);
      return s;
    }
  }
  return Status::OK();
}

Result<Field> ImportField(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return Status::InvalidArgument("schema is already released");
  SchemaReleaser releaser{schema};
  return ImportNode(schema, 0);
}

Result<DataType> ImportType(ArrowSchema* schema) {
  ASSIGN_OR_RETURN(Field f, ImportField(schema));
  return std::move(f.type);
}

Result<Schema> ImportSchema(ArrowSchema* schema) {
  ASSIGN_OR_RETURN(Field f, ImportField(schema));
  if (f.type.id != TypeId::kStruct) return Status::InvalidArgument("a schema must be a struct, got " + f.type.ToString());
  Schema out;
  out.fields = std::move(f.type.children);
  out.metadata = std::move(f.metadata);
  return out;
}

Result<Array> ImportArray(ArrowArray* array, const DataType& type) {
  if (array == nullptr || array->release == nullptr) return Status::InvalidArgument("array is already released");
  auto owner = std::make_shared<ImportedArray>();
  owner->array = *array;
  MarkReleased(array);  // moved: the producer's struct is ours now
  ASSIGN_OR_RETURN(Array out, ImportArrayNode(&owner->array, type, owner, 0));
  Status st = out.Validate();
  if (!st.ok()) return Status::InvalidArgument("imported array is malformed: " + st.message());
  return out;
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, const Schema& schema) {
  ASSIGN_OR_RETURN(Array st, ImportArray(array, StructOf(schema.fields)));
  if (st.null_count != 0) return Status::InvalidArgument("a record batch struct array cannot have null rows");
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = st.length;
  for (const Array& child : st.children) batch.columns.push_back(SliceRows(child, st.offset, st.length));
  return batch;
}

Result<RecordBatch> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  Result<Schema> s = ImportSchema(schema);
  if (!s.ok()) {
    if (array && array->release) array->release(array);
    return s.status();
  }
  return ImportRecordBatch(array, *s);
}

Status ExportBatchStream(Schema schema, std::vector<RecordBatch> batches, ArrowArrayStream* out) {
  std::memset(out, 0, sizeof(*out));
  for (const RecordBatch& b : batches) {
    if (b.schema.fields != schema.fields) return Status::InvalidArgument("stream batch schema differs from the stream's");
  }
  return ExportBatchStream(MakeBatchVectorReader(std::move(schema), std::move(batches)), out);
}

Status ExportBatchStream(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  std::memset(out, 0, sizeof(*out));
  if (!reader) return Status::InvalidArgument("ExportBatchStream needs a reader");
  auto priv = std::make_unique<ExportedStream>();
  priv->reader = std::move(reader);
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamLastError;
  out->release = &StreamRelease;
  out->private_data = priv.release();
  return Status::OK();
}

Result<std::pair<Schema, std::vector<RecordBatch>>> ImportBatchStream(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return Status::InvalidArgument("stream is already released");
  struct StreamReleaser {
    ArrowArrayStream* s;
    ~StreamReleaser() {
      if (s->release) s->release(s);
      s->release = nullptr;
    }
  } releaser{stream};
  auto stream_error = [&](int code, const char* what) {
    const char* msg = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    return Status::IOError(std::string(what) + " failed (" + std::strerror(code) + ")" + (msg ? ": " + std::string(msg) : ""));
  };
  ArrowSchema c_schema;
  MarkReleased(&c_schema);
  if (int rc = stream->get_schema(stream, &c_schema); rc != 0) return stream_error(rc, "get_schema");
  ASSIGN_OR_RETURN(Schema schema, ImportSchema(&c_schema));
  std::vector<RecordBatch> batches;
  while (true) {
    ArrowArray c_array;
    MarkReleased(&c_array);
    if (int rc = stream->get_next(stream, &c_array); rc != 0) return stream_error(rc, "get_next");
    if (c_array.release == nullptr) break;
    Result<RecordBatch> batch = ImportRecordBatch(&c_array, schema);
    if (!batch.ok()) return batch.status().WithContext("batch " + std::to_string(batches.size()));
    batches.push_back(batch.MoveValue());
  }
  return std::make_pair(std::move(schema), std::move(batches));
}

}  // namespace lancet
