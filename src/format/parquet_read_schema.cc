#include "format/parquet_read_schema.h"

#include <utility>

#include "lancet/format/parquet.h"

namespace lancet::format::parquet {
namespace {

// Levels are int16 and their bit widths at most 16; real schemas nest a handful deep.
constexpr int kMaxSchemaDepth = 64;

using LT = LogicalType::Kind;

Status SchemaFail(const std::string& name, const std::string& what) {
  return Status::Corruption("parquet schema: field '" + name + "': " + what);
}

Result<DataType> DecimalType(const SchemaElement& e) {
  int32_t precision = e.logical_type.kind == LT::kDecimal ? e.logical_type.precision : e.precision.value_or(0);
  int32_t scale = e.logical_type.kind == LT::kDecimal ? e.logical_type.scale : e.scale.value_or(0);
  if (precision < 1 || precision > 76 || scale < 0 || scale > precision) {
    return SchemaFail(e.name, "decimal precision " + std::to_string(precision) + ", scale " + std::to_string(scale));
  }
  DataType t = MakeType(precision > 38 ? TypeId::kDecimal256 : TypeId::kDecimal128);
  t.precision = precision;
  t.scale = scale;
  return t;
}

TimeUnit UnitOf(TimeUnitKind k) {
  switch (k) {
    case TimeUnitKind::kMillis:
      return TimeUnit::kMilli;
    case TimeUnitKind::kMicros:
      return TimeUnit::kMicro;
    default:
      return TimeUnit::kNano;
  }
}

DataType TimeType(TypeId id, TimeUnit unit) {
  DataType t = MakeType(id);
  t.unit = unit;
  return t;
}

Result<DataType> IntegerType(const SchemaElement& e, bool is64) {
  const LogicalType& lt = e.logical_type;
  int width = is64 ? 64 : 32;
  bool is_signed = true;
  if (lt.kind == LT::kInteger) {
    width = lt.bit_width;
    is_signed = lt.is_signed;
  } else if (e.converted_type) {
    switch (*e.converted_type) {
      case ConvertedType::kInt8:
        width = 8;
        break;
      case ConvertedType::kInt16:
        width = 16;
        break;
      case ConvertedType::kUint8:
        width = 8;
        is_signed = false;
        break;
      case ConvertedType::kUint16:
        width = 16;
        is_signed = false;
        break;
      case ConvertedType::kUint32:
        width = 32;
        is_signed = false;
        break;
      case ConvertedType::kUint64:
        width = 64;
        is_signed = false;
        break;
      default:
        break;
    }
  }
  if (is64 ? width != 64 : (width != 8 && width != 16 && width != 32)) {
    return SchemaFail(e.name, "INTEGER(" + std::to_string(width) + ") on " + (is64 ? "INT64" : "INT32"));
  }
  switch (width) {
    case 8:
      return MakeType(is_signed ? TypeId::kInt8 : TypeId::kUInt8);
    case 16:
      return MakeType(is_signed ? TypeId::kInt16 : TypeId::kUInt16);
    case 32:
      return MakeType(is_signed ? TypeId::kInt32 : TypeId::kUInt32);
    default:
      return MakeType(is_signed ? TypeId::kInt64 : TypeId::kUInt64);
  }
}

bool IsConverted(const SchemaElement& e, ConvertedType c) { return e.converted_type == c; }

Result<DataType> LeafType(const SchemaElement& e) {
  const LogicalType& lt = e.logical_type;
  if (lt.kind == LT::kUnknown) return MakeType(TypeId::kNull);
  const bool decimal = lt.kind == LT::kDecimal || IsConverted(e, ConvertedType::kDecimal);
  switch (*e.type) {
    case PhysicalType::kBoolean:
      return MakeType(TypeId::kBool);
    case PhysicalType::kInt32:
      if (decimal) return DecimalType(e);
      if (lt.kind == LT::kDate || IsConverted(e, ConvertedType::kDate)) return MakeType(TypeId::kDate32);
      if (lt.kind == LT::kTime || IsConverted(e, ConvertedType::kTimeMillis)) {
        return TimeType(TypeId::kTime32, TimeUnit::kMilli);
      }
      return IntegerType(e, false);
    case PhysicalType::kInt64:
      if (decimal) return DecimalType(e);
      if (lt.kind == LT::kTimestamp) {
        return TimestampType(UnitOf(lt.unit), lt.is_adjusted_to_utc ? std::optional<std::string>("UTC") : std::nullopt);
      }
      // Legacy annotations are UTC-adjusted (LogicalTypes.md, backward compatibility).
      if (IsConverted(e, ConvertedType::kTimestampMillis)) return TimestampType(TimeUnit::kMilli, "UTC");
      if (IsConverted(e, ConvertedType::kTimestampMicros)) return TimestampType(TimeUnit::kMicro, "UTC");
      if (lt.kind == LT::kTime) {
        if (lt.unit == TimeUnitKind::kMillis) return SchemaFail(e.name, "TIME(MILLIS) on INT64");
        return TimeType(TypeId::kTime64, UnitOf(lt.unit));
      }
      if (IsConverted(e, ConvertedType::kTimeMicros)) return TimeType(TypeId::kTime64, TimeUnit::kMicro);
      return IntegerType(e, true);
    case PhysicalType::kInt96:
      return TimestampType(TimeUnit::kNano);
    case PhysicalType::kFloat:
      return MakeType(TypeId::kFloat32);
    case PhysicalType::kDouble:
      return MakeType(TypeId::kFloat64);
    case PhysicalType::kByteArray:
      if (decimal) return DecimalType(e);
      if (lt.kind == LT::kString || lt.kind == LT::kEnum || lt.kind == LT::kJson ||
          IsConverted(e, ConvertedType::kUtf8) || IsConverted(e, ConvertedType::kEnum) ||
          IsConverted(e, ConvertedType::kJson)) {
        return MakeType(TypeId::kUtf8);
      }
      return MakeType(TypeId::kBinary);
    case PhysicalType::kFixedLenByteArray: {
      const int32_t len = e.type_length.value_or(-1);
      if (len < 1 || len >= (1 << 27))
        return SchemaFail(e.name, "FIXED_LEN_BYTE_ARRAY of length " + std::to_string(len));
      if (decimal) {
        ASSIGN_OR_RETURN(DataType t, DecimalType(e));
        if (len > (t.id == TypeId::kDecimal256 ? 32 : 16)) return SchemaFail(e.name, "decimal wider than its type");
        return t;
      }
      if (lt.kind == LT::kFloat16) {
        if (len != 2) return SchemaFail(e.name, "FLOAT16 of length " + std::to_string(len));
        return MakeType(TypeId::kFloat16);
      }
      DataType t = MakeType(TypeId::kFixedSizeBinary);
      t.byte_width = len;
      return t;
    }
  }
  return SchemaFail(e.name, "physical type " + std::to_string(static_cast<int>(*e.type)));
}

class SchemaConverter {
 public:
  explicit SchemaConverter(const FileMetaData& meta) : elements_(meta.schema) {}

  Result<ReadSchema> Run() {
    if (elements_.empty()) return Status::Corruption("parquet schema: no root element");
    const SchemaElement& root = elements_[0];
    const int32_t n = root.num_children.value_or(0);
    if (n < 0 || static_cast<size_t>(n) > elements_.size() - 1) return SchemaFail(root.name, "bad child count");
    pos_ = 1;
    for (int32_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(ReadNode node, Convert(0, 0, 0, 0));
      out_.schema.fields.push_back(node.field);
      out_.fields.push_back(std::move(node));
    }
    if (pos_ != elements_.size()) return Status::Corruption("parquet schema: elements after the root's children");
    return std::move(out_);
  }

 private:
  Result<const SchemaElement*> Next(int depth) {
    if (depth > kMaxSchemaDepth) return Status::Corruption("parquet schema: nested too deep");
    if (pos_ >= elements_.size()) return Status::Corruption("parquet schema: child counts run past the elements");
    const SchemaElement* e = &elements_[pos_++];
    if (e->num_children && (*e->num_children < 0 || static_cast<size_t>(*e->num_children) > elements_.size() - pos_)) {
      return SchemaFail(e->name, "bad child count");
    }
    if (!e->type && !e->num_children) return SchemaFail(e->name, "neither a group nor a primitive");
    return e;
  }

  static Repetition RepetitionOf(const SchemaElement& e) { return e.repetition_type.value_or(Repetition::kRequired); }

  static Metadata FieldMetadata(const SchemaElement& e) {
    Metadata m;
    if (e.field_id) m[kParquetFieldIdKey] = std::to_string(*e.field_id);
    return m;
  }

  // The next element as a field whose slot exists from definition level slot_def, of a
  // parent present at levels (parent_def, parent_rep). Struct members share their
  // struct's slots (a null struct still has a null member), list elements do not.
  Result<ReadNode> Convert(int slot_def, int parent_def, int parent_rep, int depth) {
    ASSIGN_OR_RETURN(const SchemaElement* e, Next(depth));
    const Repetition rep = RepetitionOf(*e);
    if (static_cast<int32_t>(rep) < 0 || static_cast<int32_t>(rep) > static_cast<int32_t>(Repetition::kRepeated)) {
      return Status::NotSupported("parquet schema: field '" + e->name + "' has repetition " +
                                  std::to_string(static_cast<int32_t>(rep)) + " (VECTOR or unknown)");
    }
    if (rep == Repetition::kRepeated) {
      // A bare repeated field is a required list of required elements.
      ASSIGN_OR_RETURN(ReadNode element, Body(*e, parent_def + 1, parent_def + 1, parent_rep + 1, false, depth));
      return ListNode(*e, std::move(element), slot_def, parent_def, parent_rep, false);
    }
    const bool optional = rep == Repetition::kOptional;
    return Body(*e, slot_def, parent_def + (optional ? 1 : 0), parent_rep, optional, depth);
  }

  ReadNode ListNode(const SchemaElement& e, ReadNode element, int slot_def, int def, int rep, bool nullable) {
    ReadNode list;
    list.kind = ReadNode::Kind::kList;
    list.slot_def = static_cast<int16_t>(slot_def);
    list.def_level = static_cast<int16_t>(def);
    list.rep_level = static_cast<int16_t>(rep);
    list.leaf_begin = element.leaf_begin;
    list.leaf_end = element.leaf_end;
    list.field = MakeField(e.name, ListOf(element.field), nullable);
    list.field.metadata = FieldMetadata(e);
    list.children.push_back(std::move(element));
    return list;
  }

  // Element e (already consumed) with the given levels, its repetition already accounted for.
  Result<ReadNode> Body(const SchemaElement& e, int slot_def, int def, int rep, bool nullable, int depth) {
    if (def > INT16_MAX || rep > INT16_MAX) return SchemaFail(e.name, "levels overflow");
    ReadNode node;
    node.slot_def = static_cast<int16_t>(slot_def);
    node.def_level = static_cast<int16_t>(def);
    node.rep_level = static_cast<int16_t>(rep);
    node.leaf_begin = static_cast<int>(out_.leaves.size());
    if (e.type) {
      ASSIGN_OR_RETURN(DataType type, LeafType(e));
      ReadLeaf leaf;
      leaf.path = e.name;
      leaf.physical = *e.type;
      leaf.type_length = e.type_length.value_or(0);
      leaf.max_def = node.def_level;
      leaf.max_rep = node.rep_level;
      leaf.type = type;
      out_.leaves.push_back(std::move(leaf));
      node.leaf_end = node.leaf_begin + 1;
      node.field = MakeField(e.name, std::move(type), nullable);
      node.field.metadata = FieldMetadata(e);
      return node;
    }
    const int32_t n = *e.num_children;
    const bool list = e.logical_type.kind == LT::kList || IsConverted(e, ConvertedType::kList);
    const bool map = e.logical_type.kind == LT::kMap || IsConverted(e, ConvertedType::kMap) ||
                     IsConverted(e, ConvertedType::kMapKeyValue);
    if (list) return ListBody(e, n, slot_def, def, rep, nullable, depth);
    if (map) return MapBody(e, n, slot_def, def, rep, nullable, depth);
    std::vector<Field> fields;
    for (int32_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(ReadNode child, Convert(slot_def, def, rep, depth + 1));
      fields.push_back(child.field);
      node.children.push_back(std::move(child));
    }
    if (n == 0) return Status::NotSupported("parquet schema: empty group '" + e.name + "'");
    node.kind = ReadNode::Kind::kStruct;
    node.leaf_end = static_cast<int>(out_.leaves.size());
    node.field = MakeField(e.name, StructOf(std::move(fields)), nullable);
    node.field.metadata = FieldMetadata(e);
    return node;
  }

  Result<ReadNode> ListBody(const SchemaElement& e, int32_t n, int slot_def, int def, int rep, bool nullable,
                            int depth) {
    if (n != 1) return SchemaFail(e.name, "a LIST group needs exactly one child");
    ASSIGN_OR_RETURN(const SchemaElement* r, Next(depth + 1));
    if (RepetitionOf(*r) != Repetition::kRepeated) {
      return SchemaFail(e.name, "a LIST group's child must be repeated");
    }
    const int rdef = def + 1, rrep = rep + 1;
    ReadNode element;
    // Backward compatibility: a repeated primitive, a repeated group of several fields or
    // one named "array" or "<list>_tuple" is itself the element (2-level lists).
    const bool two_level =
        r->type || r->num_children.value_or(0) != 1 || r->name == "array" || r->name == e.name + "_tuple";
    if (two_level) {
      ASSIGN_OR_RETURN(element, Body(*r, rdef, rdef, rrep, false, depth + 1));
    } else {
      ASSIGN_OR_RETURN(element, Convert(rdef, rdef, rrep, depth + 2));
    }
    return ListNode(e, std::move(element), slot_def, def, rep, nullable);
  }

  Result<ReadNode> MapBody(const SchemaElement& e, int32_t n, int slot_def, int def, int rep, bool nullable,
                           int depth) {
    if (n != 1) return SchemaFail(e.name, "a MAP group needs exactly one child");
    ASSIGN_OR_RETURN(const SchemaElement* kv, Next(depth + 1));
    if (RepetitionOf(*kv) != Repetition::kRepeated || kv->type || *kv->num_children != 2) {
      return SchemaFail(e.name, "a MAP group's child must be a repeated group of key and value");
    }
    const int kdef = def + 1, krep = rep + 1;
    ReadNode entries;
    entries.kind = ReadNode::Kind::kStruct;
    entries.slot_def = entries.def_level = static_cast<int16_t>(kdef);
    entries.rep_level = static_cast<int16_t>(krep);
    entries.leaf_begin = static_cast<int>(out_.leaves.size());
    std::vector<Field> fields;
    for (int i = 0; i < 2; ++i) {
      ASSIGN_OR_RETURN(ReadNode child, Convert(kdef, kdef, krep, depth + 2));
      fields.push_back(child.field);
      entries.children.push_back(std::move(child));
    }
    if (entries.children[0].def_level != kdef || entries.children[0].kind == ReadNode::Kind::kList) {
      return SchemaFail(e.name, "map keys must be required");
    }
    entries.leaf_end = static_cast<int>(out_.leaves.size());
    entries.field = MakeField(kv->name, StructOf(std::move(fields)), false);
    ReadNode map;
    map.kind = ReadNode::Kind::kMap;
    map.slot_def = static_cast<int16_t>(slot_def);
    map.def_level = static_cast<int16_t>(def);
    map.rep_level = static_cast<int16_t>(rep);
    map.leaf_begin = entries.leaf_begin;
    map.leaf_end = entries.leaf_end;
    DataType type = MakeType(TypeId::kMap);
    type.children.push_back(entries.field);
    map.field = MakeField(e.name, std::move(type), nullable);
    map.field.metadata = FieldMetadata(e);
    map.children.push_back(std::move(entries));
    return map;
  }

  const std::vector<SchemaElement>& elements_;
  size_t pos_ = 0;
  ReadSchema out_;
};

}  // namespace

Result<ReadSchema> BuildReadSchema(const FileMetaData& meta) {
  ASSIGN_OR_RETURN(ReadSchema schema, SchemaConverter(meta).Run());
  for (const KeyValue& kv : meta.key_value_metadata) schema.schema.metadata[kv.key] = kv.value.value_or("");
  return schema;
}

}  // namespace lancet::format::parquet
