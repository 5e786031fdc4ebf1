#include "format/ipc_reader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "format/flatbuf_reader.h"
#include "format/ipc_internal.h"
#include "lancet/io/object_store.h"

namespace lancet::format {

using namespace ipc;  // NOLINT: constants private to this layer

namespace {

Status Corrupt(const std::string& msg) { return Status::Corruption("arrow ipc: " + msg); }

// ---------------------------------------------------------------------------
// Schema

// What the schema says about one dictionary id.
struct DictionaryInfo {
  DataType value_type;
  // Dictionary ids used inside value_type, in the pre-order in which its arrays
  // are laid out in a dictionary batch.
  std::vector<int64_t> nested_ids;
};

struct DecodedSchema {
  Schema schema;
  // Dictionary ids of the record-batch columns, in field-node pre-order.
  std::vector<int64_t> dict_ids;
  std::map<int64_t, DictionaryInfo> dictionaries;
};

Result<Metadata> DecodeMetadata(const FbTable& table, int slot) {
  Metadata out;
  ASSIGN_OR_RETURN(auto vec, FbVector::Get(table, slot, 4));
  if (!vec) return out;
  for (uint32_t i = 0; i < vec->size(); ++i) {
    ASSIGN_OR_RETURN(FbTable kv, vec->TableAt(i));
    ASSIGN_OR_RETURN(auto key, kv.String(slot::kKeyValueKey));
    ASSIGN_OR_RETURN(auto value, kv.String(slot::kKeyValueValue));
    out[std::string(key.value_or(""))] = std::string(value.value_or(""));
  }
  return out;
}

Result<TimeUnit> DecodeTimeUnit(int16_t v) {
  switch (v) {
    case 0: return TimeUnit::kSecond;
    case 1: return TimeUnit::kMilli;
    case 2: return TimeUnit::kMicro;
    case 3: return TimeUnit::kNano;
    default: return Corrupt("unknown time unit " + std::to_string(v));
  }
}

Result<DataType> DecodeIntType(const std::optional<FbTable>& t) {
  if (!t) return Corrupt("Int type without its table");
  ASSIGN_OR_RETURN(int32_t width, t->Scalar<int32_t>(slot::kIntBitWidth, 0));
  ASSIGN_OR_RETURN(uint8_t is_signed, t->Scalar<uint8_t>(slot::kIntIsSigned, 0));
  switch (width) {
    case 8: return MakeType(is_signed ? TypeId::kInt8 : TypeId::kUInt8);
    case 16: return MakeType(is_signed ? TypeId::kInt16 : TypeId::kUInt16);
    case 32: return MakeType(is_signed ? TypeId::kInt32 : TypeId::kUInt32);
    case 64: return MakeType(is_signed ? TypeId::kInt64 : TypeId::kUInt64);
    default: return Corrupt("bad integer bit width " + std::to_string(width));
  }
}

class SchemaDecoder {
 public:
  // Every Field table we visit costs at least one 4-byte offset, so a budget
  // of buffer_size/4 visits keeps work linear even if hostile bytes share
  // child tables between parents.
  explicit SchemaDecoder(uint64_t fb_size) : budget_(fb_size / 4 + 1) {}

  Result<DecodedSchema> Decode(const FbTable& schema_table) {
    DecodedSchema out;
    ASSIGN_OR_RETURN(int16_t endianness, schema_table.Scalar<int16_t>(slot::kSchemaEndianness, 0));
    if (endianness != 0) return Status::NotSupported("arrow ipc: big-endian data");
    ASSIGN_OR_RETURN(out.schema.metadata, DecodeMetadata(schema_table, slot::kSchemaCustomMetadata));
    ASSIGN_OR_RETURN(auto fields, FbVector::Get(schema_table, slot::kSchemaFields, 4));
    if (fields) {
      for (uint32_t i = 0; i < fields->size(); ++i) {
        ASSIGN_OR_RETURN(FbTable f, fields->TableAt(i));
        ASSIGN_OR_RETURN(Field field, DecodeField(f, 0, &out.dict_ids));
        out.schema.fields.push_back(std::move(field));
      }
    }
    out.dictionaries = std::move(dictionaries_);
    return out;
  }

 private:
  Result<Field> DecodeField(const FbTable& t, int depth, std::vector<int64_t>* dict_ids) {
    if (depth > kMaxNestingDepth) return Corrupt("type nesting deeper than " + std::to_string(kMaxNestingDepth));
    if (budget_ == 0) return Corrupt("schema has more fields than its size allows");
    --budget_;
    Field field;
    ASSIGN_OR_RETURN(auto name, t.String(slot::kFieldName));
    field.name = std::string(name.value_or(""));
    ASSIGN_OR_RETURN(uint8_t nullable, t.Scalar<uint8_t>(slot::kFieldNullable, 0));
    field.nullable = nullable != 0;
    ASSIGN_OR_RETURN(field.metadata, DecodeMetadata(t, slot::kFieldCustomMetadata));
    ASSIGN_OR_RETURN(auto dict, t.Table(slot::kFieldDictionary));

    // A dictionary field's children belong to its value type, whose arrays live
    // in dictionary batches, so their dictionary ids are tracked separately.
    std::vector<int64_t> nested_ids;
    ASSIGN_OR_RETURN(DataType type, DecodeType(t, depth, dict ? &nested_ids : dict_ids));
    if (!dict) {
      field.type = std::move(type);
      return field;
    }
    ASSIGN_OR_RETURN(int64_t id, dict->Scalar<int64_t>(slot::kDictId, 0));
    ASSIGN_OR_RETURN(auto index_table, dict->Table(slot::kDictIndexType));
    DataType index_type = MakeType(TypeId::kInt32);
    if (index_table) {
      ASSIGN_OR_RETURN(index_type, DecodeIntType(index_table));
    }
    auto it = dictionaries_.find(id);
    if (it != dictionaries_.end()) {
      if (it->second.value_type != type) return Corrupt("dictionary id " + std::to_string(id) + " reused");
    } else {
      dictionaries_[id] = DictionaryInfo{type, std::move(nested_ids)};
    }
    dict_ids->push_back(id);
    field.type = MakeType(TypeId::kDictionary);
    field.type.index_type = std::make_shared<DataType>(std::move(index_type));
    field.type.value_type = std::make_shared<DataType>(std::move(type));
    return field;
  }

  Result<std::vector<Field>> DecodeChildren(const FbTable& t, int depth, std::vector<int64_t>* dict_ids) {
    std::vector<Field> children;
    ASSIGN_OR_RETURN(auto vec, FbVector::Get(t, slot::kFieldChildren, 4));
    if (!vec) return children;
    for (uint32_t i = 0; i < vec->size(); ++i) {
      ASSIGN_OR_RETURN(FbTable c, vec->TableAt(i));
      ASSIGN_OR_RETURN(Field child, DecodeField(c, depth + 1, dict_ids));
      children.push_back(std::move(child));
    }
    return children;
  }

  Result<DataType> DecodeType(const FbTable& field, int depth, std::vector<int64_t>* dict_ids) {
    ASSIGN_OR_RETURN(uint8_t tag, field.Scalar<uint8_t>(slot::kFieldTypeType, 0));
    ASSIGN_OR_RETURN(auto tt, field.Table(slot::kFieldType));
    ASSIGN_OR_RETURN(std::vector<Field> children, DecodeChildren(field, depth, dict_ids));
    auto need_children = [&](size_t n, const char* what) -> Status {
      if (children.size() != n) {
        return Corrupt(std::string(what) + " type has " + std::to_string(children.size()) + " children");
      }
      return Status::OK();
    };
    auto need_table = [&](const char* what) -> Status {
      if (!tt) return Corrupt(std::string(what) + " type without its table");
      return Status::OK();
    };
    DataType type;
    switch (static_cast<FbType>(tag)) {
      case FbType::kNull: type = MakeType(TypeId::kNull); break;
      case FbType::kBool: type = MakeType(TypeId::kBool); break;
      case FbType::kUtf8: type = MakeType(TypeId::kUtf8); break;
      case FbType::kLargeUtf8: type = MakeType(TypeId::kLargeUtf8); break;
      case FbType::kBinary: type = MakeType(TypeId::kBinary); break;
      case FbType::kLargeBinary: type = MakeType(TypeId::kLargeBinary); break;
      case FbType::kInt: {
        ASSIGN_OR_RETURN(type, DecodeIntType(tt));
        break;
      }
      case FbType::kFloatingPoint: {
        RETURN_IF_ERROR(need_table("FloatingPoint"));
        ASSIGN_OR_RETURN(int16_t precision, tt->Scalar<int16_t>(slot::kFloatPrecision, 0));
        if (precision < 0 || precision > 2) return Corrupt("bad float precision " + std::to_string(precision));
        type = MakeType(precision == 0 ? TypeId::kFloat16 : precision == 1 ? TypeId::kFloat32 : TypeId::kFloat64);
        break;
      }
      case FbType::kDecimal: {
        RETURN_IF_ERROR(need_table("Decimal"));
        ASSIGN_OR_RETURN(int32_t precision, tt->Scalar<int32_t>(slot::kDecimalPrecision, 0));
        ASSIGN_OR_RETURN(int32_t scale, tt->Scalar<int32_t>(slot::kDecimalScale, 0));
        ASSIGN_OR_RETURN(int32_t width, tt->Scalar<int32_t>(slot::kDecimalBitWidth, 128));
        if (width != 128 && width != 256) {
          return Status::NotSupported("arrow ipc: decimal bit width " + std::to_string(width));
        }
        type = MakeType(width == 128 ? TypeId::kDecimal128 : TypeId::kDecimal256);
        type.precision = precision;
        type.scale = scale;
        break;
      }
      case FbType::kDate: {
        int16_t unit = 1;  // Schema.fbs default: MILLISECOND
        if (tt) {
          ASSIGN_OR_RETURN(unit, tt->Scalar<int16_t>(slot::kDateUnit, 1));
        }
        if (unit != 0 && unit != 1) return Corrupt("bad date unit " + std::to_string(unit));
        type = MakeType(unit == 0 ? TypeId::kDate32 : TypeId::kDate64);
        break;
      }
      case FbType::kTime: {
        int16_t unit = 1;
        int32_t width = 32;
        if (tt) {
          ASSIGN_OR_RETURN(unit, tt->Scalar<int16_t>(slot::kTimeUnit, 1));
          ASSIGN_OR_RETURN(width, tt->Scalar<int32_t>(slot::kTimeBitWidth, 32));
        }
        ASSIGN_OR_RETURN(TimeUnit u, DecodeTimeUnit(unit));
        bool small = u == TimeUnit::kSecond || u == TimeUnit::kMilli;
        if (width != (small ? 32 : 64)) return Corrupt("time unit does not match bit width");
        type = MakeType(small ? TypeId::kTime32 : TypeId::kTime64);
        type.unit = u;
        break;
      }
      case FbType::kTimestamp: {
        RETURN_IF_ERROR(need_table("Timestamp"));
        ASSIGN_OR_RETURN(int16_t unit, tt->Scalar<int16_t>(slot::kTimestampUnit, 0));
        ASSIGN_OR_RETURN(TimeUnit u, DecodeTimeUnit(unit));
        ASSIGN_OR_RETURN(auto tz, tt->String(slot::kTimestampTimezone));
        type = TimestampType(u, tz ? std::optional<std::string>(std::string(*tz)) : std::nullopt);
        break;
      }
      case FbType::kDuration: {
        int16_t unit = 1;
        if (tt) {
          ASSIGN_OR_RETURN(unit, tt->Scalar<int16_t>(slot::kDurationUnit, 1));
        }
        type = MakeType(TypeId::kDuration);
        ASSIGN_OR_RETURN(type.unit, DecodeTimeUnit(unit));
        break;
      }
      case FbType::kFixedSizeBinary: {
        RETURN_IF_ERROR(need_table("FixedSizeBinary"));
        type = MakeType(TypeId::kFixedSizeBinary);
        ASSIGN_OR_RETURN(type.byte_width, tt->Scalar<int32_t>(slot::kFixedSizeBinaryWidth, 0));
        // BitWidth() is byte_width * 8 in an int, so bound it to stay representable.
        if (type.byte_width <= 0 || type.byte_width > (1 << 27)) {
          return Corrupt("bad fixed_size_binary width " + std::to_string(type.byte_width));
        }
        break;
      }
      case FbType::kList:
      case FbType::kLargeList:
        RETURN_IF_ERROR(need_children(1, "list"));
        type = static_cast<FbType>(tag) == FbType::kList ? ListOf(std::move(children[0]))
                                                         : LargeListOf(std::move(children[0]));
        return type;
      case FbType::kFixedSizeList: {
        RETURN_IF_ERROR(need_table("FixedSizeList"));
        RETURN_IF_ERROR(need_children(1, "fixed_size_list"));
        ASSIGN_OR_RETURN(int32_t size, tt->Scalar<int32_t>(slot::kFixedSizeListSize, 0));
        if (size < 0) return Corrupt("negative fixed_size_list size");
        return FixedSizeListOf(std::move(children[0]), size);
      }
      case FbType::kStruct:
        return StructOf(std::move(children));
      case FbType::kMap: {
        RETURN_IF_ERROR(need_children(1, "map"));
        if (children[0].type.id != TypeId::kStruct || children[0].type.children.size() != 2) {
          return Corrupt("map entries must be a struct of key and value");
        }
        type = MakeType(TypeId::kMap);
        if (tt) {
          ASSIGN_OR_RETURN(uint8_t sorted, tt->Scalar<uint8_t>(slot::kMapKeysSorted, 0));
          type.keys_sorted = sorted != 0;
        }
        type.children = std::move(children);
        return type;
      }
      case FbType::kNone: return Corrupt("field without a type");
      default: return Status::NotSupported("arrow ipc: type tag " + std::to_string(tag));
    }
    RETURN_IF_ERROR(need_children(0, type.ToString().c_str()));
    return type;
  }

  uint64_t budget_;
  std::map<int64_t, DictionaryInfo> dictionaries_;
};

Result<DecodedSchema> DecodeSchemaTable(const FbTable& t) {
  return SchemaDecoder(t.buffer().size()).Decode(t);
}

// ---------------------------------------------------------------------------
// Messages

struct Message {
  int16_t version = 0;
  MessageHeader type = MessageHeader::kNone;
  FbTable header;
  BufferPtr body;
};

// Parses a Message flatbuffer; `body_start`/`body_avail` say where its body may lie in `bytes`.
Result<Message> ParseMessage(const BufferPtr& bytes, std::span<const uint8_t> metadata, uint64_t body_start,
                             uint64_t body_avail) {
  ASSIGN_OR_RETURN(FbTable m, FbTable::Root(metadata));
  Message out;
  ASSIGN_OR_RETURN(out.version, m.Scalar<int16_t>(slot::kMessageVersion, 0));
  if (out.version < kMetadataV4) {
    return Status::NotSupported("arrow ipc: metadata version " + std::to_string(out.version + 1) + " (before V4)");
  }
  ASSIGN_OR_RETURN(uint8_t tag, m.Scalar<uint8_t>(slot::kMessageHeaderType, 0));
  out.type = static_cast<MessageHeader>(tag);
  ASSIGN_OR_RETURN(auto header, m.Table(slot::kMessageHeader));
  if (!header) return Corrupt("message without a header");
  out.header = *header;
  ASSIGN_OR_RETURN(int64_t body_length, m.Scalar<int64_t>(slot::kMessageBodyLength, 0));
  if (body_length < 0 || static_cast<uint64_t>(body_length) > body_avail) {
    return Corrupt("message body length " + std::to_string(body_length) + " runs past the end of the data");
  }
  out.body = Buffer::Slice(bytes, body_start, static_cast<uint64_t>(body_length));
  return out;
}

// ---------------------------------------------------------------------------
// Record batches

using DictionaryMap = std::map<int64_t, std::shared_ptr<Array>>;

struct ReadState {
  const IpcReadOptions* options = nullptr;
  uint64_t decompressed = 0;
};

class BatchDecoder {
 public:
  BatchDecoder(const FbTable& batch, BufferPtr body, const DictionaryMap* dicts, ReadState* state)
      : batch_(batch), body_(std::move(body)), dicts_(dicts), state_(state) {}

  Status Init() {
    ASSIGN_OR_RETURN(length_, batch_.Scalar<int64_t>(slot::kBatchLength, 0));
    if (length_ < 0) return Corrupt("negative record batch length");
    ASSIGN_OR_RETURN(auto nodes, FbVector::Get(batch_, slot::kBatchNodes, kFieldNodeSize));
    ASSIGN_OR_RETURN(auto buffers, FbVector::Get(batch_, slot::kBatchBuffers, kBufferSpecSize));
    if (nodes) nodes_ = *nodes;
    if (buffers) buffers_ = *buffers;
    ASSIGN_OR_RETURN(auto compression, batch_.Table(slot::kBatchCompression));
    if (compression) {
      ASSIGN_OR_RETURN(int8_t codec, compression->Scalar<int8_t>(slot::kCompressionCodec, 0));
      ASSIGN_OR_RETURN(int8_t method, compression->Scalar<int8_t>(slot::kCompressionMethod, 0));
      if (method != 0) return Status::NotSupported("arrow ipc: body compression method " + std::to_string(method));
      if (codec != 0 && codec != 1) return Status::NotSupported("arrow ipc: compression codec " + std::to_string(codec));
      codec_ = static_cast<Codec>(codec);
    }
    return Status::OK();
  }

  int64_t length() const { return length_; }

  /// Decodes the next array of `type`; dictionary fields take ids from `ids`.
  Result<Array> DecodeArray(const DataType& type, const std::vector<int64_t>& ids, size_t* id_pos, int depth) {
    if (depth > kMaxNestingDepth) return Corrupt("array nesting too deep");
    if (node_pos_ >= nodes_.size()) return Corrupt("record batch has too few field nodes");
    const uint8_t* node = nodes_.StructAt(node_pos_++);
    Array a;
    a.type = type;
    a.length = LoadLE<int64_t>(node);
    a.null_count = LoadLE<int64_t>(node + 8);
    if (a.length < 0 || a.null_count < 0 || a.null_count > a.length) {
      return Corrupt("field node has length " + std::to_string(a.length) + " and null count " +
                     std::to_string(a.null_count));
    }
    if (type.id == TypeId::kNull) {
      // The null type has no buffers in IPC, and every slot is null.
      a.null_count = a.length;
      return a;
    }
    ASSIGN_OR_RETURN(BufferPtr validity, NextBuffer());
    // Writers may omit the bitmap when nothing is null; with no nulls we drop
    // any bitmap so consumers need not consult it.
    a.buffers.push_back(a.null_count > 0 ? validity : nullptr);
    switch (type.id) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary: {
        ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer());
        ASSIGN_OR_RETURN(BufferPtr data, NextBuffer());
        a.buffers.push_back(EmptyOffsetsFix(a, std::move(offsets), type.IsLargeBinaryLike() ? 8 : 4));
        a.buffers.push_back(std::move(data));
        break;
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap: {
        ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer());
        a.buffers.push_back(EmptyOffsetsFix(a, std::move(offsets), type.id == TypeId::kLargeList ? 8 : 4));
        ASSIGN_OR_RETURN(Array child, DecodeArray(type.children[0].type, ids, id_pos, depth + 1));
        a.children.push_back(std::move(child));
        break;
      }
      case TypeId::kFixedSizeList:
      case TypeId::kStruct:
        for (const Field& f : type.children) {
          ASSIGN_OR_RETURN(Array child, DecodeArray(f.type, ids, id_pos, depth + 1));
          a.children.push_back(std::move(child));
        }
        break;
      case TypeId::kDictionary: {
        ASSIGN_OR_RETURN(BufferPtr indices, NextBuffer());
        a.buffers.push_back(std::move(indices));
        if (*id_pos >= ids.size()) return Status::Internal("arrow ipc: dictionary id bookkeeping out of step");
        int64_t id = ids[(*id_pos)++];
        auto it = dicts_->find(id);
        if (it == dicts_->end()) return Corrupt("no dictionary batch for dictionary id " + std::to_string(id));
        a.dictionary = it->second;
        break;
      }
      default: {
        ASSIGN_OR_RETURN(BufferPtr values, NextBuffer());
        a.buffers.push_back(std::move(values));
        break;
      }
    }
    return a;
  }

 private:
  // An empty array may come with no offsets at all; give it the single zero
  // offset that consumers (GetView, ListRange) expect to be able to read.
  static BufferPtr EmptyOffsetsFix(const Array& a, BufferPtr offsets, size_t width) {
    if (a.length == 0 && offsets->size() < width) {
      static const BufferPtr kZeros = Buffer::Copy(std::string_view("\0\0\0\0\0\0\0\0", 8));
      return kZeros;
    }
    return offsets;
  }

  Result<BufferPtr> NextBuffer() {
    if (buffer_pos_ >= buffers_.size()) return Corrupt("record batch has too few buffers");
    const uint8_t* spec = buffers_.StructAt(buffer_pos_++);
    int64_t offset = LoadLE<int64_t>(spec);
    int64_t length = LoadLE<int64_t>(spec + 8);
    if (offset < 0 || length < 0 || static_cast<uint64_t>(offset) > body_->size() ||
        static_cast<uint64_t>(length) > body_->size() - static_cast<uint64_t>(offset)) {
      return Corrupt("buffer [" + std::to_string(offset) + ", +" + std::to_string(length) +
                     ") lies outside the message body of " + std::to_string(body_->size()) + " bytes");
    }
    if (length == 0) return BufferPtr(Buffer::Empty());
    BufferPtr raw = Buffer::Slice(body_, static_cast<uint64_t>(offset), static_cast<uint64_t>(length));
    if (codec_) {
      if (raw->size() < 8) return Corrupt("compressed buffer shorter than its length prefix");
      int64_t uncompressed = LoadLE<int64_t>(raw->data());
      BufferPtr payload = Buffer::Slice(raw, 8, raw->size() - 8);
      if (uncompressed == kUncompressedMarker) {
        raw = std::move(payload);
      } else {
        if (uncompressed < 0) return Corrupt("negative uncompressed buffer length");
        uint64_t want = static_cast<uint64_t>(uncompressed);
        if (want > state_->options->max_decompressed_bytes - state_->decompressed) {
          return Corrupt("decompressed bodies exceed the limit of " +
                         std::to_string(state_->options->max_decompressed_bytes) + " bytes");
        }
        ASSIGN_OR_RETURN(raw, Decompress(*codec_, payload->span(), want));
        state_->decompressed += want;
        return raw;
      }
    }
    // Typed access to values needs natural alignment; hostile or legacy files
    // may not honour the spec's 8-byte alignment, so copy those buffers.
    if (reinterpret_cast<uintptr_t>(raw->data()) % kAlignment != 0) return BufferPtr(Buffer::Copy(raw->span()));
    return raw;
  }

  FbTable batch_;
  BufferPtr body_;
  const DictionaryMap* dicts_;
  ReadState* state_;
  int64_t length_ = 0;
  FbVector nodes_, buffers_;
  uint32_t node_pos_ = 0, buffer_pos_ = 0;
  std::optional<Codec> codec_;
};

// Holds the decoded schema and the current dictionaries while messages arrive.
class IpcDecoder {
 public:
  IpcDecoder(DecodedSchema schema, const IpcReadOptions* options, bool is_file, bool limit_per_message)
      : schema_(std::move(schema)), is_file_(is_file), limit_per_message_(limit_per_message) {
    state_.options = options;
  }

  const Schema& schema() const { return schema_.schema; }

  Status OnDictionaryBatch(const Message& m) {
    if (limit_per_message_) state_.decompressed = 0;
    ASSIGN_OR_RETURN(int64_t id, m.header.Scalar<int64_t>(slot::kDictBatchId, 0));
    ASSIGN_OR_RETURN(uint8_t is_delta, m.header.Scalar<uint8_t>(slot::kDictBatchIsDelta, 0));
    ASSIGN_OR_RETURN(auto data, m.header.Table(slot::kDictBatchData));
    if (!data) return Corrupt("dictionary batch without data");
    auto info = schema_.dictionaries.find(id);
    if (info == schema_.dictionaries.end()) return Corrupt("dictionary batch for unknown id " + std::to_string(id));
    BatchDecoder dec(*data, m.body, &dicts_, &state_);
    RETURN_IF_ERROR(dec.Init());
    size_t id_pos = 0;
    ASSIGN_OR_RETURN(Array values, dec.DecodeArray(info->second.value_type, info->second.nested_ids, &id_pos, 0));
    if (values.length != dec.length()) return Corrupt("dictionary batch length does not match its values");
    RETURN_IF_ERROR(values.Validate());
    auto existing = dicts_.find(id);
    if (is_delta && existing != dicts_.end()) {
      ASSIGN_OR_RETURN(Array merged, Concatenate({*existing->second, values}));
      values = std::move(merged);
    } else if (!is_delta && existing != dicts_.end() && is_file_) {
      return Status::NotSupported("arrow ipc: dictionary replacement in an IPC file");
    }
    dicts_[id] = std::make_shared<Array>(std::move(values));
    return Status::OK();
  }

  Result<RecordBatch> OnRecordBatch(const Message& m) {
    if (limit_per_message_) state_.decompressed = 0;
    BatchDecoder dec(m.header, m.body, &dicts_, &state_);
    RETURN_IF_ERROR(dec.Init());
    RecordBatch batch;
    batch.schema = schema_.schema;
    batch.num_rows = dec.length();
    size_t id_pos = 0;
    for (size_t i = 0; i < schema_.schema.fields.size(); ++i) {
      const Field& f = schema_.schema.fields[i];
      ASSIGN_OR_RETURN(Array col, dec.DecodeArray(f.type, schema_.dict_ids, &id_pos, 0));
      if (col.length != batch.num_rows) {
        return Corrupt("column " + f.name + " has " + std::to_string(col.length) + " rows, batch has " +
                       std::to_string(batch.num_rows));
      }
      Status st = col.Validate();
      if (!st.ok()) return st.WithContext("arrow ipc: column " + f.name);
      batch.columns.push_back(std::move(col));
    }
    return batch;
  }

  // A record batch, or nullopt for a message that only updates dictionaries.
  Result<std::optional<RecordBatch>> OnMessage(const Message& m) {
    switch (m.type) {
      case MessageHeader::kDictionaryBatch:
        RETURN_IF_ERROR(OnDictionaryBatch(m));
        return std::optional<RecordBatch>();
      case MessageHeader::kRecordBatch: {
        ASSIGN_OR_RETURN(RecordBatch b, OnRecordBatch(m));
        return std::optional<RecordBatch>(std::move(b));
      }
      case MessageHeader::kSchema:
        return Corrupt("second schema message");
      default:
        return Status::NotSupported("arrow ipc: message type " + std::to_string(static_cast<int>(m.type)));
    }
  }

 private:
  DecodedSchema schema_;
  bool is_file_;
  bool limit_per_message_;
  ReadState state_;
  DictionaryMap dicts_;
};

// ---------------------------------------------------------------------------
// Framing

// Reads one encapsulated message's prefix at `pos`: returns the flatbuffer
// span and advances *pos past it, or nullopt at an end-of-stream marker.
Result<std::optional<std::span<const uint8_t>>> ReadFramedMetadata(const Buffer& bytes, uint64_t* pos, uint64_t limit) {
  if (limit - *pos < 4) return Corrupt("truncated message length at offset " + std::to_string(*pos));
  uint32_t first = LoadLE<uint32_t>(bytes.data() + *pos);
  int32_t length;
  if (first == kContinuation) {
    if (limit - *pos < 8) return Corrupt("truncated message length at offset " + std::to_string(*pos));
    length = LoadLE<int32_t>(bytes.data() + *pos + 4);
    *pos += 8;
  } else {
    // Pre-1.0 framing: the length comes without the continuation marker.
    length = static_cast<int32_t>(first);
    *pos += 4;
  }
  if (length == 0) return std::optional<std::span<const uint8_t>>();
  if (length < 0 || static_cast<uint64_t>(length) > limit - *pos) {
    return Corrupt("message metadata length " + std::to_string(length) + " runs past the end of the data");
  }
  std::span<const uint8_t> fb(bytes.data() + *pos, static_cast<size_t>(length));
  *pos += static_cast<uint64_t>(length);
  return std::optional<std::span<const uint8_t>>(fb);
}

Result<DecodedSchema> SchemaFromMessage(const Message& m) {
  if (m.type != MessageHeader::kSchema) return Corrupt("stream does not start with a schema message");
  return DecodeSchemaTable(m.header);
}

// One message pulled off a sequential input: the buffers its header and body view.
struct StreamMessage {
  BufferPtr metadata;
  Message message;
};

// Reads the next message of a stream, or nullopt at the end-of-stream marker or the
// end of the input between messages. `offset` tracks the position for errors.
Result<std::optional<StreamMessage>> ReadStreamMessage(io::InputStream& in, uint64_t* offset) {
  const uint64_t at = *offset;
  ASSIGN_OR_RETURN(BufferPtr prefix, in.Read(4));
  if (prefix->empty()) return std::optional<StreamMessage>();
  if (prefix->size() < 4) return Corrupt("truncated message length at offset " + std::to_string(at));
  *offset += 4;
  uint32_t first = LoadLE<uint32_t>(prefix->data());
  if (first == kContinuation) {
    ASSIGN_OR_RETURN(prefix, in.Read(4));
    if (prefix->size() < 4) return Corrupt("truncated message length at offset " + std::to_string(at));
    *offset += 4;
    first = LoadLE<uint32_t>(prefix->data());
  }
  const auto length = static_cast<int32_t>(first);
  if (length == 0) return std::optional<StreamMessage>();
  if (length < 0) return Corrupt("negative message metadata length at offset " + std::to_string(at));
  StreamMessage out;
  ASSIGN_OR_RETURN(out.metadata, in.Read(static_cast<uint64_t>(length)));
  if (out.metadata->size() < static_cast<uint64_t>(length)) {
    return Corrupt("message metadata length " + std::to_string(length) + " at offset " + std::to_string(at) +
                   " runs past the end of the data");
  }
  *offset += out.metadata->size();
  // Parsed first with no body to learn the body's length, which the stream then supplies.
  ASSIGN_OR_RETURN(FbTable m, FbTable::Root(out.metadata->span()));
  ASSIGN_OR_RETURN(int64_t body_length, m.Scalar<int64_t>(slot::kMessageBodyLength, 0));
  if (body_length < 0 || static_cast<uint64_t>(body_length) > kMaxAllocation) {
    return Corrupt("message body length " + std::to_string(body_length) + " at offset " + std::to_string(at) +
                   " is out of range");
  }
  ASSIGN_OR_RETURN(BufferPtr body, in.Read(static_cast<uint64_t>(body_length)));
  if (body->size() < static_cast<uint64_t>(body_length)) {
    return Corrupt("message body length " + std::to_string(body_length) + " at offset " + std::to_string(at) +
                   " runs past the end of the data");
  }
  *offset += body->size();
  ASSIGN_OR_RETURN(out.message, ParseMessage(body, out.metadata->span(), 0, body->size()));
  return std::optional<StreamMessage>(std::move(out));
}

class IpcStreamReader final : public RecordBatchReader {
 public:
  static Result<std::unique_ptr<RecordBatchReader>> Open(std::unique_ptr<io::InputStream> in,
                                                         const IpcReadOptions& options, bool limit_per_message) {
    std::unique_ptr<IpcStreamReader> r(new IpcStreamReader(std::move(in), options));
    ASSIGN_OR_RETURN(auto first, ReadStreamMessage(*r->in_, &r->offset_));
    if (!first) return Corrupt("stream has no schema message");
    ASSIGN_OR_RETURN(DecodedSchema schema, SchemaFromMessage(first->message));
    r->decoder_.emplace(std::move(schema), &r->options_, /*is_file=*/false, limit_per_message);
    return std::unique_ptr<RecordBatchReader>(std::move(r));
  }

  const Schema& schema() const override { return decoder_->schema(); }

  Result<std::optional<RecordBatch>> Next() override {
    if (!failed_.ok()) return failed_;
    while (!done_) {
      auto msg = ReadStreamMessage(*in_, &offset_);
      if (!msg.ok()) return Fail(msg.status());
      if (!*msg) break;
      auto batch = decoder_->OnMessage((*msg)->message);
      if (!batch.ok()) return Fail(batch.status());
      if (*batch) return batch;
    }
    done_ = true;
    return std::optional<RecordBatch>();
  }

 private:
  IpcStreamReader(std::unique_ptr<io::InputStream> in, const IpcReadOptions& options)
      : in_(std::move(in)), options_(options) {}
  Status Fail(Status st) {
    failed_ = std::move(st);
    return failed_;
  }

  std::unique_ptr<io::InputStream> in_;
  IpcReadOptions options_;
  std::optional<IpcDecoder> decoder_;
  uint64_t offset_ = 0;
  bool done_ = false;
  Status failed_;
};

struct Block {
  uint64_t offset = 0;
  uint64_t metadata_length = 0;
  uint64_t body_length = 0;
};

struct FileLayout {
  DecodedSchema schema;
  std::vector<Block> dictionaries;
  std::vector<Block> batches;
};

Result<std::vector<Block>> ReadBlocks(const FbTable& footer, int slot, uint64_t data_end) {
  std::vector<Block> out;
  ASSIGN_OR_RETURN(auto vec, FbVector::Get(footer, slot, kBlockSize));
  if (!vec) return out;
  for (uint32_t i = 0; i < vec->size(); ++i) {
    const uint8_t* p = vec->StructAt(i);
    int64_t offset = LoadLE<int64_t>(p);
    int32_t meta = LoadLE<int32_t>(p + 8);
    int64_t body = LoadLE<int64_t>(p + 16);
    if (offset < 0 || meta < 0 || body < 0 || static_cast<uint64_t>(offset) > data_end ||
        static_cast<uint64_t>(meta) > data_end - offset ||
        static_cast<uint64_t>(body) > data_end - offset - static_cast<uint64_t>(meta)) {
      return Corrupt("footer block " + std::to_string(i) + " lies outside the file");
    }
    out.push_back(Block{static_cast<uint64_t>(offset), static_cast<uint64_t>(meta), static_cast<uint64_t>(body)});
  }
  return out;
}

// Reads the magic, the trailer and the footer: a few small reads, whatever the size.
Result<FileLayout> ReadFileLayout(const io::RandomAccessFile& file) {
  // Leading magic padded to 8, then at the end: footer, int32 footer length, magic.
  constexpr uint64_t kTrailer = 4 + kFileMagicSize;
  ASSIGN_OR_RETURN(const uint64_t size, file.Size());
  if (size < 8 + kTrailer) return Corrupt("file too short (" + std::to_string(size) + " bytes)");
  ASSIGN_OR_RETURN(BufferPtr lead, file.ReadAt(0, kFileMagicSize));
  if (std::memcmp(lead->data(), kFileMagic, kFileMagicSize) != 0) return Corrupt("bad leading magic");
  ASSIGN_OR_RETURN(BufferPtr trailer, file.ReadAt(size - kTrailer, kTrailer));
  if (std::memcmp(trailer->data() + 4, kFileMagic, kFileMagicSize) != 0) return Corrupt("bad trailing magic");
  int32_t footer_len = LoadLE<int32_t>(trailer->data());
  if (footer_len <= 0 || static_cast<uint64_t>(footer_len) > size - kTrailer - 8) {
    return Corrupt("footer length " + std::to_string(footer_len) + " out of range");
  }
  uint64_t footer_start = size - kTrailer - static_cast<uint64_t>(footer_len);
  ASSIGN_OR_RETURN(BufferPtr footer_bytes, file.ReadAt(footer_start, static_cast<uint64_t>(footer_len)));
  ASSIGN_OR_RETURN(FbTable footer, FbTable::Root(footer_bytes->span()));
  ASSIGN_OR_RETURN(int16_t version, footer.Scalar<int16_t>(slot::kFooterVersion, 0));
  if (version < kMetadataV4) return Status::NotSupported("arrow ipc: file metadata version before V4");
  ASSIGN_OR_RETURN(auto schema_table, footer.Table(slot::kFooterSchema));
  if (!schema_table) return Corrupt("footer without a schema");
  FileLayout out;
  ASSIGN_OR_RETURN(out.schema, DecodeSchemaTable(*schema_table));
  ASSIGN_OR_RETURN(out.dictionaries, ReadBlocks(footer, slot::kFooterDictionaries, footer_start));
  ASSIGN_OR_RETURN(out.batches, ReadBlocks(footer, slot::kFooterRecordBatches, footer_start));
  // Blocks must not overlap (honest writers never do this); otherwise a small
  // footer could make us decode, and decompress, the same bytes many times.
  std::vector<Block> all = out.dictionaries;
  all.insert(all.end(), out.batches.begin(), out.batches.end());
  std::sort(all.begin(), all.end(), [](const Block& x, const Block& y) { return x.offset < y.offset; });
  uint64_t prev_end = 8;
  for (const Block& blk : all) {
    if (blk.offset < prev_end) return Corrupt("footer blocks overlap or precede the magic");
    prev_end = blk.offset + blk.metadata_length + blk.body_length;
  }
  return out;
}

// One block read on its own: memory holds one message at a time.
Result<Message> ReadBlockMessage(const io::RandomAccessFile& file, const Block& blk) {
  ASSIGN_OR_RETURN(BufferPtr bytes, file.ReadAt(blk.offset, blk.metadata_length + blk.body_length));
  uint64_t pos = 0;
  ASSIGN_OR_RETURN(auto fb, ReadFramedMetadata(*bytes, &pos, blk.metadata_length));
  if (!fb) return Corrupt("footer block points at an end-of-stream marker");
  return ParseMessage(bytes, *fb, blk.metadata_length, blk.body_length);
}

class IpcFileReader final : public RecordBatchReader {
 public:
  static Result<std::unique_ptr<RecordBatchReader>> Open(std::shared_ptr<const io::RandomAccessFile> file,
                                                         const IpcReadOptions& options, bool limit_per_message) {
    ASSIGN_OR_RETURN(FileLayout layout, ReadFileLayout(*file));
    std::unique_ptr<IpcFileReader> r(new IpcFileReader(std::move(file), options));
    r->batches_ = std::move(layout.batches);
    r->decoder_.emplace(std::move(layout.schema), &r->options_, /*is_file=*/true, limit_per_message);
    // The file format has every dictionary before the first batch and never replaces one.
    for (const Block& blk : layout.dictionaries) {
      ASSIGN_OR_RETURN(Message m, ReadBlockMessage(*r->file_, blk));
      if (m.type != MessageHeader::kDictionaryBatch) return Corrupt("dictionary block holds another message type");
      RETURN_IF_ERROR(r->decoder_->OnDictionaryBatch(m));
    }
    return std::unique_ptr<RecordBatchReader>(std::move(r));
  }

  const Schema& schema() const override { return decoder_->schema(); }

  Result<std::optional<RecordBatch>> Next() override {
    if (!failed_.ok()) return failed_;
    if (next_ >= batches_.size()) return std::optional<RecordBatch>();
    auto batch = ReadBatch(batches_[next_++]);
    if (!batch.ok()) {
      failed_ = batch.status();
      return failed_;
    }
    return std::optional<RecordBatch>(std::move(*batch));
  }

 private:
  IpcFileReader(std::shared_ptr<const io::RandomAccessFile> file, const IpcReadOptions& options)
      : file_(std::move(file)), options_(options) {}

  Result<RecordBatch> ReadBatch(const Block& blk) {
    ASSIGN_OR_RETURN(Message m, ReadBlockMessage(*file_, blk));
    if (m.type != MessageHeader::kRecordBatch) return Corrupt("record batch block holds another message type");
    return decoder_->OnRecordBatch(m);
  }

  std::shared_ptr<const io::RandomAccessFile> file_;
  IpcReadOptions options_;
  std::optional<IpcDecoder> decoder_;
  std::vector<Block> batches_;
  size_t next_ = 0;
  Status failed_;
};

// A whole file already in memory, read through views of it.
class BufferFile final : public io::RandomAccessFile {
 public:
  explicit BufferFile(BufferPtr bytes) : bytes_(std::move(bytes)) {}
  const std::string& path() const override { return path_; }
  Result<uint64_t> Size() const override { return bytes_->size(); }
  bool cheap_reads() const override { return true; }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    if (offset > bytes_->size() || length > bytes_->size() - offset) {
      return Corrupt("read of [" + std::to_string(offset) + ", +" + std::to_string(length) + ") past the end");
    }
    return BufferPtr(Buffer::Slice(bytes_, offset, length));
  }

 private:
  BufferPtr bytes_;
  std::string path_ = "buffer";
};

Result<IpcData> DrainReader(Result<std::unique_ptr<RecordBatchReader>> opened) {
  if (!opened.ok()) return opened.status();
  IpcData out;
  out.schema = (*opened)->schema();
  ASSIGN_OR_RETURN(out.batches, ReadAllBatches(**opened));
  return out;
}

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> OpenIpcStreamReader(std::unique_ptr<io::InputStream> in,
                                                               const IpcReadOptions& options) {
  if (!in) return Status::InvalidArgument("arrow ipc: null input");
  return IpcStreamReader::Open(std::move(in), options, /*limit_per_message=*/true);
}

Result<std::unique_ptr<RecordBatchReader>> OpenIpcFileReader(std::shared_ptr<const io::RandomAccessFile> file,
                                                             const IpcReadOptions& options) {
  if (!file) return Status::InvalidArgument("arrow ipc: null file");
  return IpcFileReader::Open(std::move(file), options, /*limit_per_message=*/true);
}

// The whole-buffer readers keep every batch, so their decompression limit is over the
// whole read.
Result<IpcData> ReadIpcFileData(BufferPtr bytes, const IpcReadOptions& options) {
  if (!bytes) return Status::InvalidArgument("arrow ipc: null buffer");
  return DrainReader(IpcFileReader::Open(std::make_shared<BufferFile>(std::move(bytes)), options, false));
}

Result<IpcData> ReadIpcStreamData(BufferPtr bytes, const IpcReadOptions& options) {
  if (!bytes) return Status::InvalidArgument("arrow ipc: null buffer");
  return DrainReader(IpcStreamReader::Open(io::InputStreamFromBuffer(std::move(bytes)), options, false));
}

Result<std::vector<RecordBatch>> ReadIpcFile(BufferPtr bytes) {
  ASSIGN_OR_RETURN(IpcData data, ReadIpcFileData(std::move(bytes)));
  return std::move(data.batches);
}

Result<std::vector<RecordBatch>> ReadIpcStream(BufferPtr bytes) {
  ASSIGN_OR_RETURN(IpcData data, ReadIpcStreamData(std::move(bytes)));
  return std::move(data.batches);
}

Result<Schema> ReadIpcFileSchema(BufferPtr bytes) {
  if (!bytes) return Status::InvalidArgument("arrow ipc: null buffer");
  ASSIGN_OR_RETURN(FileLayout layout, ReadFileLayout(BufferFile(std::move(bytes))));
  return std::move(layout.schema.schema);
}

Result<Schema> ReadIpcStreamSchema(BufferPtr bytes) {
  if (!bytes) return Status::InvalidArgument("arrow ipc: null buffer");
  auto in = io::InputStreamFromBuffer(std::move(bytes));
  uint64_t offset = 0;
  ASSIGN_OR_RETURN(auto first, ReadStreamMessage(*in, &offset));
  if (!first) return Corrupt("stream has no schema message");
  ASSIGN_OR_RETURN(DecodedSchema schema, SchemaFromMessage(first->message));
  return std::move(schema.schema);
}

}  // namespace lancet::format
