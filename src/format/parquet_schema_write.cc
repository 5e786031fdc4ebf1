#include "format/parquet_schema_write.h"

#include <charconv>
#include <cmath>

#include "format/ipc_writer.h"
#include "lancet/format/parquet.h"

namespace lancet::format::parquet {

namespace {

// The stream's end-of-stream marker (continuation, zero length) follows the schema
// message; the footer value is the message alone.
constexpr size_t kEndOfStreamBytes = 8;

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) | static_cast<uint8_t>(bytes[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

TimeUnitKind UnitKind(TimeUnit u) {
  // Parquet has no seconds: they are written as milliseconds (scaled by the writer).
  return u == TimeUnit::kNano    ? TimeUnitKind::kNanos
         : u == TimeUnit::kMicro ? TimeUnitKind::kMicros
                                 : TimeUnitKind::kMillis;
}

LogicalType IntLogical(int8_t bits, bool is_signed) {
  LogicalType t;
  t.kind = LogicalType::Kind::kInteger;
  t.bit_width = bits;
  t.is_signed = is_signed;
  return t;
}

ConvertedType IntConverted(int bits, bool is_signed) {
  switch (bits) {
    case 8:
      return is_signed ? ConvertedType::kInt8 : ConvertedType::kUint8;
    case 16:
      return is_signed ? ConvertedType::kInt16 : ConvertedType::kUint16;
    case 32:
      return is_signed ? ConvertedType::kInt32 : ConvertedType::kUint32;
    default:
      return is_signed ? ConvertedType::kInt64 : ConvertedType::kUint64;
  }
}

class Planner {
 public:
  explicit Planner(SchemaPlan* plan) : plan_(plan) {}

  Status AddField(const Field& field, const std::string& name, bool nullable, uint32_t def, uint32_t rep) {
    SchemaElement e;
    e.name = name;
    e.repetition_type = nullable ? Repetition::kOptional : Repetition::kRequired;
    if (nullable) ++def;
    RETURN_IF_ERROR(FieldId(field, &e));
    path_.push_back(name);
    Status st = AddType(field, field.type, std::move(e), def, rep);
    path_.pop_back();
    return st;
  }

 private:
  static Status FieldId(const Field& field, SchemaElement* e) {
    auto it = field.metadata.find(kParquetFieldIdKey);
    if (it == field.metadata.end()) return Status::OK();
    int32_t id = 0;
    const std::string& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
    if (ec != std::errc() || end != s.data() + s.size()) {
      return Status::InvalidArgument("field '" + field.name + "': " + kParquetFieldIdKey + " '" + s +
                                     "' is not a 32-bit integer");
    }
    e->field_id = id;
    return Status::OK();
  }

  Status AddType(const Field& field, const DataType& type, SchemaElement e, uint32_t def, uint32_t rep) {
    switch (type.id) {
      case TypeId::kStruct: {
        if (type.children.empty()) {
          return Status::InvalidArgument("field '" + field.name + "': Parquet cannot hold a struct without fields");
        }
        e.num_children = static_cast<int32_t>(type.children.size());
        plan_->elements.push_back(std::move(e));
        for (const Field& child : type.children) RETURN_IF_ERROR(AddField(child, child.name, child.nullable, def, rep));
        return Status::OK();
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList: {
        e.num_children = 1;
        e.converted_type = ConvertedType::kList;
        e.logical_type.kind = LogicalType::Kind::kList;
        plan_->elements.push_back(std::move(e));
        AddRepeatedGroup("list", 1);
        path_.push_back("list");
        const Field& item = type.children.at(0);
        Status st = AddField(item, "element", item.nullable, def + 1, rep + 1);
        path_.pop_back();
        return st;
      }
      case TypeId::kMap: {
        const DataType& entries = type.children.at(0).type;
        if (entries.children.size() != 2) {
          return Status::InvalidArgument("field '" + field.name + "': map entries must be a struct of key and value");
        }
        e.num_children = 1;
        e.converted_type = ConvertedType::kMap;
        e.logical_type.kind = LogicalType::Kind::kMap;
        plan_->elements.push_back(std::move(e));
        AddRepeatedGroup("key_value", 2);
        path_.push_back("key_value");
        // Map keys are never null (LogicalTypes.md: the key field is required).
        Status st = AddField(entries.children[0], "key", false, def + 1, rep + 1);
        if (st.ok()) st = AddField(entries.children[1], "value", entries.children[1].nullable, def + 1, rep + 1);
        path_.pop_back();
        return st;
      }
      case TypeId::kDictionary:
        return AddType(field, *type.value_type, std::move(e), def, rep);
      default:
        return AddLeaf(field, type, std::move(e), def, rep);
    }
  }

  void AddRepeatedGroup(const char* name, int32_t children) {
    SchemaElement g;
    g.name = name;
    g.repetition_type = Repetition::kRepeated;
    g.num_children = children;
    plan_->elements.push_back(std::move(g));
  }

  Status AddLeaf(const Field& field, const DataType& type, SchemaElement e, uint32_t def, uint32_t rep) {
    LeafPlan leaf;
    leaf.path = path_;
    leaf.type = type;
    leaf.max_def = def;
    leaf.max_rep = rep;
    LogicalType& lt = e.logical_type;
    switch (type.id) {
      case TypeId::kNull:
        leaf.physical = PhysicalType::kInt32;
        lt.kind = LogicalType::Kind::kUnknown;
        break;
      case TypeId::kBool:
        leaf.physical = PhysicalType::kBoolean;
        leaf.order = SortOrder::kBool;
        break;
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
      case TypeId::kUInt64: {
        const bool is_signed = type.id == TypeId::kInt8 || type.id == TypeId::kInt16;
        leaf.physical = type.BitWidth() == 64 ? PhysicalType::kInt64 : PhysicalType::kInt32;
        leaf.order = is_signed ? SortOrder::kSigned : SortOrder::kUnsigned;
        lt = IntLogical(static_cast<int8_t>(type.BitWidth()), is_signed);
        e.converted_type = IntConverted(type.BitWidth(), is_signed);
        break;
      }
      case TypeId::kInt32:
      case TypeId::kInt64:
        leaf.physical = type.id == TypeId::kInt32 ? PhysicalType::kInt32 : PhysicalType::kInt64;
        leaf.order = SortOrder::kSigned;
        break;
      case TypeId::kDuration:
        // No Parquet logical type; ARROW:schema restores the duration.
        leaf.physical = PhysicalType::kInt64;
        leaf.order = SortOrder::kSigned;
        break;
      case TypeId::kFloat16:
        leaf.physical = PhysicalType::kFixedLenByteArray;
        leaf.type_length = 2;
        leaf.order = SortOrder::kFloat16;
        lt.kind = LogicalType::Kind::kFloat16;
        break;
      case TypeId::kFloat32:
      case TypeId::kFloat64:
        leaf.physical = type.id == TypeId::kFloat32 ? PhysicalType::kFloat : PhysicalType::kDouble;
        leaf.order = SortOrder::kFloat;
        break;
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
        leaf.physical = PhysicalType::kByteArray;
        leaf.order = SortOrder::kBytes;
        lt.kind = LogicalType::Kind::kString;
        e.converted_type = ConvertedType::kUtf8;
        break;
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
        leaf.physical = PhysicalType::kByteArray;
        leaf.order = SortOrder::kBytes;
        break;
      case TypeId::kFixedSizeBinary:
        leaf.physical = PhysicalType::kFixedLenByteArray;
        leaf.type_length = type.byte_width;
        leaf.order = SortOrder::kBytes;
        break;
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        const int32_t max_precision = type.id == TypeId::kDecimal128 ? 38 : 76;
        if (type.precision < 1 || type.precision > max_precision || type.scale < 0 || type.scale > type.precision) {
          return Status::InvalidArgument("field '" + field.name + "': Parquet cannot hold " + type.ToString() +
                                         " (DECIMAL needs 0 <= scale <= precision)");
        }
        leaf.physical = PhysicalType::kFixedLenByteArray;
        leaf.type_length = DecimalByteWidth(type.precision);
        leaf.order = SortOrder::kDecimal;
        lt.kind = LogicalType::Kind::kDecimal;
        lt.precision = type.precision;
        lt.scale = type.scale;
        e.converted_type = ConvertedType::kDecimal;
        e.precision = type.precision;
        e.scale = type.scale;
        break;
      }
      case TypeId::kDate32:
      case TypeId::kDate64:
        // date64 is written as days, like pyarrow; ARROW:schema restores the type.
        leaf.physical = PhysicalType::kInt32;
        leaf.order = SortOrder::kSigned;
        lt.kind = LogicalType::Kind::kDate;
        e.converted_type = ConvertedType::kDate;
        break;
      case TypeId::kTime32:
      case TypeId::kTime64:
        // Arrow times are wall-clock times: isAdjustedToUTC false, which has no converted
        // type (TIME_MILLIS/TIME_MICROS mean UTC-normalized, LogicalTypes.md).
        leaf.physical = type.id == TypeId::kTime32 ? PhysicalType::kInt32 : PhysicalType::kInt64;
        leaf.order = SortOrder::kSigned;
        lt.kind = LogicalType::Kind::kTime;
        lt.unit = UnitKind(type.unit);
        break;
      case TypeId::kTimestamp:
        leaf.physical = PhysicalType::kInt64;
        leaf.order = SortOrder::kSigned;
        lt.kind = LogicalType::Kind::kTimestamp;
        lt.unit = UnitKind(type.unit);
        lt.is_adjusted_to_utc = type.timezone.has_value();
        // The converted types mean UTC-normalized instants, so local times go without.
        if (lt.is_adjusted_to_utc && lt.unit != TimeUnitKind::kNanos) {
          e.converted_type =
              lt.unit == TimeUnitKind::kMillis ? ConvertedType::kTimestampMillis : ConvertedType::kTimestampMicros;
        }
        break;
      default:
        return Status::InvalidArgument("field '" + field.name + "': Parquet cannot hold type " + type.ToString());
    }
    e.type = leaf.physical;
    if (leaf.physical == PhysicalType::kFixedLenByteArray) {
      if (leaf.type_length <= 0) {
        return Status::InvalidArgument("field '" + field.name + "': FIXED_LEN_BYTE_ARRAY needs a positive width");
      }
      e.type_length = leaf.type_length;
    }
    plan_->elements.push_back(std::move(e));
    plan_->leaves.push_back(std::move(leaf));
    return Status::OK();
  }

  SchemaPlan* plan_;
  std::vector<std::string> path_;
};

}  // namespace

int32_t DecimalByteWidth(int32_t precision) {
  // Smallest n with 10^precision - 1 <= 2^(8n - 1) - 1, i.e. 8n - 1 >= precision * log2(10).
  return static_cast<int32_t>(std::ceil((precision * std::log2(10.0) + 1) / 8));
}

Result<SchemaPlan> PlanParquetSchema(const Schema& schema) {
  SchemaPlan plan;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.fields.size());
  plan.elements.push_back(std::move(root));
  Planner planner(&plan);
  for (const Field& f : schema.fields) {
    plan.leaf_begin.push_back(plan.leaves.size());
    RETURN_IF_ERROR(planner.AddField(f, f.name, f.nullable, 0, 0));
  }
  plan.leaf_begin.push_back(plan.leaves.size());
  return plan;
}

Result<std::string> ArrowSchemaFooterValue(const Schema& schema) {
  ASSIGN_OR_RETURN(BufferPtr stream, WriteIpcStream(schema, {}));
  if (stream->size() < kEndOfStreamBytes) return Status::Internal("IPC schema stream too short");
  return Base64(std::string_view(stream->view()).substr(0, stream->size() - kEndOfStreamBytes));
}

}  // namespace lancet::format::parquet
