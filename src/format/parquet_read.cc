// The Parquet reader: footer and schema, then one row group at a time: the projected
// column chunks are read whole (one ReadAt each), their pages decoded into levels and
// values, and batches assembled from slices of those.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "format/parquet_assemble.h"
#include "format/parquet_decode.h"
#include "format/parquet_decompress.h"
#include "format/parquet_metadata.h"
#include "format/parquet_read_arrow.h"
#include "format/parquet_read_schema.h"
#include "lancet/format/parquet.h"

namespace lancet::format {
namespace {

using parquet::ColumnMetaData;
using parquet::Encoding;
using parquet::LeafColumn;
using parquet::LeafCursor;
using parquet::PageHeader;
using parquet::PageType;
using parquet::ReadLeaf;
using parquet::ReadSchema;
using parquet::ValueBuffer;

constexpr char kParquetMagic[] = "PAR1";
constexpr uint64_t kMagicSize = 4;
// Footer length (u32 little-endian) and the trailing magic.
constexpr uint64_t kTrailerSize = 8;
// Decoded levels and values of one row group may take this many times max_page_bytes:
// the bound that keeps a hostile row group from claiming unbounded memory.
constexpr uint64_t kRowGroupBudgetPages = 4;

struct OpenedFile {
  parquet::FileMetaData meta;
  ReadSchema schema;
  /// Per top-level field: the Arrow type to convert its arrays to (from ARROW:schema).
  std::vector<std::optional<DataType>> restore;
};

// Takes the types an Arrow writer stored (see parquet_read_arrow.h) where they fit; the
// key itself is the writer's bookkeeping, not the data's metadata, so it is dropped.
void RestoreArrowTypes(OpenedFile* file) {
  Schema& schema = file->schema.schema;
  file->restore.resize(schema.fields.size());
  auto it = schema.metadata.find(parquet::kArrowSchemaKey);
  if (it == schema.metadata.end()) return;
  std::optional<Schema> arrow = parquet::StoredArrowSchema(it->second);
  schema.metadata.erase(it);
  if (!arrow || arrow->fields.size() != schema.fields.size()) return;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    Field& field = schema.fields[i];
    const Field& stored = arrow->fields[i];
    if (field.name != stored.name || field.type == stored.type || !parquet::CanRestore(field.type, stored.type)) {
      continue;
    }
    field.type = stored.type;
    for (const auto& [k, v] : stored.metadata) field.metadata.emplace(k, v);
    file->restore[i] = stored.type;
  }
}

Result<OpenedFile> ReadFooter(const io::RandomAccessFile& file) {
  const std::string& path = file.path();
  ASSIGN_OR_RETURN(uint64_t size, file.Size());
  if (size < kMagicSize + kTrailerSize) return Status::Corruption(path + ": too short for a Parquet file");
  ASSIGN_OR_RETURN(BufferPtr head, file.ReadAt(0, kMagicSize));
  ASSIGN_OR_RETURN(BufferPtr tail, file.ReadAt(size - kTrailerSize, kTrailerSize));
  if (std::memcmp(head->data(), kParquetMagic, 4) != 0 || std::memcmp(tail->data() + 4, kParquetMagic, 4) != 0) {
    if (std::memcmp(tail->data() + 4, "PARE", 4) == 0) {
      return Status::NotSupported(path + ": encrypted Parquet footers are not supported");
    }
    return Status::Corruption(path + ": not a Parquet file (no PAR1 magic)");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, tail->data(), 4);
  if (footer_len > size - kMagicSize - kTrailerSize) {
    return Status::Corruption(path + ": footer length " + std::to_string(footer_len) + " past the file's start");
  }
  ASSIGN_OR_RETURN(BufferPtr footer, file.ReadAt(size - kTrailerSize - footer_len, footer_len));
  OpenedFile out;
  auto meta = parquet::DecodeFileMetaData(footer->span());
  if (!meta.ok()) return meta.status().WithContext(path + ": footer");
  out.meta = std::move(*meta);
  auto schema = parquet::BuildReadSchema(out.meta);
  if (!schema.ok()) return schema.status().WithContext(path);
  out.schema = std::move(*schema);
  RestoreArrowTypes(&out);
  for (size_t g = 0; g < out.meta.row_groups.size(); ++g) {
    const auto& rg = out.meta.row_groups[g];
    if (rg.columns.size() != out.schema.leaves.size()) {
      return Status::Corruption(path + ": row group " + std::to_string(g) + " has " +
                                std::to_string(rg.columns.size()) + " column chunks for " +
                                std::to_string(out.schema.leaves.size()) + " leaf columns");
    }
    if (rg.num_rows < 0) return Status::Corruption(path + ": row group " + std::to_string(g) + " has negative rows");
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& chunk = rg.columns[c];
      if (!chunk.meta_data) return Status::Corruption(path + ": column chunk without metadata");
      if (chunk.file_path) return Status::NotSupported(path + ": column chunks in other files");
      if (chunk.meta_data->type != out.schema.leaves[c].physical) {
        return Status::Corruption(path + ": column '" + out.schema.leaves[c].path +
                                  "' chunk type differs from the schema");
      }
      if (g == 0 && !chunk.meta_data->path_in_schema.empty()) {
        std::string dotted;
        for (const auto& part : chunk.meta_data->path_in_schema) dotted += (dotted.empty() ? "" : ".") + part;
        out.schema.leaves[c].path = dotted;
      }
    }
  }
  return out;
}

// Decodes one column chunk's pages into `col`.
class ChunkDecoder {
 public:
  ChunkDecoder(const ReadLeaf& leaf, const ColumnMetaData& meta, uint64_t max_page_bytes, uint64_t budget)
      : leaf_(leaf), meta_(meta), max_page_bytes_(max_page_bytes), budget_(budget) {}

  Status Decode(std::span<const uint8_t> bytes, LeafColumn* col) {
    col->values.width = parquet::PhysicalWidth(leaf_.physical, leaf_.type_length);
    Reserve(col);
    size_t pos = 0;
    uint64_t seen = 0;
    while (seen < static_cast<uint64_t>(std::max<int64_t>(meta_.num_values, 0)) && pos < bytes.size()) {
      size_t header_len = 0;
      ASSIGN_OR_RETURN(PageHeader h, parquet::DecodePageHeader(bytes.subspan(pos), &header_len));
      pos += header_len;
      if (static_cast<uint64_t>(h.compressed_page_size) > bytes.size() - pos) {
        return Fail("page of " + std::to_string(h.compressed_page_size) + " bytes past the column chunk");
      }
      if (static_cast<uint64_t>(h.uncompressed_page_size) > max_page_bytes_) {
        return Fail("page of " + std::to_string(h.uncompressed_page_size) + " bytes exceeds max_page_bytes");
      }
      std::span<const uint8_t> page = bytes.subspan(pos, h.compressed_page_size);
      pos += h.compressed_page_size;
      if (h.type == PageType::kDictionaryPage) {
        RETURN_IF_ERROR(DictionaryPage(h, page));
      } else if (h.type == PageType::kDataPage) {
        ASSIGN_OR_RETURN(uint64_t n, DataPageV1(h, page, col));
        seen += n;
      } else if (h.type == PageType::kDataPageV2) {
        ASSIGN_OR_RETURN(uint64_t n, DataPageV2(h, page, col));
        seen += n;
      }
    }
    if (seen < static_cast<uint64_t>(std::max<int64_t>(meta_.num_values, 0))) {
      return Fail("column chunk ends after " + std::to_string(seen) + " of " + std::to_string(meta_.num_values) +
                  " values");
    }
    return Status::OK();
  }

 private:
  Status Fail(const std::string& what) const { return Status::Corruption(what); }

  // Room for the chunk's values and levels up front, as the footer states them: growing
  // a row group's vectors page by page copied them over and over. Claims past the memory
  // budget reserve only what the budget allows; the pages are still checked as decoded.
  void Reserve(LeafColumn* col) const {
    const uint64_t claimed = static_cast<uint64_t>(std::max<int64_t>(meta_.num_values, 0));
    const uint64_t n = std::min(claimed, budget_ / 16);
    if (leaf_.max_def > 0) col->def.reserve(n);
    if (leaf_.max_rep > 0) col->rep.reserve(n);
    if (col->values.width > 0) {
      col->values.data.reserve(n * static_cast<uint64_t>(col->values.width));
    } else {
      col->values.offsets.reserve(n + 1);
      const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(meta_.total_uncompressed_size, 0));
      col->values.data.reserve(std::min(bytes, budget_ / 4));
    }
  }

  uint64_t Used(const LeafColumn& col) const {
    return col.values.data.size() + col.values.offsets.size() * 8 + (col.def.size() + col.rep.size()) * 2;
  }

  Status DictionaryPage(const PageHeader& h, std::span<const uint8_t> page) {
    if (!h.dictionary_page_header) return Fail("dictionary page without its header");
    if (dictionary_) return Fail("a second dictionary page");
    const auto& dh = *h.dictionary_page_header;
    // Delta encodings could expand a small page into many values: the count alone is bounded.
    if (dh.num_values < 0 || static_cast<uint64_t>(dh.num_values) > budget_ / 16) {
      return Fail("dictionary of " + std::to_string(dh.num_values) + " values");
    }
    ASSIGN_OR_RETURN(BufferPtr body, parquet::DecompressPage(meta_.codec, page, h.uncompressed_page_size));
    dictionary_.emplace();
    dictionary_->width = parquet::PhysicalWidth(leaf_.physical, leaf_.type_length);
    // PLAIN_DICTIONARY dictionary pages are PLAIN.
    const Encoding enc = dh.encoding == Encoding::kPlainDictionary ? Encoding::kPlain : dh.encoding;
    return parquet::DecodeValues(enc, leaf_.physical, body->span(), static_cast<uint64_t>(dh.num_values), nullptr,
                                 budget_, &*dictionary_);
  }

  // Levels of `n` values: appended to `out`, each checked against `max`.
  Status AppendLevels(parquet::RleBitPackedDecoder* rle, std::span<const uint8_t> bit_packed, uint64_t n, int16_t max,
                      std::vector<int16_t>* out) {
    std::vector<uint32_t> levels(n);
    if (rle) {
      RETURN_IF_ERROR(rle->Get(levels.data(), n));
    } else {
      RETURN_IF_ERROR(parquet::DecodeBitPackedLevels(bit_packed, parquet::LevelBitWidth(max), n, levels.data()));
    }
    out->reserve(out->size() + n);
    for (uint32_t l : levels) {
      if (l > static_cast<uint32_t>(max))
        return Fail("level " + std::to_string(l) + " above the maximum " + std::to_string(max));
      out->push_back(static_cast<int16_t>(l));
    }
    return Status::OK();
  }

  // Data page v1 levels: each RLE run prefixed by its u32 length, or BIT_PACKED.
  Status V1Levels(Encoding enc, std::span<const uint8_t>* body, uint64_t n, int16_t max, std::vector<int16_t>* out) {
    if (max == 0) return Status::OK();
    const int width = parquet::LevelBitWidth(max);
    if (enc == Encoding::kBitPacked) {
      const uint64_t len = (n * width + 7) / 8;
      if (len > body->size()) return Fail("BIT_PACKED levels past the page");
      RETURN_IF_ERROR(AppendLevels(nullptr, body->subspan(0, len), n, max, out));
      *body = body->subspan(len);
      return Status::OK();
    }
    if (enc != Encoding::kRle)
      return Status::NotSupported("parquet level encoding " + std::to_string(static_cast<int>(enc)));
    if (body->size() < 4) return Fail("levels missing their length");
    uint32_t len;
    std::memcpy(&len, body->data(), 4);
    if (len > body->size() - 4) return Fail("levels of " + std::to_string(len) + " bytes past the page");
    parquet::RleBitPackedDecoder rle(body->subspan(4, len), width);
    RETURN_IF_ERROR(AppendLevels(&rle, {}, n, max, out));
    *body = body->subspan(4 + len);
    return Status::OK();
  }

  Status CheckLevelsFit(uint64_t n, const LeafColumn& col) const {
    // Four bytes a level (def and rep) plus at least a byte a value.
    if (n > budget_ / 8 || Used(col) > budget_ - n * 8)
      return Fail("page of " + std::to_string(n) + " values exceeds the memory limit");
    return Status::OK();
  }

  uint64_t PresentSince(const LeafColumn& col, uint64_t from, uint64_t n) const {
    if (leaf_.max_def == 0) return n;
    return static_cast<uint64_t>(std::count(col.def.begin() + from, col.def.end(), leaf_.max_def));
  }

  Status Values(Encoding enc, std::span<const uint8_t> data, uint64_t present, LeafColumn* col) {
    const uint64_t used = Used(*col);
    const uint64_t room = used < budget_ ? budget_ - used : 0;
    return parquet::DecodeValues(enc, leaf_.physical, data, present, dictionary_ ? &*dictionary_ : nullptr,
                                 col->values.data.size() + room, &col->values);
  }

  Result<uint64_t> DataPageV1(const PageHeader& h, std::span<const uint8_t> page, LeafColumn* col) {
    if (!h.data_page_header) return Fail("data page without its header");
    const auto& dh = *h.data_page_header;
    if (dh.num_values < 0) return Fail("negative value count");
    const auto n = static_cast<uint64_t>(dh.num_values);
    RETURN_IF_ERROR(CheckLevelsFit(n, *col));
    ASSIGN_OR_RETURN(BufferPtr body_buf, parquet::DecompressPage(meta_.codec, page, h.uncompressed_page_size));
    std::span<const uint8_t> body = body_buf->span();
    const uint64_t level_start = col->def.size();
    RETURN_IF_ERROR(V1Levels(dh.repetition_level_encoding, &body, n, leaf_.max_rep, &col->rep));
    RETURN_IF_ERROR(V1Levels(dh.definition_level_encoding, &body, n, leaf_.max_def, &col->def));
    const uint64_t present = PresentSince(*col, level_start, n);
    RETURN_IF_ERROR(Values(dh.encoding, body, present, col));
    col->num_levels += n;
    return n;
  }

  Result<uint64_t> DataPageV2(const PageHeader& h, std::span<const uint8_t> page, LeafColumn* col) {
    if (!h.data_page_header_v2) return Fail("data page v2 without its header");
    const auto& dh = *h.data_page_header_v2;
    if (dh.num_values < 0 || dh.definition_levels_byte_length < 0 || dh.repetition_levels_byte_length < 0) {
      return Fail("negative counts in a data page v2 header");
    }
    const auto n = static_cast<uint64_t>(dh.num_values);
    const uint64_t rep_len = static_cast<uint64_t>(dh.repetition_levels_byte_length);
    const uint64_t def_len = static_cast<uint64_t>(dh.definition_levels_byte_length);
    if (rep_len + def_len > page.size() || rep_len + def_len > static_cast<uint64_t>(h.uncompressed_page_size)) {
      return Fail("data page v2 levels past the page");
    }
    RETURN_IF_ERROR(CheckLevelsFit(n, *col));
    const uint64_t level_start = col->def.size();
    if (leaf_.max_rep > 0) {
      parquet::RleBitPackedDecoder rle(page.subspan(0, rep_len), parquet::LevelBitWidth(leaf_.max_rep));
      RETURN_IF_ERROR(AppendLevels(&rle, {}, n, leaf_.max_rep, &col->rep));
    }
    if (leaf_.max_def > 0) {
      parquet::RleBitPackedDecoder rle(page.subspan(rep_len, def_len), parquet::LevelBitWidth(leaf_.max_def));
      RETURN_IF_ERROR(AppendLevels(&rle, {}, n, leaf_.max_def, &col->def));
    }
    std::span<const uint8_t> data = page.subspan(rep_len + def_len);
    const uint64_t data_size = h.uncompressed_page_size - rep_len - def_len;
    BufferPtr decompressed;
    if (dh.is_compressed && meta_.codec != parquet::Codec::kUncompressed) {
      ASSIGN_OR_RETURN(decompressed, parquet::DecompressPage(meta_.codec, data, data_size));
      data = decompressed->span();
    }
    const uint64_t present = PresentSince(*col, level_start, n);
    RETURN_IF_ERROR(Values(dh.encoding, data, present, col));
    col->num_levels += n;
    return n;
  }

  const ReadLeaf& leaf_;
  const ColumnMetaData& meta_;
  uint64_t max_page_bytes_;
  uint64_t budget_;
  std::optional<ValueBuffer> dictionary_;
};

class ParquetBatchReader : public RecordBatchReader {
 public:
  ParquetBatchReader(std::shared_ptr<const io::RandomAccessFile> file, OpenedFile opened, std::vector<int> fields,
                     const ParquetReadOptions& options)
      : file_(std::move(file)), opened_(std::move(opened)), fields_(std::move(fields)), options_(options) {
    for (int f : fields_) schema_.fields.push_back(opened_.schema.schema.fields[f]);
    schema_.metadata = opened_.schema.schema.metadata;
    columns_.resize(opened_.schema.leaves.size());
    cursors_.resize(opened_.schema.leaves.size());
    if (options_.batch_rows == 0) options_.batch_rows = 1;
  }

  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (!error_.ok()) return error_;
    auto r = NextImpl();
    if (!r.ok()) error_ = r.status();
    return r;
  }

 private:
  Result<std::optional<RecordBatch>> NextImpl() {
    while (row_group_ < 0 || rows_done_ >= opened_.meta.row_groups[row_group_].num_rows) {
      if (row_group_ + 1 >= static_cast<int64_t>(opened_.meta.row_groups.size())) {
        ReleaseColumns();
        return std::optional<RecordBatch>();
      }
      ++row_group_;
      RETURN_IF_ERROR(LoadRowGroup());
    }
    const int64_t rg_rows = opened_.meta.row_groups[row_group_].num_rows;
    const uint64_t rows = std::min<uint64_t>(options_.batch_rows, static_cast<uint64_t>(rg_rows - rows_done_));
    for (int f : fields_) {
      const auto& node = opened_.schema.fields[f];
      for (int l = node.leaf_begin; l < node.leaf_end; ++l) Advance(l, rows);
    }
    RecordBatch batch;
    batch.schema = schema_;
    batch.num_rows = static_cast<int64_t>(rows);
    for (int f : fields_) {
      const auto& node = opened_.schema.fields[f];
      auto array = parquet::AssembleNode(node, opened_.schema.leaves, columns_, cursors_);
      if (!array.ok()) return array.status().WithContext(file_->path() + ": row group " + std::to_string(row_group_));
      if (opened_.restore[f]) {
        array = parquet::RestoreArray(*array, *opened_.restore[f]);
        if (!array.ok()) return array.status().WithContext(file_->path() + ": column '" + node.field.name + "'");
      }
      if (array->length != batch.num_rows) {
        return Status::Corruption(file_->path() + ": column '" + node.field.name + "' has " +
                                  std::to_string(array->length) + " rows in a batch of " + std::to_string(rows));
      }
      batch.columns.push_back(std::move(*array));
    }
    rows_done_ += static_cast<int64_t>(rows);
    return std::optional<RecordBatch>(std::move(batch));
  }

  void ReleaseColumns() {
    for (auto& c : columns_) c = LeafColumn();
  }

  // Moves leaf l's cursor over the next `rows` rows (rows start at repetition level 0).
  void Advance(int l, uint64_t rows) {
    const LeafColumn& col = columns_[l];
    const ReadLeaf& leaf = opened_.schema.leaves[l];
    LeafCursor& cur = cursors_[l];
    if (leaf.max_def == 0) {
      cur.value += cur.end - cur.begin;
    } else {
      cur.value +=
          static_cast<uint64_t>(std::count(col.def.begin() + cur.begin, col.def.begin() + cur.end, leaf.max_def));
    }
    cur.begin = cur.end;
    uint64_t p = cur.begin;
    if (leaf.max_rep == 0) {
      p = std::min(col.num_levels, p + rows);
    } else {
      uint64_t seen = 0;
      for (; p < col.num_levels; ++p) {
        if (col.rep[p] == 0 && seen++ == rows) break;
      }
    }
    cur.end = p;
  }

  Status LoadRowGroup() {
    ReleaseColumns();
    rows_done_ = 0;
    const auto& rg = opened_.meta.row_groups[row_group_];
    ASSIGN_OR_RETURN(uint64_t file_size, file_->Size());
    const uint64_t budget = options_.max_page_bytes > UINT64_MAX / kRowGroupBudgetPages
                                ? UINT64_MAX
                                : options_.max_page_bytes * kRowGroupBudgetPages;
    uint64_t used = 0;
    for (int f : fields_) {
      const auto& node = opened_.schema.fields[f];
      for (int l = node.leaf_begin; l < node.leaf_end; ++l) {
        const ReadLeaf& leaf = opened_.schema.leaves[l];
        const ColumnMetaData& meta = *rg.columns[l].meta_data;
        auto fail = [&](const Status& st) {
          return st.WithContext(file_->path() + ": row group " + std::to_string(row_group_) + ", column '" + leaf.path +
                                "'");
        };
        int64_t start = meta.data_page_offset;
        if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 && *meta.dictionary_page_offset < start) {
          start = *meta.dictionary_page_offset;
        }
        const int64_t len = meta.total_compressed_size;
        if (start < 0 || len < 0 || static_cast<uint64_t>(start) > file_size ||
            static_cast<uint64_t>(len) > file_size - static_cast<uint64_t>(start)) {
          return fail(Status::Corruption("column chunk [" + std::to_string(start) + ", +" + std::to_string(len) +
                                         ") outside the file"));
        }
        if (static_cast<uint64_t>(len) > budget - std::min(budget, used)) {
          return fail(Status::Corruption("column chunk of " + std::to_string(len) + " bytes exceeds the memory limit"));
        }
        ASSIGN_OR_RETURN(BufferPtr bytes, file_->ReadAt(static_cast<uint64_t>(start), static_cast<uint64_t>(len)));
        ChunkDecoder decoder(leaf, meta, options_.max_page_bytes, budget - std::min(budget, used));
        LeafColumn& col = columns_[l];
        Status st = decoder.Decode(bytes->span(), &col);
        if (!st.ok()) return fail(st);
        RETURN_IF_ERROR(CheckLeaf(l, rg.num_rows)
                            .WithContext(file_->path() + ": row group " + std::to_string(row_group_) + ", column '" +
                                         leaf.path + "'"));
        used += col.values.data.size() + col.values.offsets.size() * 8 + (col.def.size() + col.rep.size()) * 2;
        cursors_[l] = LeafCursor();
      }
    }
    return Status::OK();
  }

  // The chunk must hold exactly the row group's rows and one value per defined level.
  Status CheckLeaf(int l, int64_t num_rows) const {
    const LeafColumn& col = columns_[l];
    const ReadLeaf& leaf = opened_.schema.leaves[l];
    uint64_t rows = col.num_levels;
    if (leaf.max_rep > 0) {
      if (!col.rep.empty() && col.rep[0] != 0) return Status::Corruption("first repetition level is not 0");
      rows = static_cast<uint64_t>(std::count(col.rep.begin(), col.rep.end(), int16_t{0}));
    }
    if (rows != static_cast<uint64_t>(num_rows)) {
      return Status::Corruption("holds " + std::to_string(rows) + " rows, the row group " + std::to_string(num_rows));
    }
    const uint64_t present = leaf.max_def == 0
                                 ? col.num_levels
                                 : static_cast<uint64_t>(std::count(col.def.begin(), col.def.end(), leaf.max_def));
    if (present != col.values.size()) {
      return Status::Corruption("holds " + std::to_string(col.values.size()) + " values for " +
                                std::to_string(present) + " defined levels");
    }
    return Status::OK();
  }

  std::shared_ptr<const io::RandomAccessFile> file_;
  OpenedFile opened_;
  std::vector<int> fields_;
  ParquetReadOptions options_;
  Schema schema_;
  std::vector<LeafColumn> columns_;
  std::vector<LeafCursor> cursors_;
  int64_t row_group_ = -1;
  int64_t rows_done_ = 0;
  Status error_;
};

}  // namespace

Result<Schema> ReadParquetSchema(const io::RandomAccessFile& file) {
  ASSIGN_OR_RETURN(OpenedFile opened, ReadFooter(file));
  return std::move(opened.schema.schema);
}

Result<std::unique_ptr<RecordBatchReader>> OpenParquetReader(std::shared_ptr<const io::RandomAccessFile> file,
                                                             const ParquetReadOptions& options) {
  ASSIGN_OR_RETURN(OpenedFile opened, ReadFooter(*file));
  // Rows are counted through the leaves' levels; with none there is nothing to check a
  // footer's row counts against.
  if (opened.schema.leaves.empty() && opened.meta.num_rows != 0) {
    return Status::NotSupported(file->path() + ": a Parquet file with rows but no columns");
  }
  std::vector<int> fields;
  if (options.columns.empty()) {
    for (size_t i = 0; i < opened.schema.fields.size(); ++i) fields.push_back(static_cast<int>(i));
  } else {
    for (const auto& name : options.columns) {
      int idx = opened.schema.schema.FieldIndex(name);
      if (idx < 0) return Status::InvalidArgument(file->path() + ": no column '" + name + "' in the Parquet file");
      if (std::find(fields.begin(), fields.end(), idx) != fields.end()) {
        return Status::InvalidArgument(file->path() + ": column '" + name + "' asked for twice");
      }
      fields.push_back(idx);
    }
  }
  return std::unique_ptr<RecordBatchReader>(
      std::make_unique<ParquetBatchReader>(std::move(file), std::move(opened), std::move(fields), options));
}

}  // namespace lancet::format
