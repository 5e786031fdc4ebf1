// ParquetWriter: batches → row groups of column chunks → footer. File layout:
// apache/parquet-format README ("File Format"): "PAR1", column chunks, the thrift
// FileMetaData, its 4-byte little-endian length, "PAR1".
#include <algorithm>
#include <cstring>
#include <utility>

#include "format/parquet_metadata.h"
#include "format/parquet_schema_write.h"
#include "format/parquet_shred.h"
#include "format/parquet_write_column.h"
#include "lancet/format/parquet.h"

namespace lancet::format {

namespace {

using namespace parquet;  // NOLINT: the format's structs, private to this layer

constexpr char kMagic[] = "PAR1";
constexpr size_t kMagicSize = 4;
constexpr char kArrowSchemaKey[] = "ARROW:schema";
constexpr char kCreatedBy[] = "lancet";
// Large batches are taken this many rows at a time, so row_group_bytes is looked at
// within them too.
constexpr int64_t kRowsPerSizeCheck = 65536;

Codec ToCodec(ParquetCompression c) {
  switch (c) {
    case ParquetCompression::kNone:
      return Codec::kUncompressed;
    case ParquetCompression::kSnappy:
      return Codec::kSnappy;
    case ParquetCompression::kGzip:
      return Codec::kGzip;
    case ParquetCompression::kZstd:
      return Codec::kZstd;
    case ParquetCompression::kLz4Raw:
      return Codec::kLz4Raw;
  }
  return Codec::kUncompressed;
}

// The shapes the shredder walks must be the schema's (names and nullability come from
// the schema, the data from the arrays).
bool SameShape(const DataType& a, const DataType& b) {
  if (a.id != b.id || a.children.size() != b.children.size()) return false;
  for (size_t k = 0; k < a.children.size(); ++k) {
    if (!SameShape(a.children[k].type, b.children[k].type)) return false;
  }
  if (a.id == TypeId::kDictionary) return a.value_type && b.value_type && SameShape(*a.value_type, *b.value_type);
  return true;
}

class Writer final : public ParquetWriter {
 public:
  Writer(std::function<Status(std::span<const uint8_t>)> sink, Schema schema, SchemaPlan plan,
         const ParquetWriteOptions& options)
      : sink_(std::move(sink)), schema_(std::move(schema)), plan_(std::move(plan)), options_(options) {
    ColumnWriteOptions column;
    column.codec = ToCodec(options.compression);
    column.compression_level = options.compression_level;
    column.page_bytes = options.page_bytes;
    column.dictionary = options.dictionary;
    column.statistics = options.statistics;
    for (const LeafPlan& leaf : plan_.leaves) columns_.emplace_back(leaf, column);
  }

  Status Start() { return Emit({kMagic, kMagicSize}); }

  Status Write(const RecordBatch& batch) override {
    if (finished_) return Status::InvalidArgument("ParquetWriter::Write after Finish");
    if (batch.columns.size() != schema_.fields.size()) {
      return Status::InvalidArgument("batch has " + std::to_string(batch.columns.size()) + " columns, the schema " +
                                     std::to_string(schema_.fields.size()));
    }
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (batch.columns[c].length != batch.num_rows) {
        return Status::InvalidArgument("column '" + schema_.fields[c].name + "' length differs from the batch's rows");
      }
      if (!SameShape(batch.columns[c].type, schema_.fields[c].type)) {
        return Status::InvalidArgument("column '" + schema_.fields[c].name + "' has type " +
                                       batch.columns[c].type.ToString() + ", the schema " +
                                       schema_.fields[c].type.ToString());
      }
      // The shredder follows offsets and child lengths as they are; a malformed array
      // is refused here rather than read out of bounds.
      Status valid = batch.columns[c].Validate();
      if (!valid.ok()) return Status::InvalidArgument("column '" + schema_.fields[c].name + "': " + valid.message());
    }
    int64_t done = 0;
    while (done < batch.num_rows) {
      const int64_t room = static_cast<int64_t>(options_.row_group_rows - group_rows_);
      const int64_t take = std::min({room, batch.num_rows - done, kRowsPerSizeCheck});
      RETURN_IF_ERROR(AppendRows(batch, done, take));
      done += take;
      if (group_rows_ >= options_.row_group_rows || BufferedBytes() >= options_.row_group_bytes) {
        RETURN_IF_ERROR(FlushRowGroup());
      }
    }
    return Status::OK();
  }

  Status Finish() override {
    if (finished_) return Status::InvalidArgument("ParquetWriter::Finish called twice");
    finished_ = true;
    if (group_rows_ > 0) RETURN_IF_ERROR(FlushRowGroup());
    FileMetaData meta;
    // parquet.thrift: writers should write 1 for the widest reader compatibility.
    meta.version = 1;
    meta.schema = plan_.elements;
    meta.num_rows = total_rows_;
    meta.row_groups = std::move(row_groups_);
    for (const auto& [k, v] : schema_.metadata) meta.key_value_metadata.push_back({k, v});
    for (const auto& [k, v] : options_.key_value_metadata) meta.key_value_metadata.push_back({k, v});
    ASSIGN_OR_RETURN(std::string arrow_schema, ArrowSchemaFooterValue(schema_));
    meta.key_value_metadata.push_back({kArrowSchemaKey, std::move(arrow_schema)});
    meta.created_by = kCreatedBy;
    // parquet.thrift: min_value/max_value are only defined alongside column_orders.
    meta.type_defined_order = options_.statistics;
    const std::string footer = EncodeFileMetaData(meta);
    RETURN_IF_ERROR(Emit(footer));
    const uint32_t length = static_cast<uint32_t>(footer.size());
    char tail[8];
    std::memcpy(tail, &length, 4);
    std::memcpy(tail + 4, kMagic, kMagicSize);
    return Emit({tail, sizeof(tail)});
  }

  uint64_t bytes_written() const override { return bytes_written_; }

 private:
  Status Emit(std::string_view bytes) {
    RETURN_IF_ERROR(sink_({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
    bytes_written_ += bytes.size();
    return Status::OK();
  }

  uint64_t BufferedBytes() const {
    uint64_t n = 0;
    for (const ColumnChunkWriter& c : columns_) n += c.buffered_bytes();
    return n;
  }

  Status AppendRows(const RecordBatch& batch, int64_t begin, int64_t length) {
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      const bool whole = begin == 0 && length == batch.columns[c].length;
      const Array column = whole ? batch.columns[c] : ArraySlice(batch.columns[c], begin, length);
      leaves_.clear();
      RETURN_IF_ERROR(ShredColumn(schema_.fields[c], column, &leaves_));
      const size_t first = plan_.leaf_begin[c];
      if (leaves_.size() != plan_.leaf_begin[c + 1] - first) {
        return Status::Internal("column '" + schema_.fields[c].name + "' shredded into an unexpected leaf count");
      }
      for (size_t l = 0; l < leaves_.size(); ++l) RETURN_IF_ERROR(columns_[first + l].Append(leaves_[l]));
    }
    group_rows_ += static_cast<uint64_t>(length);
    return Status::OK();
  }

  Status FlushRowGroup() {
    RowGroup rg;
    rg.num_rows = static_cast<int64_t>(group_rows_);
    rg.file_offset = static_cast<int64_t>(bytes_written_);
    rg.ordinal = static_cast<int16_t>(row_groups_.size());
    int64_t compressed = 0;
    auto emit = [this](std::string_view bytes) { return Emit(bytes); };
    for (ColumnChunkWriter& c : columns_) {
      ASSIGN_OR_RETURN(ColumnMetaData meta, c.Flush(static_cast<int64_t>(bytes_written_), emit));
      rg.total_byte_size += meta.total_uncompressed_size;
      compressed += meta.total_compressed_size;
      rg.columns.emplace_back().meta_data = std::move(meta);
    }
    rg.total_compressed_size = compressed;
    row_groups_.push_back(std::move(rg));
    total_rows_ += static_cast<int64_t>(group_rows_);
    group_rows_ = 0;
    return Status::OK();
  }

  std::function<Status(std::span<const uint8_t>)> sink_;
  Schema schema_;
  SchemaPlan plan_;
  ParquetWriteOptions options_;
  std::vector<ColumnChunkWriter> columns_;
  std::vector<LeafLevels> leaves_;
  std::vector<RowGroup> row_groups_;
  uint64_t group_rows_ = 0;
  int64_t total_rows_ = 0;
  uint64_t bytes_written_ = 0;
  bool finished_ = false;
};

}  // namespace

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(std::function<Status(std::span<const uint8_t>)> sink,
                                                           const Schema& schema, const ParquetWriteOptions& options) {
  if (options.row_group_rows == 0 || options.page_bytes == 0 || options.row_group_bytes == 0) {
    return Status::InvalidArgument("Parquet row group rows, row group bytes and page bytes must be positive");
  }
  if (options.row_group_rows > static_cast<uint64_t>(INT32_MAX)) {
    return Status::InvalidArgument("Parquet row groups hold at most 2^31 - 1 rows");
  }
  if (schema.fields.empty()) return Status::InvalidArgument("a Parquet file needs at least one column");
  ASSIGN_OR_RETURN(SchemaPlan plan, PlanParquetSchema(schema));
  auto writer = std::make_unique<Writer>(std::move(sink), schema, std::move(plan), options);
  RETURN_IF_ERROR(writer->Start());
  return std::unique_ptr<ParquetWriter>(std::move(writer));
}

}  // namespace lancet::format
