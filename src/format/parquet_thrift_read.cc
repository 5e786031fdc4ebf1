// Thrift compact protocol decoding of Parquet's footer and page headers (the layout is
// Thrift's TCompactProtocol: varint field headers with id deltas, zigzag integers,
// size-prefixed lists and binaries). Field ids follow parquet.thrift.
#include <cstring>
#include <string>
#include <utility>

#include "format/parquet_metadata.h"
#include "format/parquet_thrift.h"

namespace lancet::format::parquet {
namespace {
// A named namespace too, so unity builds keep these apart from the writer's helpers.
namespace thrift_in {

using CType = CompactType;

// Deeper nesting than Parquet's own structs need (LogicalType inside SchemaElement inside
// FileMetaData is four) only comes from hostile input.
constexpr int kMaxThriftDepth = 16;

class ThriftReader {
 public:
  explicit ThriftReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t pos() const { return pos_; }

  Status Fail(const std::string& what) const {
    return Status::Corruption("parquet thrift: " + what + " at byte " + std::to_string(pos_));
  }

  Result<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) return Fail("truncated varint");
      uint8_t b = bytes_[pos_++];
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    return Fail("varint too long");
  }
  Result<int64_t> Zigzag() {
    ASSIGN_OR_RETURN(uint64_t v, Varint());
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  Result<int32_t> I32() {
    ASSIGN_OR_RETURN(int64_t v, Zigzag());
    if (v < INT32_MIN || v > INT32_MAX) return Fail("i32 out of range");
    return static_cast<int32_t>(v);
  }
  Result<uint8_t> Byte() {
    if (pos_ >= bytes_.size()) return Fail("truncated byte");
    return bytes_[pos_++];
  }
  Result<std::string> Binary() {
    ASSIGN_OR_RETURN(uint64_t n, Varint());
    if (n > bytes_.size() - pos_) return Fail("binary length " + std::to_string(n) + " past the end");
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  // A list header: element type and count. The count is bounded by the bytes left, since
  // every element takes at least one byte.
  Result<std::pair<CType, uint64_t>> ListHeader() {
    ASSIGN_OR_RETURN(uint8_t h, Byte());
    uint64_t n = h >> 4;
    if (n == 15) {
      ASSIGN_OR_RETURN(n, Varint());
    }
    if (n > bytes_.size() - pos_) return Fail("list of " + std::to_string(n) + " elements past the end");
    return std::pair{static_cast<CType>(h & 0x0f), n};
  }

  // Reads a struct's fields, calling on_field(id, type, bool_value) for each; on_field
  // handles the field or returns Skip(type).
  template <typename F>
  Status Struct(F&& on_field) {
    if (++depth_ > kMaxThriftDepth) return Fail("nesting too deep");
    int16_t last_id = 0;
    while (true) {
      ASSIGN_OR_RETURN(uint8_t h, Byte());
      auto type = static_cast<CType>(h & 0x0f);
      if (type == CType::kStop) break;
      int16_t id;
      if (h >> 4) {
        id = static_cast<int16_t>(last_id + (h >> 4));
      } else {
        ASSIGN_OR_RETURN(int64_t v, Zigzag());
        if (v < INT16_MIN || v > INT16_MAX) return Fail("field id out of range");
        id = static_cast<int16_t>(v);
      }
      last_id = id;
      bool_value_ = type == CType::kTrue;
      RETURN_IF_ERROR(on_field(id, type));
    }
    --depth_;
    return Status::OK();
  }

  // The value of a bool field just announced by its header.
  bool BoolField() const { return bool_value_; }

  Status Skip(CType type) {
    switch (type) {
      case CType::kTrue:
      case CType::kFalse:
        return Status::OK();
      case CType::kByte:
        return Byte().status();
      case CType::kI16:
      case CType::kI32:
      case CType::kI64:
        return Varint().status();
      case CType::kDouble:
        if (bytes_.size() - pos_ < 8) return Fail("truncated double");
        pos_ += 8;
        return Status::OK();
      case CType::kBinary:
        return Binary().status();
      case CType::kList:
      case CType::kSet: {
        ASSIGN_OR_RETURN(auto header, ListHeader());
        return SkipElements(header.first, header.second);
      }
      case CType::kMap: {
        ASSIGN_OR_RETURN(uint64_t n, Varint());
        if (n == 0) return Status::OK();
        if (n > bytes_.size() - pos_) return Fail("map past the end");
        ASSIGN_OR_RETURN(uint8_t kv, Byte());
        for (uint64_t i = 0; i < n; ++i) {
          RETURN_IF_ERROR(SkipElements(static_cast<CType>(kv >> 4), 1));
          RETURN_IF_ERROR(SkipElements(static_cast<CType>(kv & 0x0f), 1));
        }
        return Status::OK();
      }
      case CType::kStruct:
        return Struct([this](int16_t, CType t) { return Skip(t); });
      default:
        return Fail("unknown type " + std::to_string(static_cast<int>(type)));
    }
  }

  // Calls read_one() for each element of a list field, after checking its element type.
  template <typename F>
  Status List(CType want, F&& read_one) {
    ASSIGN_OR_RETURN(auto header, ListHeader());
    if (header.first != want) return Fail("unexpected list element type");
    for (uint64_t i = 0; i < header.second; ++i) RETURN_IF_ERROR(read_one());
    return Status::OK();
  }

 private:
  // Elements inside lists and maps: bools are a whole byte there.
  Status SkipElements(CType type, uint64_t n) {
    if (++depth_ > kMaxThriftDepth) return Fail("nesting too deep");
    for (uint64_t i = 0; i < n; ++i) {
      if (type == CType::kTrue || type == CType::kFalse) {
        RETURN_IF_ERROR(Byte().status());
      } else {
        RETURN_IF_ERROR(Skip(type));
      }
    }
    --depth_;
    return Status::OK();
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool bool_value_ = false;
};

// Field readers that check the wire type before reading.
Status ExpectType(ThriftReader& r, CType got, CType want) {
  if (got == want) return Status::OK();
  if ((want == CType::kTrue || want == CType::kFalse) && (got == CType::kTrue || got == CType::kFalse)) {
    return Status::OK();
  }
  return r.Fail("field of wire type " + std::to_string(static_cast<int>(got)) + ", expected " +
                std::to_string(static_cast<int>(want)));
}

template <typename T>
Status ReadI32(ThriftReader& r, CType t, T* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kI32));
  ASSIGN_OR_RETURN(int32_t v, r.I32());
  *out = static_cast<T>(v);
  return Status::OK();
}

template <typename T>
Status ReadOptI32(ThriftReader& r, CType t, std::optional<T>* out) {
  T v{};
  RETURN_IF_ERROR(ReadI32(r, t, &v));
  *out = v;
  return Status::OK();
}

Status ReadI64(ThriftReader& r, CType t, int64_t* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kI64));
  ASSIGN_OR_RETURN(*out, r.Zigzag());
  return Status::OK();
}

Status ReadOptI64(ThriftReader& r, CType t, std::optional<int64_t>* out) {
  int64_t v = 0;
  RETURN_IF_ERROR(ReadI64(r, t, &v));
  *out = v;
  return Status::OK();
}

Status ReadString(ThriftReader& r, CType t, std::string* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kBinary));
  ASSIGN_OR_RETURN(*out, r.Binary());
  return Status::OK();
}

Status ReadOptString(ThriftReader& r, CType t, std::optional<std::string>* out) {
  std::string s;
  RETURN_IF_ERROR(ReadString(r, t, &s));
  *out = std::move(s);
  return Status::OK();
}

Status ReadBool(ThriftReader& r, CType t, bool* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kTrue));
  *out = r.BoolField();
  return Status::OK();
}

Status ReadStatistics(ThriftReader& r, CType t, std::optional<Statistics>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  Statistics s;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadOptString(r, ft, &s.max);
      case 2:
        return ReadOptString(r, ft, &s.min);
      case 3:
        return ReadOptI64(r, ft, &s.null_count);
      case 4:
        return ReadOptI64(r, ft, &s.distinct_count);
      case 5:
        return ReadOptString(r, ft, &s.max_value);
      case 6:
        return ReadOptString(r, ft, &s.min_value);
      default:
        return r.Skip(ft);
    }
  }));
  *out = std::move(s);
  return Status::OK();
}

Status ReadKeyValues(ThriftReader& r, CType t, std::vector<KeyValue>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kList));
  return r.List(CType::kStruct, [&]() -> Status {
    KeyValue kv;
    RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
      switch (id) {
        case 1:
          return ReadString(r, ft, &kv.key);
        case 2:
          return ReadOptString(r, ft, &kv.value);
        default:
          return r.Skip(ft);
      }
    }));
    out->push_back(std::move(kv));
    return Status::OK();
  });
}

// TimeUnit union: 1 MILLIS, 2 MICROS, 3 NANOS (each an empty struct).
Status ReadTimeUnit(ThriftReader& r, CType t, TimeUnitKind* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  return r.Struct([&](int16_t id, CType ft) -> Status {
    if (id == 1) *out = TimeUnitKind::kMillis;
    if (id == 2) *out = TimeUnitKind::kMicros;
    if (id == 3) *out = TimeUnitKind::kNanos;
    return r.Skip(ft);
  });
}

// TimestampType and TimeType: 1 isAdjustedToUTC, 2 unit.
Status ReadTimeLike(ThriftReader& r, CType t, LogicalType* lt) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  return r.Struct([&](int16_t id, CType ft) -> Status {
    if (id == 1) return ReadBool(r, ft, &lt->is_adjusted_to_utc);
    if (id == 2) return ReadTimeUnit(r, ft, &lt->unit);
    return r.Skip(ft);
  });
}

// The LogicalType union; members this reader does not model (VARIANT, GEOMETRY...) leave
// the kind at kNone so the converted/physical type decides.
Status ReadLogicalType(ThriftReader& r, CType t, LogicalType* lt) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  using K = LogicalType::Kind;
  return r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        lt->kind = K::kString;
        return r.Skip(ft);
      case 2:
        lt->kind = K::kMap;
        return r.Skip(ft);
      case 3:
        lt->kind = K::kList;
        return r.Skip(ft);
      case 4:
        lt->kind = K::kEnum;
        return r.Skip(ft);
      case 5:
        lt->kind = K::kDecimal;
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kStruct));
        return r.Struct([&](int16_t fid, CType ftt) -> Status {
          if (fid == 1) return ReadI32(r, ftt, &lt->scale);
          if (fid == 2) return ReadI32(r, ftt, &lt->precision);
          return r.Skip(ftt);
        });
      case 6:
        lt->kind = K::kDate;
        return r.Skip(ft);
      case 7:
        lt->kind = K::kTime;
        return ReadTimeLike(r, ft, lt);
      case 8:
        lt->kind = K::kTimestamp;
        return ReadTimeLike(r, ft, lt);
      case 10:
        lt->kind = K::kInteger;
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kStruct));
        return r.Struct([&](int16_t fid, CType ftt) -> Status {
          if (fid == 1) {
            RETURN_IF_ERROR(ExpectType(r, ftt, CType::kByte));
            ASSIGN_OR_RETURN(uint8_t b, r.Byte());
            lt->bit_width = static_cast<int8_t>(b);
            return Status::OK();
          }
          if (fid == 2) return ReadBool(r, ftt, &lt->is_signed);
          return r.Skip(ftt);
        });
      case 11:
        lt->kind = K::kUnknown;
        return r.Skip(ft);
      case 12:
        lt->kind = K::kJson;
        return r.Skip(ft);
      case 13:
        lt->kind = K::kBson;
        return r.Skip(ft);
      case 14:
        lt->kind = K::kUuid;
        return r.Skip(ft);
      case 15:
        lt->kind = K::kFloat16;
        return r.Skip(ft);
      default:
        return r.Skip(ft);
    }
  });
}

Status ReadSchemaElement(ThriftReader& r, SchemaElement* e) {
  return r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadOptI32(r, ft, &e->type);
      case 2:
        return ReadOptI32(r, ft, &e->type_length);
      case 3:
        return ReadOptI32(r, ft, &e->repetition_type);
      case 4:
        return ReadString(r, ft, &e->name);
      case 5:
        return ReadOptI32(r, ft, &e->num_children);
      case 6:
        return ReadOptI32(r, ft, &e->converted_type);
      case 7:
        return ReadOptI32(r, ft, &e->scale);
      case 8:
        return ReadOptI32(r, ft, &e->precision);
      case 9:
        return ReadOptI32(r, ft, &e->field_id);
      case 10:
        return ReadLogicalType(r, ft, &e->logical_type);
      default:
        return r.Skip(ft);
    }
  });
}

Status ReadColumnMetaData(ThriftReader& r, CType t, std::optional<ColumnMetaData>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  ColumnMetaData m;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &m.type);
      case 2:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kI32, [&]() -> Status {
          ASSIGN_OR_RETURN(int32_t v, r.I32());
          m.encodings.push_back(static_cast<Encoding>(v));
          return Status::OK();
        });
      case 3:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kBinary, [&]() -> Status {
          ASSIGN_OR_RETURN(std::string s, r.Binary());
          m.path_in_schema.push_back(std::move(s));
          return Status::OK();
        });
      case 4:
        return ReadI32(r, ft, &m.codec);
      case 5:
        return ReadI64(r, ft, &m.num_values);
      case 6:
        return ReadI64(r, ft, &m.total_uncompressed_size);
      case 7:
        return ReadI64(r, ft, &m.total_compressed_size);
      case 8:
        return ReadKeyValues(r, ft, &m.key_value_metadata);
      case 9:
        return ReadI64(r, ft, &m.data_page_offset);
      case 10:
        return ReadOptI64(r, ft, &m.index_page_offset);
      case 11:
        return ReadOptI64(r, ft, &m.dictionary_page_offset);
      case 12:
        return ReadStatistics(r, ft, &m.statistics);
      case 13:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kStruct, [&]() -> Status {
          PageEncodingStats s;
          RETURN_IF_ERROR(r.Struct([&](int16_t sid, CType st) -> Status {
            switch (sid) {
              case 1:
                return ReadI32(r, st, &s.page_type);
              case 2:
                return ReadI32(r, st, &s.encoding);
              case 3:
                return ReadI32(r, st, &s.count);
              default:
                return r.Skip(st);
            }
          }));
          m.encoding_stats.push_back(s);
          return Status::OK();
        });
      default:
        return r.Skip(ft);
    }
  }));
  *out = std::move(m);
  return Status::OK();
}

Status ReadRowGroup(ThriftReader& r, RowGroup* g) {
  return r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kStruct, [&]() -> Status {
          ColumnChunk c;
          RETURN_IF_ERROR(r.Struct([&](int16_t cid, CType ct) -> Status {
            switch (cid) {
              case 1:
                return ReadOptString(r, ct, &c.file_path);
              case 2:
                return ReadI64(r, ct, &c.file_offset);
              case 3:
                return ReadColumnMetaData(r, ct, &c.meta_data);
              default:
                return r.Skip(ct);
            }
          }));
          g->columns.push_back(std::move(c));
          return Status::OK();
        });
      case 2:
        return ReadI64(r, ft, &g->total_byte_size);
      case 3:
        return ReadI64(r, ft, &g->num_rows);
      case 5:
        return ReadOptI64(r, ft, &g->file_offset);
      case 6:
        return ReadOptI64(r, ft, &g->total_compressed_size);
      case 7: {
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kI16));
        ASSIGN_OR_RETURN(int64_t v, r.Zigzag());
        g->ordinal = static_cast<int16_t>(v);
        return Status::OK();
      }
      default:
        return r.Skip(ft);
    }
  });
}

Status ReadDataPageHeader(ThriftReader& r, CType t, std::optional<DataPageHeader>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  DataPageHeader h;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &h.num_values);
      case 2:
        return ReadI32(r, ft, &h.encoding);
      case 3:
        return ReadI32(r, ft, &h.definition_level_encoding);
      case 4:
        return ReadI32(r, ft, &h.repetition_level_encoding);
      case 5:
        return ReadStatistics(r, ft, &h.statistics);
      default:
        return r.Skip(ft);
    }
  }));
  *out = std::move(h);
  return Status::OK();
}

Status ReadDictionaryPageHeader(ThriftReader& r, CType t, std::optional<DictionaryPageHeader>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  DictionaryPageHeader h;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &h.num_values);
      case 2:
        return ReadI32(r, ft, &h.encoding);
      case 3: {
        bool b = false;
        RETURN_IF_ERROR(ReadBool(r, ft, &b));
        h.is_sorted = b;
        return Status::OK();
      }
      default:
        return r.Skip(ft);
    }
  }));
  *out = h;
  return Status::OK();
}

Status ReadDataPageHeaderV2(ThriftReader& r, CType t, std::optional<DataPageHeaderV2>* out) {
  RETURN_IF_ERROR(ExpectType(r, t, CType::kStruct));
  DataPageHeaderV2 h;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &h.num_values);
      case 2:
        return ReadI32(r, ft, &h.num_nulls);
      case 3:
        return ReadI32(r, ft, &h.num_rows);
      case 4:
        return ReadI32(r, ft, &h.encoding);
      case 5:
        return ReadI32(r, ft, &h.definition_levels_byte_length);
      case 6:
        return ReadI32(r, ft, &h.repetition_levels_byte_length);
      case 7:
        return ReadBool(r, ft, &h.is_compressed);
      case 8:
        return ReadStatistics(r, ft, &h.statistics);
      default:
        return r.Skip(ft);
    }
  }));
  *out = std::move(h);
  return Status::OK();
}

}  // namespace thrift_in
}  // namespace

using thrift_in::CType;
using thrift_in::ExpectType;
using thrift_in::ReadI32;
using thrift_in::ReadI64;
using thrift_in::ReadKeyValues;
using thrift_in::ReadOptI32;
using thrift_in::ReadOptString;
using thrift_in::ThriftReader;

Result<FileMetaData> DecodeFileMetaData(std::span<const uint8_t> bytes) {
  ThriftReader r(bytes);
  FileMetaData meta;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &meta.version);
      case 2:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kStruct, [&]() -> Status {
          SchemaElement e;
          RETURN_IF_ERROR(ReadSchemaElement(r, &e));
          meta.schema.push_back(std::move(e));
          return Status::OK();
        });
      case 3:
        return ReadI64(r, ft, &meta.num_rows);
      case 4:
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kStruct, [&]() -> Status {
          RowGroup g;
          RETURN_IF_ERROR(ReadRowGroup(r, &g));
          meta.row_groups.push_back(std::move(g));
          return Status::OK();
        });
      case 5:
        return ReadKeyValues(r, ft, &meta.key_value_metadata);
      case 6:
        return ReadOptString(r, ft, &meta.created_by);
      case 7: {
        // column_orders: a list of ColumnOrder unions; TYPE_ORDER is member 1.
        RETURN_IF_ERROR(ExpectType(r, ft, CType::kList));
        return r.List(CType::kStruct, [&]() -> Status {
          return r.Struct([&](int16_t oid, CType ot) -> Status {
            if (oid == 1) meta.type_defined_order = true;
            return r.Skip(ot);
          });
        });
      }
      default:
        return r.Skip(ft);
    }
  }));
  return meta;
}

Result<PageHeader> DecodePageHeader(std::span<const uint8_t> bytes, size_t* consumed) {
  ThriftReader r(bytes);
  PageHeader h;
  RETURN_IF_ERROR(r.Struct([&](int16_t id, CType ft) -> Status {
    switch (id) {
      case 1:
        return ReadI32(r, ft, &h.type);
      case 2:
        return ReadI32(r, ft, &h.uncompressed_page_size);
      case 3:
        return ReadI32(r, ft, &h.compressed_page_size);
      case 4:
        return ReadOptI32(r, ft, &h.crc);
      case 5:
        return ReadDataPageHeader(r, ft, &h.data_page_header);
      case 7:
        return ReadDictionaryPageHeader(r, ft, &h.dictionary_page_header);
      case 8:
        return ReadDataPageHeaderV2(r, ft, &h.data_page_header_v2);
      default:
        return r.Skip(ft);
    }
  }));
  if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0) return r.Fail("negative page size");
  *consumed = r.pos();
  return h;
}

}  // namespace lancet::format::parquet
