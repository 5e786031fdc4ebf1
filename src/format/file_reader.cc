// FileReader for Lance data files 2.1/2.2 (docs/format §6).
#include "lancet/format/file_reader.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "encoding/decoders.h"
#include "format/assemble.h"
#include "format/block_builder.h"
#include "format/file_constants.h"
#include "format/lance_schema.h"
#include "format/page_reader.h"
#include "format/row_bounds.h"
#include "format/v20_reader.h"
#include "lance_proto/encodings_v2_1.pb.h"
#include "lance_proto/file.pb.h"
#include "lance_proto/file2.pb.h"
#include "util/thread_pool.h"

namespace lancet::format {

using internal::LayerKind;

bool IsLeafField(const Field& field) {
  switch (field.type.id) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return false;
    case TypeId::kStruct: {
      if (IsBlobV2Field(field)) return true;
      auto it = field.metadata.find(kPackedStructKey);
      return it != field.metadata.end() && (it->second == "true" || it->second == "1");
    }
    default:
      return true;
  }
}

namespace {

constexpr uint64_t kFooterSize = 40;
// The first read fetches this much of the file's tail, which normally covers the
// footer, offset tables, column metadata and schema at once.
constexpr uint64_t kTailReadSize = 64 * 1024;
// Pages of one column a take reads at once on a store whose reads wait (S3): the
// shared I/O pool's size.
constexpr size_t kPagesAtOnce = 8;

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }
bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// The on-disk shape of a Blob V2 column: the descriptor struct (§10.2).
DataType BlobDescriptorType() {
  return StructOf(
      {MakeField("kind", MakeType(TypeId::kUInt8), false), MakeField("position", MakeType(TypeId::kUInt64), false),
       MakeField("size", MakeType(TypeId::kUInt64), false), MakeField("blob_id", MakeType(TypeId::kUInt32), false),
       MakeField("blob_uri", MakeType(TypeId::kUtf8), false)});
}

// Blob V2 fields are read as their stored descriptor struct, at any depth.
Field StoredField(const Field& field) {
  Field f = field;
  if (IsBlobV2Field(field)) {
    f.type = BlobDescriptorType();
    f.metadata[kPackedStructKey] = "true";
    f.metadata["lance-encoding:blob"] = "true";
    return f;
  }
  if (f.type.id == TypeId::kFixedSizeList) return f;
  for (auto& c : f.type.children) c = StoredField(c);
  return f;
}

struct PageEntry {
  uint64_t first_row = 0;
  uint64_t num_rows = 0;
  uint64_t bytes = 0;
  std::unique_ptr<internal::PageReader> reader;
};

struct ColumnEntry {
  std::vector<PageEntry> pages;
  std::vector<uint64_t> page_end;  // first_row + num_rows, for binary search
};

// Gathers the slices of one leaf into LeafLevels.
class LevelCollector {
 public:
  LevelCollector(bool expect_rep, std::string context) : expect_rep_(expect_rep), context_(std::move(context)) {}

  Status Add(const internal::Slice& s) {
    const auto& u = *s.unit;
    if (s.level_begin > s.level_end || s.level_end > u.num_levels || s.value_begin > s.value_end ||
        s.value_end > u.values.num_values) {
      return Status::Corruption(context_ + ": slice out of range");
    }
    const uint64_t n = s.level_end - s.level_begin;
    if (expect_rep_ && n > 0) {
      if (u.rep.size() != u.num_levels) return Status::Corruption(context_ + ": list page without repetition levels");
      out_.rep.insert(out_.rep.end(), u.rep.begin() + s.level_begin, u.rep.begin() + s.level_end);
    }
    if (!u.def.empty()) {
      if (u.def.size() != u.num_levels) return Status::Corruption(context_ + ": definition level count");
      if (!def_) {
        out_.def.assign(out_.num_levels, 0);
        def_ = true;
      }
      out_.def.insert(out_.def.end(), u.def.begin() + s.level_begin, u.def.begin() + s.level_end);
    } else if (def_) {
      out_.def.insert(out_.def.end(), n, 0);
    }
    out_.num_levels += n;
    return values_.Append(u.values, s.value_begin, s.value_end);
  }

  Result<internal::LeafLevels> Finish() {
    ASSIGN_OR_RETURN(out_.values, values_.Finish());
    return std::move(out_);
  }

 private:
  bool expect_rep_;
  std::string context_;
  bool def_ = false;
  internal::LeafLevels out_;
  internal::BlockBuilder values_;
};

std::string KindsString(const std::vector<LayerKind>& kinds) {
  std::string s;
  for (auto k : kinds) s += k == LayerKind::kList ? "L" : "I";
  return s;
}

class FileReaderImpl final : public FileReader {
 public:
  const std::string& path() const override { return path_; }
  bool cheap_reads() const override { return file_->cheap_reads(); }
  FileVersion version() const override { return version_; }
  uint64_t num_rows() const override { return num_rows_; }
  size_t num_columns() const override { return columns_.size(); }
  const Schema& file_schema() const override { return schema_; }

  Result<BufferPtr> ReadGlobalBuffer(uint32_t index) const override {
    if (index >= global_buffers_.size()) {
      return Status::Corruption(path_ + ": no global buffer " + std::to_string(index) + " (the file has " +
                                std::to_string(global_buffers_.size()) + ")");
    }
    const io::ByteRange& r = global_buffers_[index];
    ASSIGN_OR_RETURN(BufferPtr bytes, file_->ReadAt(r.offset, r.length));
    if (!bytes || bytes->size() != r.length) {
      return Status::IOError(path_ + ": short read of global buffer " + std::to_string(index));
    }
    return bytes;
  }

  Result<Array> ReadRange(const Field& field, std::span<const int> leaf_columns, uint64_t begin,
                          uint64_t end) const override {
    RETURN_IF_ERROR(internal::CheckRowRange(path_, begin, end, num_rows_));
    return Read(field, leaf_columns, end - begin,
                [&](size_t column, const std::vector<LayerKind>& kinds, LevelCollector* out) {
                  return CollectRange(column, begin, end, kinds, out);
                });
  }

  Result<Array> Take(const Field& field, std::span<const int> leaf_columns,
                     std::span<const uint64_t> rows) const override {
    RETURN_IF_ERROR(internal::CheckRows(path_, rows, num_rows_));
    return Read(field, leaf_columns, rows.size(),
                [&](size_t column, const std::vector<LayerKind>& kinds, LevelCollector* out) {
                  return CollectTake(column, rows, kinds, out);
                });
  }

  Result<std::vector<PageBounds>> ColumnPages(int column) const override {
    if (column < 0 || static_cast<size_t>(column) >= columns_.size()) {
      return Status::InvalidArgument(path_ + ": no column " + std::to_string(column));
    }
    std::vector<PageBounds> out;
    for (const auto& p : columns_[column].pages) out.push_back({p.first_row + p.num_rows, p.bytes});
    return out;
  }

  Result<std::string> DescribeColumn(int column) const override {
    if (column < 0 || static_cast<size_t>(column) >= columns_.size()) {
      return Status::InvalidArgument(path_ + ": no column " + std::to_string(column));
    }
    const auto& col = columns_[column];
    std::ostringstream os;
    uint64_t bytes = 0;
    for (const auto& p : col.pages) bytes += p.bytes;
    os << "column " << column << ": " << col.pages.size() << " page(s), " << bytes << " bytes\n";
    for (size_t i = 0; i < col.pages.size(); ++i) {
      const auto& p = col.pages[i];
      os << "  page " << i << ": rows [" << p.first_row << ", " << p.first_row + p.num_rows << "), " << p.bytes
         << " bytes, " << p.reader->Describe() << "\n";
    }
    return os.str();
  }

  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<io::RandomAccessFile> file, uint64_t known_size);

 private:
  template <typename Collect>
  Result<Array> Read(const Field& requested, std::span<const int> leaf_columns, uint64_t num_out,
                     Collect collect) const {
    const Field field = StoredField(requested);
    std::vector<std::vector<LayerKind>> kinds;
    std::vector<const Field*> leaves;
    internal::LeafLayerKinds(field, &kinds, &leaves);
    if (leaf_columns.size() != leaves.size()) {
      return Status::InvalidArgument(path_ + ": field '" + field.name + "' has " + std::to_string(leaves.size()) +
                                     " leaf columns, " + std::to_string(leaf_columns.size()) + " were given");
    }
    std::vector<internal::LeafData> data(leaves.size());
    std::vector<const internal::LeafData*> ptrs(leaves.size(), nullptr);
    for (size_t i = 0; i < leaves.size(); ++i) {
      const int column = leaf_columns[i];
      if (column < 0) continue;
      if (static_cast<size_t>(column) >= columns_.size()) {
        return Status::InvalidArgument(path_ + ": no column " + std::to_string(column));
      }
      const std::string ctx = path_ + ": column " + std::to_string(column) + " ('" + leaves[i]->name + "')";
      bool has_lists = std::count(kinds[i].begin(), kinds[i].end(), LayerKind::kList) > 0;
      LevelCollector collector(has_lists, ctx);
      RETURN_IF_ERROR(collect(static_cast<size_t>(column), kinds[i], &collector));
      ASSIGN_OR_RETURN(internal::LeafLevels levels, collector.Finish());
      ASSIGN_OR_RETURN(data[i], internal::Unravel(levels, kinds[i], leaves[i]->type, ctx));
      ptrs[i] = &data[i];
    }
    return internal::AssembleField(field, ptrs, static_cast<int64_t>(num_out), path_ + ": field '" + field.name + "'");
  }

  Status CheckLayers(size_t column, size_t page_idx, const PageEntry& page, const std::vector<LayerKind>& kinds) const {
    const auto& inner_first = page.reader->layer_kinds();
    std::vector<LayerKind> outer_first(inner_first.rbegin(), inner_first.rend());
    if (outer_first != kinds) {
      return Status::Corruption(path_ + ": column " + std::to_string(column) + " page " + std::to_string(page_idx) +
                                " has layers " + KindsString(outer_first) + " but the field needs " +
                                KindsString(kinds) + " (L = list, I = item, outermost first)");
    }
    return Status::OK();
  }

  Status CollectRange(size_t column, uint64_t begin, uint64_t end, const std::vector<LayerKind>& kinds,
                      LevelCollector* out) const {
    const auto& col = columns_[column];
    size_t p = std::upper_bound(col.page_end.begin(), col.page_end.end(), begin) - col.page_end.begin();
    for (; p < col.pages.size() && col.pages[p].first_row < end; ++p) {
      const auto& page = col.pages[p];
      if (page.num_rows == 0) continue;
      RETURN_IF_ERROR(CheckLayers(column, p, page, kinds));
      internal::RowRange range{std::max(begin, page.first_row) - page.first_row,
                               std::min(end, page.first_row + page.num_rows) - page.first_row};
      std::vector<std::vector<internal::Slice>> slices;
      RETURN_IF_ERROR(page.reader->Read({&range, 1}, &slices));
      for (const auto& s : slices[0]) RETURN_IF_ERROR(out->Add(s));
    }
    return Status::OK();
  }

  Status CollectTake(size_t column, std::span<const uint64_t> rows, const std::vector<LayerKind>& kinds,
                     LevelCollector* out) const {
    const auto& col = columns_[column];
    std::vector<uint64_t> unique(rows.begin(), rows.end());
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    std::vector<std::vector<internal::Slice>> per_row(unique.size());
    // The rows [first, end) of `unique` that page `page` holds.
    struct PageRows {
      size_t page = 0, first = 0, end = 0;
    };
    std::vector<PageRows> groups;
    size_t i = 0;
    while (i < unique.size()) {
      size_t p = std::upper_bound(col.page_end.begin(), col.page_end.end(), unique[i]) - col.page_end.begin();
      if (p >= col.pages.size()) {
        return Status::Corruption(path_ + ": column " + std::to_string(column) + " has no page for row " +
                                  std::to_string(unique[i]));
      }
      const auto& page = col.pages[p];
      RETURN_IF_ERROR(CheckLayers(column, p, page, kinds));
      size_t j = i;
      while (j < unique.size() && unique[j] < page.first_row + page.num_rows) ++j;
      groups.push_back({p, i, j});
      i = j;
    }
    // Pages are read at once where a read waits on a remote store (each page costs one
    // or two round trips); mapped files read in place.
    std::vector<Status> statuses(groups.size());
    const size_t parallel = file_->cheap_reads() ? 1 : kPagesAtOnce;
    ParallelFor(ThreadPool::Io(), groups.size(), parallel, [&](size_t g) {
      const PageRows& rows_of = groups[g];
      const auto& page = col.pages[rows_of.page];
      std::vector<internal::RowRange> ranges;
      for (size_t k = rows_of.first; k < rows_of.end; ++k) {
        ranges.push_back({unique[k] - page.first_row, unique[k] - page.first_row + 1});
      }
      std::vector<std::vector<internal::Slice>> slices;
      statuses[g] = page.reader->Read(ranges, &slices);
      if (!statuses[g].ok()) return;
      // Each task fills only its own rows.
      for (size_t k = 0; k < ranges.size(); ++k) per_row[rows_of.first + k] = std::move(slices[k]);
    });
    for (const Status& st : statuses) RETURN_IF_ERROR(st);
    for (uint64_t r : rows) {
      size_t idx = std::lower_bound(unique.begin(), unique.end(), r) - unique.begin();
      for (const auto& s : per_row[idx]) RETURN_IF_ERROR(out->Add(s));
    }
    return Status::OK();
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  std::string path_;
  uint64_t size_ = 0;
  FileVersion version_;
  uint64_t num_rows_ = 0;
  Schema schema_;
  std::vector<io::ByteRange> global_buffers_;  // checked to lie before the footer
  std::vector<ColumnEntry> columns_;
};

// Bytes of the file we already hold (the tail) plus reads for anything outside it.
class TailCache {
 public:
  TailCache(const io::RandomAccessFile& file, uint64_t tail_offset, BufferPtr tail)
      : file_(file), tail_offset_(tail_offset), tail_(std::move(tail)) {}

  bool Covers(const io::ByteRange& r) const { return r.offset >= tail_offset_; }

  BufferPtr FromTail(const io::ByteRange& r) const { return Buffer::Slice(tail_, r.offset - tail_offset_, r.length); }

  // Returns the bytes of every range, reading all the missing ones in one ReadMany.
  Result<std::vector<BufferPtr>> Get(const std::vector<io::ByteRange>& ranges) const {
    std::vector<BufferPtr> out(ranges.size());
    std::vector<io::ByteRange> missing;
    std::vector<size_t> missing_idx;
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (Covers(ranges[i])) {
        out[i] = FromTail(ranges[i]);
      } else {
        missing.push_back(ranges[i]);
        missing_idx.push_back(i);
      }
    }
    if (!missing.empty()) {
      ASSIGN_OR_RETURN(auto got, file_.ReadMany(missing));
      if (got.size() != missing.size()) return Status::IOError(file_.path() + ": short ReadMany result");
      for (size_t i = 0; i < missing.size(); ++i) {
        if (!got[i] || got[i]->size() != missing[i].length) return Status::IOError(file_.path() + ": short read");
        out[missing_idx[i]] = got[i];
      }
    }
    return out;
  }

 private:
  const io::RandomAccessFile& file_;
  uint64_t tail_offset_;
  BufferPtr tail_;
};

Result<std::vector<io::ByteRange>> ParseOffsetTable(const Buffer& table, uint64_t count, uint64_t limit,
                                                    const std::string& path, const char* what) {
  std::vector<io::ByteRange> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    out[i].offset = Load<uint64_t>(table.data() + i * 16);
    out[i].length = Load<uint64_t>(table.data() + i * 16 + 8);
    uint64_t end;
    if (!CheckedAdd(out[i].offset, out[i].length, &end) || end > limit) {
      return Status::Corruption(path + ": " + what + " " + std::to_string(i) + " [" + std::to_string(out[i].offset) +
                                ", +" + std::to_string(out[i].length) + ") runs past the metadata end " +
                                std::to_string(limit));
    }
  }
  return out;
}

Result<std::string> UnpackAny(const ::lance::file::v2::Encoding& enc, const char* expected_url,
                              const std::string& where) {
  if (enc.location_case() != ::lance::file::v2::Encoding::kDirect) {
    return Status::NotSupported(where + ": only direct encodings are supported (got oneof case " +
                                std::to_string(static_cast<int>(enc.location_case())) + ")");
  }
  google::protobuf::Any any;
  if (!any.ParseFromString(enc.direct().encoding())) {
    return Status::Corruption(where + ": encoding is not a valid google.protobuf.Any");
  }
  if (any.type_url() != expected_url) {
    return Status::NotSupported(where + ": encoding type '" + any.type_url() + "' (expected '" + expected_url +
                                "'; Lance 2.0 files are not supported)");
  }
  return std::string(any.value());
}

Result<std::unique_ptr<FileReader>> FileReaderImpl::Open(std::shared_ptr<io::RandomAccessFile> file,
                                                         uint64_t known_size) {
  if (!file) return Status::InvalidArgument("FileReader::Open: null file");
  auto reader = std::make_unique<FileReaderImpl>();
  reader->path_ = file->path();
  const std::string& path = reader->path_;
  uint64_t size = known_size;
  if (size == 0) {
    ASSIGN_OR_RETURN(size, file->Size());
  }
  reader->size_ = size;
  if (size < kFooterSize) {
    return Status::Corruption(path + ": " + std::to_string(size) + " bytes is too small for a Lance file");
  }
  const uint64_t tail_len = std::min(size, kTailReadSize);
  const uint64_t tail_offset = size - tail_len;
  auto tail_r = file->ReadAt(tail_offset, tail_len);
  if (!tail_r.ok()) return tail_r.status();
  BufferPtr tail = tail_r.MoveValue();
  if (!tail || tail->size() != tail_len) return Status::IOError(path + ": short read of the file tail");
  const uint8_t* footer = tail->data() + tail_len - kFooterSize;
  if (std::memcmp(footer + 36, kMagic, 4) != 0) {
    return Status::Corruption(path + ": not a Lance file (the last 4 bytes are not \"LANC\")");
  }
  const uint64_t column_meta_start = Load<uint64_t>(footer);
  const uint64_t cmo_pos = Load<uint64_t>(footer + 8);
  const uint64_t gbo_pos = Load<uint64_t>(footer + 16);
  const uint32_t num_global = Load<uint32_t>(footer + 24);
  const uint32_t num_columns = Load<uint32_t>(footer + 28);
  reader->version_.major = Load<uint16_t>(footer + 32);
  reader->version_.minor = Load<uint16_t>(footer + 34);
  const auto& v = reader->version_;
  const bool v20 = v.major == 0 && v.minor == 3;
  if (v.major == 0 && (v.minor == 1 || v.minor == 2)) {
    return Status::NotSupported(path + ": legacy Lance v1 file (footer version " + v.ToString() +
                                ") is not supported; only 2.0, 2.1 and 2.2");
  }
  // 2.3 is Lancet's extension: the 2.2 grammar, blob descriptors with blob_info.
  if (!v20 && (v.major != 2 || v.minor < 1 || v.minor > 3)) {
    return Status::NotSupported(path + ": Lance file format version " + v.ToString() +
                                " is not supported; only 2.0 to 2.3");
  }
  const uint64_t meta_end = size - kFooterSize;
  uint64_t cmo_end, gbo_end, cmo_bytes, gbo_bytes;
  if (!CheckedMul(num_columns, 16, &cmo_bytes) || !CheckedAdd(cmo_pos, cmo_bytes, &cmo_end) || cmo_end > meta_end) {
    return Status::Corruption(path + ": column offset table (" + std::to_string(num_columns) + " entries at " +
                              std::to_string(cmo_pos) + ") runs past the footer");
  }
  if (!CheckedMul(num_global, 16, &gbo_bytes) || !CheckedAdd(gbo_pos, gbo_bytes, &gbo_end) || gbo_end > meta_end) {
    return Status::Corruption(path + ": global buffer table (" + std::to_string(num_global) + " entries at " +
                              std::to_string(gbo_pos) + ") runs past the footer");
  }
  if (column_meta_start > meta_end) {
    return Status::Corruption(path + ": column metadata start " + std::to_string(column_meta_start) +
                              " is past the footer");
  }
  if (num_global == 0) return Status::Corruption(path + ": no global buffers, so no schema");

  TailCache cache(*file, tail_offset, tail);
  ASSIGN_OR_RETURN(auto tables, cache.Get({{cmo_pos, cmo_bytes}, {gbo_pos, gbo_bytes}}));
  ASSIGN_OR_RETURN(auto column_ranges, ParseOffsetTable(*tables[0], num_columns, meta_end, path, "column metadata"));
  ASSIGN_OR_RETURN(auto global_ranges, ParseOffsetTable(*tables[1], num_global, meta_end, path, "global buffer"));

  std::vector<io::ByteRange> wanted = column_ranges;
  wanted.push_back(global_ranges[0]);
  ASSIGN_OR_RETURN(auto meta, cache.Get(wanted));

  ::lance::file::FileDescriptor fd;
  const Buffer& gb0 = *meta.back();
  if (!fd.ParseFromArray(gb0.data(), static_cast<int>(gb0.size())) || gb0.size() > (1ULL << 31)) {
    return Status::Corruption(path + ": global buffer 0 is not a FileDescriptor protobuf");
  }
  if (!fd.has_schema()) return Status::Corruption(path + ": FileDescriptor has no schema");
  reader->num_rows_ = fd.length();
  ASSIGN_OR_RETURN(reader->schema_, SchemaFromLance(fd.schema(), path));
  if (v20) {
    meta.pop_back();  // global buffer 0
    return internal::OpenV20File(file, size, fd.length(), std::move(reader->schema_), meta);
  }

  reader->file_ = file;
  reader->global_buffers_ = std::move(global_ranges);
  reader->columns_.resize(num_columns);
  for (uint32_t c = 0; c < num_columns; ++c) {
    const std::string where = path + ": column " + std::to_string(c);
    ::lance::file::v2::ColumnMetadata cm;
    const Buffer& bytes = *meta[c];
    if (bytes.size() > (1ULL << 31) || !cm.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Status::Corruption(where + ": metadata is not a ColumnMetadata protobuf");
    }
    if (!cm.has_encoding()) return Status::Corruption(where + " is missing its encoding");
    RETURN_IF_ERROR(UnpackAny(cm.encoding(), kColumnEncodingUrl, where).status());
    auto& col = reader->columns_[c];
    uint64_t row = 0;
    for (int p = 0; p < cm.pages_size(); ++p) {
      const auto& page = cm.pages(p);
      const std::string pwhere = where + " page " + std::to_string(p);
      if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return Status::Corruption(pwhere + ": " + std::to_string(page.buffer_offsets_size()) + " buffer offsets but " +
                                  std::to_string(page.buffer_sizes_size()) + " sizes");
      }
      internal::PageSource src;
      src.file = file;
      src.context = pwhere;
      src.num_rows = page.length();
      uint64_t bytes_total = 0;
      for (int b = 0; b < page.buffer_offsets_size(); ++b) {
        io::ByteRange r{page.buffer_offsets(b), page.buffer_sizes(b)};
        uint64_t end;
        if (!CheckedAdd(r.offset, r.length, &end) || end > size) {
          return Status::Corruption(pwhere + ": buffer " + std::to_string(b) + " [" + std::to_string(r.offset) + ", +" +
                                    std::to_string(r.length) + ") runs past the file end " + std::to_string(size));
        }
        bytes_total += r.length;
        src.buffers.push_back(r);
      }
      if (!page.has_encoding()) return Status::Corruption(pwhere + " is missing its encoding");
      ASSIGN_OR_RETURN(std::string layout_bytes, UnpackAny(page.encoding(), kPageLayoutUrl, pwhere));
      ::lance::encodings21::PageLayout layout;
      if (!layout.ParseFromString(layout_bytes)) {
        return Status::Corruption(pwhere + ": page layout is not a PageLayout protobuf");
      }
      uint64_t next_row;
      if (!CheckedAdd(row, page.length(), &next_row) || next_row > reader->num_rows_) {
        return Status::Corruption(pwhere + ": pages hold more rows than the file's " +
                                  std::to_string(reader->num_rows_));
      }
      PageEntry entry;
      entry.first_row = row;
      entry.num_rows = page.length();
      entry.bytes = bytes_total;
      ASSIGN_OR_RETURN(entry.reader, internal::MakePageReader(std::move(src), layout));
      col.pages.push_back(std::move(entry));
      col.page_end.push_back(next_row);
      row = next_row;
    }
    if (row != reader->num_rows_) {
      return Status::Corruption(where + ": pages hold " + std::to_string(row) + " rows, the file has " +
                                std::to_string(reader->num_rows_));
    }
  }
  return std::unique_ptr<FileReader>(std::move(reader));
}

}  // namespace

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<io::RandomAccessFile> file, uint64_t known_size) {
  return FileReaderImpl::Open(std::move(file), known_size);
}

}  // namespace lancet::format
