// The object container reader: every length and count is checked against the bytes
// left and the ReadOptions bounds before anything is allocated for it.
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "format/avro_internal.h"

namespace lancet::format::avro {
namespace {

using Kind = Schema::Node::Kind;

class AvroCursor {
 public:
  AvroCursor(std::span<const uint8_t> bytes, const ReadOptions& options, uint64_t* values_left)
      : bytes_(bytes), options_(options), values_left_(values_left) {}

  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }

  Result<int64_t> Long() { return ReadLong(bytes_, &pos_); }

  Result<std::string> Blob(const char* what) {
    ASSIGN_OR_RETURN(int64_t n, Long());
    if (n < 0 || static_cast<uint64_t>(n) > left()) {
      return Status::Corruption(std::string("Avro: ") + what + " length " + std::to_string(n) + " at byte " +
                                std::to_string(pos_) + " runs past the data");
    }
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }

  Status Raw(void* dst, size_t n, const char* what) {
    if (n > left())
      return Status::Corruption(std::string("Avro: truncated ") + what + " at byte " + std::to_string(pos_));
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return Status::OK();
  }

  Result<Value> Decode(const Schema::Node& node, int depth) {
    if (depth > options_.max_depth) return Status::Corruption("Avro: values nested deeper than the read limit");
    if (*values_left_ == 0) return Status::Corruption("Avro: more values than the read limit allows");
    --*values_left_;
    switch (node.kind) {
      case Kind::kNull:
        return Value();
      case Kind::kBoolean: {
        uint8_t b = 0;
        RETURN_IF_ERROR(Raw(&b, 1, "boolean"));
        if (b > 1) return Status::Corruption("Avro: boolean byte " + std::to_string(b));
        return Value(b == 1);
      }
      case Kind::kInt: {
        ASSIGN_OR_RETURN(int64_t l, Long());
        if (l < INT32_MIN || l > INT32_MAX) return Status::Corruption("Avro: int out of range: " + std::to_string(l));
        return Value(static_cast<int32_t>(l));
      }
      case Kind::kLong: {
        ASSIGN_OR_RETURN(int64_t l, Long());
        return Value(l);
      }
      case Kind::kFloat: {
        float f = 0;
        RETURN_IF_ERROR(Raw(&f, sizeof f, "float"));
        return Value(f);
      }
      case Kind::kDouble: {
        double d = 0;
        RETURN_IF_ERROR(Raw(&d, sizeof d, "double"));
        return Value(d);
      }
      case Kind::kString: {
        ASSIGN_OR_RETURN(std::string s, Blob("string"));
        return Value(std::move(s));
      }
      case Kind::kBytes: {
        ASSIGN_OR_RETURN(std::string s, Blob("bytes"));
        return Value(Bytes{std::move(s)});
      }
      case Kind::kFixed: {
        if (static_cast<uint64_t>(node.fixed_size) > left())
          return Status::Corruption("Avro: truncated fixed " + node.name);
        std::string s(static_cast<size_t>(node.fixed_size), '\0');
        RETURN_IF_ERROR(Raw(s.data(), s.size(), "fixed"));
        return Value(Bytes{std::move(s)});
      }
      case Kind::kRecord: {
        Record rec;
        for (size_t i = 0; i < node.children.size(); ++i) {
          ASSIGN_OR_RETURN(Value v, Decode(*node.children[i], depth + 1));
          rec.fields.emplace_back(node.field_names[i], std::move(v));
        }
        return Value(std::move(rec));
      }
      case Kind::kUnion: {
        ASSIGN_OR_RETURN(int64_t b, Long());
        if (b < 0 || static_cast<uint64_t>(b) >= node.children.size()) {
          return Status::Corruption("Avro: union branch " + std::to_string(b) + " of " +
                                    std::to_string(node.children.size()));
        }
        return Decode(*node.children[static_cast<size_t>(b)], depth + 1);
      }
      case Kind::kArray:
      case Kind::kMap:
        return DecodeBlocks(node, depth);
    }
    return Status::Corruption("Avro: unknown schema node");
  }

 private:
  // Arrays and maps are runs of blocks; a negative count is followed by the block's size.
  Result<Value> DecodeBlocks(const Schema::Node& node, int depth) {
    Array items;
    MapEntries entries;
    while (true) {
      ASSIGN_OR_RETURN(int64_t count, Long());
      if (count == 0) break;
      if (count < 0) {
        if (count == INT64_MIN) return Status::Corruption("Avro: block count out of range");
        count = -count;
        ASSIGN_OR_RETURN(int64_t size, Long());
        if (size < 0 || static_cast<uint64_t>(size) > left())
          return Status::Corruption("Avro: block size runs past the data");
      }
      // Each item costs at least one value of the budget, so the budget bounds the loop.
      if (static_cast<uint64_t>(count) > *values_left_)
        return Status::Corruption("Avro: more values than the read limit allows");
      for (int64_t i = 0; i < count; ++i) {
        if (node.kind == Kind::kMap) {
          ASSIGN_OR_RETURN(std::string key, Blob("map key"));
          ASSIGN_OR_RETURN(Value v, Decode(*node.children[0], depth + 1));
          entries.emplace_back(std::move(key), std::move(v));
        } else {
          ASSIGN_OR_RETURN(Value v, Decode(*node.children[0], depth + 1));
          items.push_back(std::move(v));
        }
      }
    }
    if (node.kind == Kind::kMap) return Value(std::move(entries));
    return Value(std::move(items));
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  const ReadOptions& options_;
  uint64_t* values_left_;
};

Result<std::string> RawInflate(std::span<const uint8_t> in, uint64_t max_out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -15) != Z_OK) return Status::Internal("Avro inflate: inflateInit2 failed");
  std::string out;
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= max_out) {
      inflateEnd(&zs);
      return Status::Corruption("Avro: a deflate block inflates past the read limit");
    }
    size_t have = out.size();
    size_t grow = std::min<uint64_t>(max_out - have, std::max<size_t>(4096, have));
    out.resize(have + grow);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    zs.avail_out = static_cast<uInt>(grow);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(have + grow - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;
    if (rc != Z_OK && rc != Z_STREAM_END) break;
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Corruption("Avro: a deflate block is malformed or truncated");
  return out;
}

}  // namespace

Result<int64_t> ReadLong(std::span<const uint8_t> bytes, size_t* pos) {
  uint64_t z = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= bytes.size()) return Status::Corruption("Avro: truncated varint at byte " + std::to_string(*pos));
    uint8_t b = bytes[(*pos)++];
    if (shift == 63 && b > 1) return Status::Corruption("Avro: varint overflows 64 bits");
    z |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  return Status::Corruption("Avro: varint longer than 10 bytes");
}

Result<File> ReadFile(std::span<const uint8_t> bytes, const ReadOptions& options) {
  uint64_t values_left = options.max_values;
  AvroCursor header(bytes, options, &values_left);
  uint8_t magic[4] = {};
  RETURN_IF_ERROR(header.Raw(magic, 4, "magic"));
  if (std::memcmp(magic, "Obj\x01", 4) != 0)
    return Status::Corruption("Avro: not an object container file (bad magic)");
  File file;
  while (true) {
    ASSIGN_OR_RETURN(int64_t count, header.Long());
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return Status::Corruption("Avro: header count out of range");
      count = -count;
      ASSIGN_OR_RETURN(int64_t size, header.Long());
      (void)size;
    }
    if (static_cast<uint64_t>(count) > header.left())
      return Status::Corruption("Avro: header map count runs past the data");
    for (int64_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(std::string key, header.Blob("header key"));
      ASSIGN_OR_RETURN(std::string value, header.Blob("header value"));
      file.metadata[std::move(key)] = std::move(value);
    }
  }
  RETURN_IF_ERROR(header.Raw(file.sync.data(), file.sync.size(), "sync marker"));
  auto schema_it = file.metadata.find("avro.schema");
  if (schema_it == file.metadata.end()) return Status::Corruption("Avro: header has no avro.schema");
  file.schema_json = schema_it->second;
  auto schema = Schema::Parse(file.schema_json);
  if (!schema.ok()) {
    if (schema.status().IsNotSupported()) return schema.status();
    return Status::Corruption("Avro: header schema: " + schema.status().message());
  }
  auto codec_it = file.metadata.find("avro.codec");
  std::string codec = codec_it == file.metadata.end() ? "null" : codec_it->second;
  if (codec == "deflate") {
    file.codec = Codec::kDeflate;
  } else if (codec != "null") {
    return Status::NotSupported("Avro: codec '" + codec + "'");
  }

  size_t pos = header.pos();
  while (pos < bytes.size()) {
    AvroCursor block_head(bytes.subspan(pos), options, &values_left);
    ASSIGN_OR_RETURN(int64_t count, block_head.Long());
    ASSIGN_OR_RETURN(int64_t size, block_head.Long());
    if (count < 0 || size < 0 || static_cast<uint64_t>(size) > block_head.left() ||
        static_cast<uint64_t>(size) > options.max_block_bytes) {
      return Status::Corruption("Avro: block at byte " + std::to_string(pos) + " has a bad count or size");
    }
    std::span<const uint8_t> payload = bytes.subspan(pos + block_head.pos(), static_cast<size_t>(size));
    pos += block_head.pos() + static_cast<size_t>(size);
    if (bytes.size() - pos < file.sync.size() ||
        std::memcmp(bytes.data() + pos, file.sync.data(), file.sync.size()) != 0) {
      return Status::Corruption("Avro: block at byte " + std::to_string(pos) + " does not end with the sync marker");
    }
    pos += file.sync.size();
    std::string inflated;
    if (file.codec == Codec::kDeflate) {
      ASSIGN_OR_RETURN(inflated, RawInflate(payload, options.max_block_bytes));
      payload = {reinterpret_cast<const uint8_t*>(inflated.data()), inflated.size()};
    }
    if (static_cast<uint64_t>(count) > values_left)
      return Status::Corruption("Avro: more values than the read limit allows");
    AvroCursor data(payload, options, &values_left);
    for (int64_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(Value v, data.Decode(schema->root(), 0));
      file.records.push_back(std::move(v));
    }
    if (data.left() != 0)
      return Status::Corruption("Avro: block has " + std::to_string(data.left()) + " bytes after its records");
  }
  return file;
}

}  // namespace lancet::format::avro
