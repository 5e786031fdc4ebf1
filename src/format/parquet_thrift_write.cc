// Thrift compact protocol encoding of the footer and page headers (writer side of
// parquet_metadata.h). Protocol: Apache Thrift, "Thrift Compact protocol encoding"
// (doc/specs/thrift-compact-protocol.md); field ids are parquet.thrift's.
#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet_metadata.h"
#include "format/parquet_thrift.h"

namespace lancet::format::parquet {

namespace {

using CType = CompactType;

// Field headers carry the id as a delta from the previous field of the same struct,
// so each open struct remembers its last id.
class CompactWriter {
 public:
  std::string Take() { return std::move(out_); }

  void BeginStruct() { last_ids_.push_back(0); }
  void EndStruct() {
    out_.push_back(static_cast<char>(CType::kStop));
    last_ids_.pop_back();
  }

  void FieldI32(int16_t id, int32_t v) {
    FieldHeader(id, CType::kI32);
    Varint(ZigZag(v));
  }
  void FieldI64(int16_t id, int64_t v) {
    FieldHeader(id, CType::kI64);
    Varint(ZigZag(v));
  }
  void FieldI16(int16_t id, int16_t v) {
    FieldHeader(id, CType::kI16);
    Varint(ZigZag(v));
  }
  void FieldByte(int16_t id, int8_t v) {
    FieldHeader(id, CType::kByte);
    out_.push_back(static_cast<char>(v));
  }
  // Booleans live in the field header's type nibble.
  void FieldBool(int16_t id, bool v) { FieldHeader(id, v ? CType::kTrue : CType::kFalse); }
  void FieldBinary(int16_t id, const std::string& v) {
    FieldHeader(id, CType::kBinary);
    Binary(v);
  }
  void FieldStructBegin(int16_t id) {
    FieldHeader(id, CType::kStruct);
    BeginStruct();
  }
  // An empty struct field (union members like StringType).
  void FieldEmptyStruct(int16_t id) {
    FieldStructBegin(id);
    EndStruct();
  }
  void FieldListBegin(int16_t id, CType elem, size_t size) {
    FieldHeader(id, CType::kList);
    if (size < 15) {
      out_.push_back(static_cast<char>((size << 4) | static_cast<uint8_t>(elem)));
    } else {
      out_.push_back(static_cast<char>(0xF0 | static_cast<uint8_t>(elem)));
      Varint(size);
    }
  }

  void I32(int32_t v) { Varint(ZigZag(v)); }
  void Binary(const std::string& v) {
    Varint(v.size());
    out_.append(v);
  }

 private:
  static uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }

  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }

  void FieldHeader(int16_t id, CType type) {
    int16_t& last = last_ids_.back();
    const int delta = id - last;
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | static_cast<uint8_t>(type)));
    } else {
      out_.push_back(static_cast<char>(type));
      Varint(ZigZag(id));
    }
    last = id;
  }

  std::string out_;
  std::vector<int16_t> last_ids_;
};

int32_t E(auto e) { return static_cast<int32_t>(e); }

void WriteStatistics(CompactWriter& w, int16_t id, const Statistics& s) {
  w.FieldStructBegin(id);
  if (s.max) w.FieldBinary(1, *s.max);
  if (s.min) w.FieldBinary(2, *s.min);
  if (s.null_count) w.FieldI64(3, *s.null_count);
  if (s.distinct_count) w.FieldI64(4, *s.distinct_count);
  if (s.max_value) w.FieldBinary(5, *s.max_value);
  if (s.min_value) w.FieldBinary(6, *s.min_value);
  if (s.nan_count) w.FieldI64(9, *s.nan_count);
  w.EndStruct();
}

void WriteKeyValues(CompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  if (kvs.empty()) return;
  w.FieldListBegin(id, CType::kStruct, kvs.size());
  for (const KeyValue& kv : kvs) {
    w.BeginStruct();
    w.FieldBinary(1, kv.key);
    if (kv.value) w.FieldBinary(2, *kv.value);
    w.EndStruct();
  }
}

// union TimeUnit { 1: MILLIS, 2: MICROS, 3: NANOS }
void WriteTimeUnit(CompactWriter& w, int16_t id, TimeUnitKind unit) {
  w.FieldStructBegin(id);
  w.FieldEmptyStruct(unit == TimeUnitKind::kMillis ? 1 : unit == TimeUnitKind::kMicros ? 2 : 3);
  w.EndStruct();
}

void WriteLogicalType(CompactWriter& w, int16_t id, const LogicalType& t) {
  using Kind = LogicalType::Kind;
  w.FieldStructBegin(id);
  switch (t.kind) {
    case Kind::kNone:
      break;
    case Kind::kString:
      w.FieldEmptyStruct(1);
      break;
    case Kind::kMap:
      w.FieldEmptyStruct(2);
      break;
    case Kind::kList:
      w.FieldEmptyStruct(3);
      break;
    case Kind::kEnum:
      w.FieldEmptyStruct(4);
      break;
    case Kind::kDecimal:
      w.FieldStructBegin(5);
      w.FieldI32(1, t.scale);
      w.FieldI32(2, t.precision);
      w.EndStruct();
      break;
    case Kind::kDate:
      w.FieldEmptyStruct(6);
      break;
    case Kind::kTime:
    case Kind::kTimestamp:
      w.FieldStructBegin(t.kind == Kind::kTime ? 7 : 8);
      w.FieldBool(1, t.is_adjusted_to_utc);
      WriteTimeUnit(w, 2, t.unit);
      w.EndStruct();
      break;
    case Kind::kInteger:
      w.FieldStructBegin(10);
      w.FieldByte(1, t.bit_width);
      w.FieldBool(2, t.is_signed);
      w.EndStruct();
      break;
    case Kind::kUnknown:
      w.FieldEmptyStruct(11);
      break;
    case Kind::kJson:
      w.FieldEmptyStruct(12);
      break;
    case Kind::kBson:
      w.FieldEmptyStruct(13);
      break;
    case Kind::kUuid:
      w.FieldEmptyStruct(14);
      break;
    case Kind::kFloat16:
      w.FieldEmptyStruct(15);
      break;
  }
  w.EndStruct();
}

void WriteSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.FieldI32(1, E(*e.type));
  if (e.type_length) w.FieldI32(2, *e.type_length);
  if (e.repetition_type) w.FieldI32(3, E(*e.repetition_type));
  w.FieldBinary(4, e.name);
  if (e.num_children) w.FieldI32(5, *e.num_children);
  if (e.converted_type) w.FieldI32(6, E(*e.converted_type));
  if (e.scale) w.FieldI32(7, *e.scale);
  if (e.precision) w.FieldI32(8, *e.precision);
  if (e.field_id) w.FieldI32(9, *e.field_id);
  if (e.logical_type.kind != LogicalType::Kind::kNone) WriteLogicalType(w, 10, e.logical_type);
  w.EndStruct();
}

void WriteColumnMetaData(CompactWriter& w, int16_t id, const ColumnMetaData& m) {
  w.FieldStructBegin(id);
  w.FieldI32(1, E(m.type));
  w.FieldListBegin(2, CType::kI32, m.encodings.size());
  for (Encoding e : m.encodings) w.I32(E(e));
  w.FieldListBegin(3, CType::kBinary, m.path_in_schema.size());
  for (const std::string& p : m.path_in_schema) w.Binary(p);
  w.FieldI32(4, E(m.codec));
  w.FieldI64(5, m.num_values);
  w.FieldI64(6, m.total_uncompressed_size);
  w.FieldI64(7, m.total_compressed_size);
  WriteKeyValues(w, 8, m.key_value_metadata);
  w.FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) w.FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatistics(w, 12, *m.statistics);
  if (!m.encoding_stats.empty()) {
    w.FieldListBegin(13, CType::kStruct, m.encoding_stats.size());
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.BeginStruct();
      w.FieldI32(1, E(s.page_type));
      w.FieldI32(2, E(s.encoding));
      w.FieldI32(3, s.count);
      w.EndStruct();
    }
  }
  w.EndStruct();
}

void WriteRowGroup(CompactWriter& w, const RowGroup& rg) {
  w.BeginStruct();
  w.FieldListBegin(1, CType::kStruct, rg.columns.size());
  for (const ColumnChunk& c : rg.columns) {
    w.BeginStruct();
    if (c.file_path) w.FieldBinary(1, *c.file_path);
    w.FieldI64(2, c.file_offset);
    if (c.meta_data) WriteColumnMetaData(w, 3, *c.meta_data);
    w.EndStruct();
  }
  w.FieldI64(2, rg.total_byte_size);
  w.FieldI64(3, rg.num_rows);
  if (rg.file_offset) w.FieldI64(5, *rg.file_offset);
  if (rg.total_compressed_size) w.FieldI64(6, *rg.total_compressed_size);
  if (rg.ordinal) w.FieldI16(7, *rg.ordinal);
  w.EndStruct();
}

}  // namespace

std::string EncodeFileMetaData(const FileMetaData& meta) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldI32(1, meta.version);
  w.FieldListBegin(2, CType::kStruct, meta.schema.size());
  for (const SchemaElement& e : meta.schema) WriteSchemaElement(w, e);
  w.FieldI64(3, meta.num_rows);
  w.FieldListBegin(4, CType::kStruct, meta.row_groups.size());
  for (const RowGroup& rg : meta.row_groups) WriteRowGroup(w, rg);
  WriteKeyValues(w, 5, meta.key_value_metadata);
  if (meta.created_by) w.FieldBinary(6, *meta.created_by);
  if (meta.type_defined_order) {
    size_t leaves = 0;
    for (const SchemaElement& e : meta.schema) leaves += e.type.has_value();
    // list<ColumnOrder>, each the union member 1: TypeDefinedOrder.
    w.FieldListBegin(7, CType::kStruct, leaves);
    for (size_t i = 0; i < leaves; ++i) {
      w.BeginStruct();
      w.FieldEmptyStruct(1);
      w.EndStruct();
    }
  }
  w.EndStruct();
  return w.Take();
}

std::string EncodePageHeader(const PageHeader& h) {
  CompactWriter w;
  w.BeginStruct();
  w.FieldI32(1, E(h.type));
  w.FieldI32(2, h.uncompressed_page_size);
  w.FieldI32(3, h.compressed_page_size);
  if (h.crc) w.FieldI32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.FieldStructBegin(5);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, E(d.encoding));
    w.FieldI32(3, E(d.definition_level_encoding));
    w.FieldI32(4, E(d.repetition_level_encoding));
    if (d.statistics) WriteStatistics(w, 5, *d.statistics);
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.FieldStructBegin(7);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, E(d.encoding));
    if (d.is_sorted) w.FieldBool(3, *d.is_sorted);
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.FieldStructBegin(8);
    w.FieldI32(1, d.num_values);
    w.FieldI32(2, d.num_nulls);
    w.FieldI32(3, d.num_rows);
    w.FieldI32(4, E(d.encoding));
    w.FieldI32(5, d.definition_levels_byte_length);
    w.FieldI32(6, d.repetition_levels_byte_length);
    w.FieldBool(7, d.is_compressed);
    if (d.statistics) WriteStatistics(w, 8, *d.statistics);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Take();
}

}  // namespace lancet::format::parquet
