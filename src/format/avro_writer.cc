// Avro binary encoding and the object container writer.
#include <zlib.h>

#include <cstring>
#include <random>

#include "format/avro_internal.h"

namespace lancet::format::avro {
namespace {

using Kind = Schema::Node::Kind;

// Container magic "Obj" + version 1 (spec, Object Container Files).
constexpr uint8_t kAvroMagic[4] = {'O', 'b', 'j', 1};

void AppendRaw(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }

void AppendBytesField(std::string* out, std::string_view s) {
  AppendLong(out, static_cast<int64_t>(s.size()));
  out->append(s);
}

// Does `value` belong to `node`'s kind? Picks the union branch for a value.
bool Fits(const Schema::Node& node, const Value& value) {
  switch (node.kind) {
    case Kind::kNull:
      return value.is_null();
    case Kind::kBoolean:
      return std::holds_alternative<bool>(value.v);
    case Kind::kInt:
      return std::holds_alternative<int32_t>(value.v);
    case Kind::kLong:
      return std::holds_alternative<int64_t>(value.v) || std::holds_alternative<int32_t>(value.v);
    case Kind::kFloat:
      return std::holds_alternative<float>(value.v);
    case Kind::kDouble:
      return std::holds_alternative<double>(value.v) || std::holds_alternative<float>(value.v);
    case Kind::kString:
      return std::holds_alternative<std::string>(value.v);
    case Kind::kBytes:
    case Kind::kFixed:
      return std::holds_alternative<Bytes>(value.v);
    case Kind::kRecord:
      return std::holds_alternative<Record>(value.v);
    case Kind::kArray:
      return std::holds_alternative<Array>(value.v);
    case Kind::kMap:
      return std::holds_alternative<MapEntries>(value.v);
    case Kind::kUnion:
      return false;
  }
  return false;
}

Status Mismatch(const Schema::Node& node, const std::string& path) {
  return Status::InvalidArgument("Avro value at " + (path.empty() ? std::string("<root>") : path) +
                                 " does not fit type " + KindName(node.kind));
}

Status EncodeNode(const Schema::Node& node, const Value& value, const std::string& path, std::string* out) {
  if (node.kind == Kind::kUnion) {
    for (size_t b = 0; b < node.children.size(); ++b) {
      if (Fits(*node.children[b], value)) {
        AppendLong(out, static_cast<int64_t>(b));
        return EncodeNode(*node.children[b], value, path, out);
      }
    }
    return Status::InvalidArgument("Avro value at " + path + " fits no branch of its union");
  }
  if (!Fits(node, value)) return Mismatch(node, path);
  switch (node.kind) {
    case Kind::kNull:
      return Status::OK();
    case Kind::kBoolean:
      out->push_back(std::get<bool>(value.v) ? 1 : 0);
      return Status::OK();
    case Kind::kInt:
      AppendLong(out, std::get<int32_t>(value.v));
      return Status::OK();
    case Kind::kLong:
      AppendLong(out,
                 std::holds_alternative<int32_t>(value.v) ? std::get<int32_t>(value.v) : std::get<int64_t>(value.v));
      return Status::OK();
    case Kind::kFloat: {
      // Avro floats and doubles are little-endian IEEE 754, as this machine stores them.
      float f = std::get<float>(value.v);
      AppendRaw(out, &f, sizeof f);
      return Status::OK();
    }
    case Kind::kDouble: {
      double d = std::holds_alternative<float>(value.v) ? std::get<float>(value.v) : std::get<double>(value.v);
      AppendRaw(out, &d, sizeof d);
      return Status::OK();
    }
    case Kind::kString:
      AppendBytesField(out, std::get<std::string>(value.v));
      return Status::OK();
    case Kind::kBytes:
      AppendBytesField(out, std::get<Bytes>(value.v).data);
      return Status::OK();
    case Kind::kFixed: {
      const std::string& data = std::get<Bytes>(value.v).data;
      if (static_cast<int64_t>(data.size()) != node.fixed_size) {
        return Status::InvalidArgument("Avro value at " + path + ": fixed " + node.name + " needs " +
                                       std::to_string(node.fixed_size) + " bytes, got " + std::to_string(data.size()));
      }
      out->append(data);
      return Status::OK();
    }
    case Kind::kRecord: {
      const Record& rec = std::get<Record>(value.v);
      for (size_t i = 0; i < node.children.size(); ++i) {
        const std::string child_path = path.empty() ? node.field_names[i] : path + "." + node.field_names[i];
        static const Value kNull;
        const Value* field = rec.Find(node.field_names[i]);
        // An absent field is written as null, which only a nullable field accepts.
        RETURN_IF_ERROR(EncodeNode(*node.children[i], field ? *field : kNull, child_path, out));
      }
      return Status::OK();
    }
    case Kind::kArray: {
      const Array& items = std::get<Array>(value.v);
      if (!items.empty()) {
        AppendLong(out, static_cast<int64_t>(items.size()));
        for (size_t i = 0; i < items.size(); ++i) {
          RETURN_IF_ERROR(EncodeNode(*node.children[0], items[i], path + "[" + std::to_string(i) + "]", out));
        }
      }
      AppendLong(out, 0);
      return Status::OK();
    }
    case Kind::kMap: {
      const MapEntries& entries = std::get<MapEntries>(value.v);
      if (!entries.empty()) {
        AppendLong(out, static_cast<int64_t>(entries.size()));
        for (const auto& [key, v] : entries) {
          AppendBytesField(out, key);
          RETURN_IF_ERROR(EncodeNode(*node.children[0], v, path + "[" + key + "]", out));
        }
      }
      AppendLong(out, 0);
      return Status::OK();
    }
    case Kind::kUnion:
      break;
  }
  return Mismatch(node, path);
}

Result<std::string> RawDeflate(std::string_view in, int level) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  // Negative window bits: a raw RFC 1951 stream without the zlib wrapper, as Avro wants.
  if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("Avro deflate: deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal("Avro deflate: compression did not finish");
  return out;
}

}  // namespace

void AppendLong(std::string* out, int64_t value) {
  uint64_t z = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

const Value* Record::Find(std::string_view name) const {
  for (const auto& [n, v] : fields) {
    if (n == name) return &v;
  }
  return nullptr;
}

bool Value::operator==(const Value& o) const {
  if (v.index() != o.v.index()) return false;
  return std::visit(
      [&o](const auto& a) -> bool {
        using T = std::decay_t<decltype(a)>;
        const T& b = std::get<T>(o.v);
        if constexpr (std::is_same_v<T, Record>) {
          return a.fields == b.fields;
        } else {
          return a == b;
        }
      },
      v);
}

Status Encode(const Schema& schema, const Value& value, std::string* out) {
  return EncodeNode(schema.root(), value, "", out);
}

Writer::~Writer() = default;

Result<std::unique_ptr<Writer>> Writer::Open(std::function<Status(std::span<const uint8_t>)> sink,
                                             std::string schema_json,
                                             std::vector<std::pair<std::string, std::string>> metadata,
                                             const WriteOptions& options) {
  ASSIGN_OR_RETURN(Schema schema, Schema::Parse(schema_json));
  for (const auto& kv : metadata) {
    if (kv.first.starts_with("avro."))
      return Status::InvalidArgument("Avro metadata key '" + kv.first + "' is reserved");
  }
  std::unique_ptr<Writer> w(new Writer());
  w->sink_ = std::move(sink);
  w->schema_ = std::move(schema);
  w->options_ = options;
  std::random_device rd;
  for (auto& b : w->sync_) b = static_cast<uint8_t>(rd());

  std::string header;
  AppendRaw(&header, kAvroMagic, sizeof kAvroMagic);
  AppendLong(&header, static_cast<int64_t>(metadata.size() + 2));
  AppendBytesField(&header, "avro.schema");
  AppendBytesField(&header, schema_json);
  AppendBytesField(&header, "avro.codec");
  AppendBytesField(&header, options.codec == Codec::kDeflate ? "deflate" : "null");
  for (const auto& [key, value] : metadata) {
    AppendBytesField(&header, key);
    AppendBytesField(&header, value);
  }
  AppendLong(&header, 0);
  AppendRaw(&header, w->sync_.data(), w->sync_.size());
  RETURN_IF_ERROR(w->Emit({reinterpret_cast<const uint8_t*>(header.data()), header.size()}));
  return w;
}

Status Writer::Emit(std::span<const uint8_t> bytes) {
  RETURN_IF_ERROR(sink_(bytes));
  bytes_written_ += bytes.size();
  return Status::OK();
}

Status Writer::Append(const Value& datum) {
  if (finished_) return Status::InvalidArgument("Avro writer: Append after Finish");
  const size_t before = block_.size();
  Status st = Encode(schema_, datum, &block_);
  if (!st.ok()) {
    block_.resize(before);  // the block keeps only whole records
    return st;
  }
  ++block_count_;
  ++records_written_;
  if (block_.size() >= options_.block_bytes) return FlushBlock();
  return Status::OK();
}

Status Writer::FlushBlock() {
  if (block_count_ == 0) return Status::OK();
  std::string payload;
  if (options_.codec == Codec::kDeflate) {
    ASSIGN_OR_RETURN(payload, RawDeflate(block_, options_.deflate_level));
  } else {
    payload.swap(block_);
  }
  std::string head;
  AppendLong(&head, static_cast<int64_t>(block_count_));
  AppendLong(&head, static_cast<int64_t>(payload.size()));
  RETURN_IF_ERROR(Emit({reinterpret_cast<const uint8_t*>(head.data()), head.size()}));
  RETURN_IF_ERROR(Emit({reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}));
  RETURN_IF_ERROR(Emit(sync_));
  block_.clear();
  block_count_ = 0;
  return Status::OK();
}

Status Writer::Finish() {
  if (finished_) return Status::OK();
  RETURN_IF_ERROR(FlushBlock());
  finished_ = true;
  return Status::OK();
}

}  // namespace lancet::format::avro
