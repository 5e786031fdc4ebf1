// Lance 2.0 FileReader (see v20_reader.h). Pages are decoded whole (2.0 pages are
// small and their encodings have no per-row index), once per ReadRange/Take call.
#include "format/v20_reader.h"
#include "format/file_constants.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "format/block_builder.h"
#include "format/row_bounds.h"
#include "format/v20_decode.h"
#include "lance_proto/file2.pb.h"

namespace lancet::format::internal {

namespace {

constexpr const char* kArrayEncodingUrl = "/lance.encodings.ArrayEncoding";

bool IsList(const DataType& t) { return t.id == TypeId::kList || t.id == TypeId::kLargeList; }

struct V20Page {
  uint64_t first_row = 0;
  uint64_t num_rows = 0;
  uint64_t items_base = 0;  // list pages: the first item row of this page's lists
  std::vector<io::ByteRange> buffers;
  pb20::ArrayEncoding encoding;
};

struct V20Column {
  std::vector<V20Page> pages;
  std::vector<uint64_t> page_end;  // first_row + num_rows, for binary search
  std::vector<io::ByteRange> buffers;
  uint64_t num_rows = 0;
  uint64_t num_items = 0;  // list columns: items referenced by all pages
  bool is_list = false, is_struct = false, is_blob = false;
};

// Rows [begin, end) of one column.
struct Span {
  uint64_t begin = 0, end = 0;
};

struct DecodedPage {
  V20Array values;
  V20ListPage list;
};

// Which column each field of the requested tree reads.
struct Node {
  const Field* field = nullptr;
  int column = -1;
  std::vector<Node> children;
};

using PageCache = std::map<std::pair<size_t, size_t>, std::shared_ptr<const DecodedPage>>;

Result<std::string> UnpackAny(const ::lance::file::v2::Encoding& enc, const char* url, const std::string& where) {
  if (enc.location_case() != ::lance::file::v2::Encoding::kDirect) {
    return Status::NotSupported(where + ": only direct encodings are supported");
  }
  google::protobuf::Any any;
  if (!any.ParseFromString(enc.direct().encoding())) {
    return Status::Corruption(where + ": encoding is not a valid google.protobuf.Any");
  }
  if (any.type_url() != url) {
    return Status::NotSupported(where + ": encoding type '" + any.type_url() + "' in a 2.0 file (expected '" + url +
                                "')");
  }
  return std::string(any.value());
}

class V20FileReader final : public FileReader {
 public:
  const std::string& path() const override { return path_; }
  bool cheap_reads() const override { return file_->cheap_reads(); }
  FileVersion version() const override { return {0, 3}; }
  uint64_t num_rows() const override { return num_rows_; }
  size_t num_columns() const override { return columns_.size(); }
  const Schema& file_schema() const override { return schema_; }
  Result<BufferPtr> ReadGlobalBuffer(uint32_t) const override {
    return Status::NotSupported(path_ + ": global buffers of Lance 2.0 files are not read");
  }

  Result<Array> ReadRange(const Field& field, std::span<const int> leaf_columns, uint64_t begin,
                          uint64_t end) const override {
    RETURN_IF_ERROR(internal::CheckRowRange(path_, begin, end, num_rows_));
    std::vector<Span> spans;
    if (end > begin) spans.push_back({begin, end});
    return ReadField(field, leaf_columns, spans);
  }

  Result<Array> Take(const Field& field, std::span<const int> leaf_columns,
                     std::span<const uint64_t> rows) const override {
    std::vector<Span> spans;
    spans.reserve(rows.size());
    RETURN_IF_ERROR(internal::CheckRows(path_, rows, num_rows_));
    for (uint64_t r : rows) spans.push_back({r, r + 1});
    return ReadField(field, leaf_columns, spans);
  }

  Result<std::vector<PageBounds>> ColumnPages(int) const override { return std::vector<PageBounds>{}; }

  Result<std::string> DescribeColumn(int column) const override {
    if (column < 0 || static_cast<size_t>(column) >= columns_.size()) {
      return Status::InvalidArgument(path_ + ": no column " + std::to_string(column));
    }
    const auto& col = columns_[column];
    std::ostringstream os;
    uint64_t bytes = 0;
    for (const auto& p : col.pages) {
      for (const auto& b : p.buffers) bytes += b.length;
    }
    os << "column " << column << ": " << col.pages.size() << " page(s), " << bytes << " bytes\n";
    for (size_t i = 0; i < col.pages.size(); ++i) {
      const auto& p = col.pages[i];
      uint64_t pb = 0;
      for (const auto& b : p.buffers) pb += b.length;
      os << "  page " << i << ": rows [" << p.first_row << ", " << p.first_row + p.num_rows << "), " << pb
         << " bytes, 2.0 " << DescribeV20Encoding(p.encoding) << "\n";
    }
    return os.str();
  }

  Status Init(std::shared_ptr<io::RandomAccessFile> file, uint64_t size, uint64_t num_rows, Schema schema,
              const std::vector<BufferPtr>& metadata);

 private:
  Status MapColumns(const Field& f, int parent);
  Status CheckRows(int column, uint64_t expected);
  Status Assign(const Field& f, std::span<const int> leaves, size_t* cursor, Node* node) const;
  Result<Array> ReadField(const Field& field, std::span<const int> leaf_columns, const std::vector<Span>& spans) const;
  Result<Array> ReadNode(const Node& node, const std::vector<Span>& spans, uint64_t total, PageCache* cache) const;
  Result<Array> ReadLeaf(const Node& node, const std::vector<Span>& spans, uint64_t total, PageCache* cache) const;
  Result<Array> ReadList(const Node& node, const std::vector<Span>& spans, uint64_t total, PageCache* cache) const;
  Result<std::shared_ptr<const DecodedPage>> Page(size_t column, size_t page_idx, PageCache* cache) const;
  std::string Where(size_t column) const { return path_ + ": column " + std::to_string(column); }

  std::shared_ptr<io::RandomAccessFile> file_;
  std::string path_;
  uint64_t num_rows_ = 0;
  Schema schema_;
  std::vector<V20Column> columns_;
  std::vector<int> parent_;             // per column: the column of its parent field, -1 at top level
  std::vector<const Field*> field_of_;  // per column: its field in schema_
};

Status V20FileReader::MapColumns(const Field& f, int parent) {
  const int column = static_cast<int>(field_of_.size());
  field_of_.push_back(&f);
  parent_.push_back(parent);
  // Packed structs and fixed-size lists are one column; lists and structs recurse.
  if (IsLeafField(f) || f.type.id == TypeId::kMap) return Status::OK();
  for (const auto& c : f.type.children) RETURN_IF_ERROR(MapColumns(c, column));
  return Status::OK();
}

// Row counts must chain: a struct's children have its rows, a list's items have the
// items its pages reference.
Status V20FileReader::CheckRows(int column, uint64_t expected) {
  const auto& col = columns_[column];
  if (col.num_rows != expected) {
    return Status::Corruption(Where(column) + " ('" + field_of_[column]->name + "') has " +
                              std::to_string(col.num_rows) + " rows, expected " + std::to_string(expected));
  }
  const uint64_t child_rows = col.is_list ? col.num_items : col.num_rows;
  for (size_t c = column + 1; c < columns_.size(); ++c) {
    if (parent_[c] == column) RETURN_IF_ERROR(CheckRows(static_cast<int>(c), child_rows));
  }
  return Status::OK();
}

Status V20FileReader::Init(std::shared_ptr<io::RandomAccessFile> file, uint64_t size, uint64_t num_rows, Schema schema,
                           const std::vector<BufferPtr>& metadata) {
  file_ = std::move(file);
  path_ = file_->path();
  num_rows_ = num_rows;
  schema_ = std::move(schema);
  for (const auto& f : schema_.fields) RETURN_IF_ERROR(MapColumns(f, -1));
  auto check_range = [&](const io::ByteRange& r, const std::string& where) -> Status {
    uint64_t end;
    if (__builtin_add_overflow(r.offset, r.length, &end) || end > size) {
      return Status::Corruption(where + " [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                                ") runs past the file end " + std::to_string(size));
    }
    return Status::OK();
  };
  columns_.resize(metadata.size());
  for (size_t c = 0; c < metadata.size(); ++c) {
    const std::string where = Where(c);
    ::lance::file::v2::ColumnMetadata cm;
    const Buffer& bytes = *metadata[c];
    if (bytes.size() > (1ULL << 31) || !cm.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return Status::Corruption(where + ": metadata is not a ColumnMetadata protobuf");
    }
    auto& col = columns_[c];
    if (cm.has_encoding()) {
      ASSIGN_OR_RETURN(std::string ce_bytes, UnpackAny(cm.encoding(), kColumnEncodingUrl, where));
      pb20::ColumnEncoding ce;
      if (!ce.ParseFromString(ce_bytes)) return Status::Corruption(where + ": column encoding is not a ColumnEncoding");
      col.is_blob = ce.has_blob();
    }
    if (cm.buffer_offsets_size() != cm.buffer_sizes_size()) {
      return Status::Corruption(where + ": column buffer offsets and sizes differ in count");
    }
    for (int b = 0; b < cm.buffer_offsets_size(); ++b) {
      io::ByteRange r{cm.buffer_offsets(b), cm.buffer_sizes(b)};
      RETURN_IF_ERROR(check_range(r, where + " buffer " + std::to_string(b)));
      col.buffers.push_back(r);
    }
    uint64_t row = 0, items = 0;
    for (int p = 0; p < cm.pages_size(); ++p) {
      const auto& page = cm.pages(p);
      const std::string pwhere = where + " page " + std::to_string(p);
      if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return Status::Corruption(pwhere + ": buffer offsets and sizes differ in count");
      }
      V20Page entry;
      for (int b = 0; b < page.buffer_offsets_size(); ++b) {
        io::ByteRange r{page.buffer_offsets(b), page.buffer_sizes(b)};
        RETURN_IF_ERROR(check_range(r, pwhere + ": buffer " + std::to_string(b)));
        entry.buffers.push_back(r);
      }
      if (!page.has_encoding()) return Status::Corruption(pwhere + " is missing its encoding");
      ASSIGN_OR_RETURN(std::string enc_bytes, UnpackAny(page.encoding(), kArrayEncodingUrl, pwhere));
      if (!entry.encoding.ParseFromString(enc_bytes)) {
        return Status::Corruption(pwhere + ": encoding is not an ArrayEncoding protobuf");
      }
      const bool is_list = entry.encoding.has_list();
      const bool is_struct = entry.encoding.has_struct_();
      if (p > 0 && (is_list != col.is_list || is_struct != col.is_struct)) {
        return Status::Corruption(pwhere + " mixes list/struct pages with other pages");
      }
      col.is_list = is_list;
      col.is_struct = is_struct;
      entry.first_row = row;
      entry.num_rows = page.length();
      entry.items_base = items;
      if (__builtin_add_overflow(row, page.length(), &row) ||
          (is_list && __builtin_add_overflow(items, entry.encoding.list().num_items(), &items))) {
        return Status::Corruption(pwhere + ": row counts overflow");
      }
      col.pages.push_back(std::move(entry));
      col.page_end.push_back(row);
    }
    col.num_rows = row;
    col.num_items = items;
  }
  // Checked after the pages so that a mislabelled 2.1 file reports its page encodings.
  if (field_of_.size() != metadata.size()) {
    return Status::Corruption(path_ + ": the 2.0 schema has " + std::to_string(field_of_.size()) +
                              " fields (one column each) but the file has " + std::to_string(metadata.size()) +
                              " columns");
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (parent_[c] < 0) RETURN_IF_ERROR(CheckRows(static_cast<int>(c), num_rows_));
  }
  return Status::OK();
}

// Leaves get the caller's columns; a struct or list reads the column of the file
// field that is the parent of its children's columns.
Status V20FileReader::Assign(const Field& f, std::span<const int> leaves, size_t* cursor, Node* node) const {
  node->field = &f;
  if (IsLeafField(f)) {
    if (*cursor >= leaves.size()) return Status::InvalidArgument(path_ + ": too few leaf columns");
    node->column = leaves[(*cursor)++];
    if (node->column >= static_cast<int>(columns_.size())) {
      return Status::InvalidArgument(path_ + ": no column " + std::to_string(node->column));
    }
    return Status::OK();
  }
  if (f.type.id == TypeId::kMap) return Status::NotSupported(path_ + ": map fields in Lance 2.0 files");
  node->children.resize(f.type.children.size());
  for (size_t i = 0; i < f.type.children.size(); ++i) {
    RETURN_IF_ERROR(Assign(f.type.children[i], leaves, cursor, &node->children[i]));
    const int child = node->children[i].column;
    if (child < 0) continue;
    const int parent = parent_[child];
    if (parent < 0) {
      return Status::InvalidArgument(path_ + ": column " + std::to_string(child) + " given for a child of '" + f.name +
                                     "' is a top-level column");
    }
    if (node->column >= 0 && node->column != parent) {
      return Status::InvalidArgument(path_ + ": the columns given for '" + f.name + "' have different parents");
    }
    node->column = parent;
  }
  if (node->column >= 0) {
    const auto& col = columns_[node->column];
    if (IsList(f.type) ? !col.is_list : !col.is_struct) {
      return Status::Corruption(Where(node->column) + " is not the " + (IsList(f.type) ? "list" : "struct") +
                                " column of '" + f.name + "'");
    }
  }
  return Status::OK();
}

Result<Array> V20FileReader::ReadField(const Field& field, std::span<const int> leaf_columns,
                                       const std::vector<Span>& spans) const {
  Node root;
  size_t cursor = 0;
  RETURN_IF_ERROR(Assign(field, leaf_columns, &cursor, &root));
  if (cursor != leaf_columns.size()) {
    return Status::InvalidArgument(path_ + ": field '" + field.name + "' has " + std::to_string(cursor) +
                                   " leaf columns, " + std::to_string(leaf_columns.size()) + " were given");
  }
  if (root.column >= 0 && parent_[root.column] >= 0) {
    return Status::InvalidArgument(path_ + ": column " + std::to_string(root.column) + " is not a top-level column");
  }
  uint64_t total = 0;
  for (const auto& s : spans) total += s.end - s.begin;
  PageCache cache;
  return ReadNode(root, spans, total, &cache);
}

Result<Array> V20FileReader::ReadNode(const Node& node, const std::vector<Span>& spans, uint64_t total,
                                      PageCache* cache) const {
  const Field& f = *node.field;
  if (node.column < 0) return NullArrayOf(f.type, static_cast<int64_t>(total));
  if (columns_[node.column].is_blob) return Status::NotSupported(Where(node.column) + ": blob columns in 2.0 files");
  if (IsLeafField(f)) return ReadLeaf(node, spans, total, cache);
  if (IsList(f.type)) return ReadList(node, spans, total, cache);
  // 2.0 struct columns carry no validity: every struct slot is valid.
  Array a;
  a.type = f.type;
  a.length = static_cast<int64_t>(total);
  a.buffers.push_back(nullptr);
  for (const auto& child : node.children) {
    ASSIGN_OR_RETURN(Array c, ReadNode(child, spans, total, cache));
    a.children.push_back(std::move(c));
  }
  return a;
}

Result<std::shared_ptr<const DecodedPage>> V20FileReader::Page(size_t column, size_t page_idx, PageCache* cache) const {
  auto it = cache->find({column, page_idx});
  if (it != cache->end()) return it->second;
  const auto& col = columns_[column];
  const auto& page = col.pages[page_idx];
  const std::string where = Where(column) + " page " + std::to_string(page_idx);
  std::vector<io::ByteRange> ranges;
  for (const auto& r : page.buffers) {
    if (r.length > 0) ranges.push_back(r);
  }
  for (const auto& r : col.buffers) {
    if (r.length > 0) ranges.push_back(r);
  }
  std::vector<BufferPtr> got;
  if (!ranges.empty()) {
    ASSIGN_OR_RETURN(got, file_->ReadMany(ranges));
    if (got.size() != ranges.size()) return Status::IOError(where + ": short ReadMany result");
  }
  V20Buffers bufs;
  size_t k = 0;
  auto take = [&](const io::ByteRange& r) -> Result<BufferPtr> {
    if (r.length == 0) return BufferPtr(Buffer::Empty());
    BufferPtr b = got[k++];
    if (!b || b->size() != r.length) return Status::IOError(where + ": short read");
    return b;
  };
  for (const auto& r : page.buffers) {
    ASSIGN_OR_RETURN(BufferPtr b, take(r));
    bufs.page.push_back(std::move(b));
  }
  for (const auto& r : col.buffers) {
    ASSIGN_OR_RETURN(BufferPtr b, take(r));
    bufs.column.push_back(std::move(b));
  }
  auto decoded = std::make_shared<DecodedPage>();
  if (col.is_list) {
    auto list = DecodeV20List(page.encoding.list(), bufs, page.num_rows);
    if (!list.ok()) return list.status().WithContext(where);
    decoded->list = list.MoveValue();
  } else {
    auto values = DecodeV20Array(page.encoding, bufs, page.num_rows);
    if (!values.ok()) return values.status().WithContext(where);
    decoded->values = values.MoveValue();
    if (decoded->values.values.num_values != page.num_rows ||
        (!decoded->values.valid.empty() && decoded->values.valid.size() != page.num_rows)) {
      return Status::Corruption(where + ": decoded " + std::to_string(decoded->values.values.num_values) +
                                " values for " + std::to_string(page.num_rows) + " rows");
    }
  }
  cache->emplace(std::make_pair(column, page_idx), decoded);
  return std::shared_ptr<const DecodedPage>(decoded);
}

// Calls fn(page_idx, page_begin, page_end) for the page pieces covering each span.
template <typename Fn>
Status ForEachPiece(const V20Column& col, const std::vector<Span>& spans, const std::string& where, Fn fn) {
  for (const auto& s : spans) {
    if (s.end > col.num_rows) {
      return Status::Corruption(where + ": rows [" + std::to_string(s.begin) + ", " + std::to_string(s.end) +
                                ") past the column's " + std::to_string(col.num_rows));
    }
    size_t p = std::upper_bound(col.page_end.begin(), col.page_end.end(), s.begin) - col.page_end.begin();
    for (; p < col.pages.size() && col.pages[p].first_row < s.end; ++p) {
      const auto& page = col.pages[p];
      const uint64_t b = std::max(s.begin, page.first_row) - page.first_row;
      const uint64_t e = std::min(s.end, page.first_row + page.num_rows) - page.first_row;
      if (b < e) RETURN_IF_ERROR(fn(p, b, e));
    }
  }
  return Status::OK();
}

Result<Array> V20FileReader::ReadLeaf(const Node& node, const std::vector<Span>& spans, uint64_t total,
                                      PageCache* cache) const {
  const size_t column = static_cast<size_t>(node.column);
  const auto& col = columns_[column];
  if (col.is_list || col.is_struct) {
    return Status::Corruption(Where(column) + " holds " + (col.is_list ? "list offsets" : "a struct") + " but field '" +
                              node.field->name + "' is a leaf");
  }
  BlockBuilder builder;
  std::vector<uint8_t> valid;
  bool any_null = false;
  RETURN_IF_ERROR(ForEachPiece(col, spans, Where(column), [&](size_t p, uint64_t b, uint64_t e) -> Status {
    ASSIGN_OR_RETURN(auto page, Page(column, p, cache));
    const V20Array& v = page->values;
    RETURN_IF_ERROR(builder.Append(v.values, b, e).WithContext(Where(column) + " page " + std::to_string(p)));
    if (v.valid.empty()) {
      valid.insert(valid.end(), e - b, 1);
    } else {
      valid.insert(valid.end(), v.valid.begin() + b, v.valid.begin() + e);
      any_null = any_null || std::find(v.valid.begin() + b, v.valid.begin() + e, 0) != v.valid.begin() + e;
    }
    return Status::OK();
  }));
  if (builder.size() != total) return Status::Corruption(Where(column) + ": pages do not cover the requested rows");
  if (!any_null) valid.clear();
  ASSIGN_OR_RETURN(encoding::DataBlock block, builder.Finish());
  ASSIGN_OR_RETURN(Array a,
                   BlockToArray(node.field->type, block, valid, Where(column) + " ('" + node.field->name + "')"));
  a.type = node.field->type;
  return a;
}

Result<Array> V20FileReader::ReadList(const Node& node, const std::vector<Span>& spans, uint64_t total,
                                      PageCache* cache) const {
  const size_t column = static_cast<size_t>(node.column);
  const auto& col = columns_[column];
  if (node.children.size() != 1) return Status::Corruption(Where(column) + ": a list needs one item field");
  std::vector<int64_t> offsets{0};
  offsets.reserve(total + 1);
  std::vector<uint8_t> valid;
  valid.reserve(total);
  std::vector<Span> items;
  uint64_t num_items = 0;
  RETURN_IF_ERROR(ForEachPiece(col, spans, Where(column), [&](size_t p, uint64_t b, uint64_t e) -> Status {
    ASSIGN_OR_RETURN(auto page, Page(column, p, cache));
    const V20ListPage& lp = page->list;
    const uint64_t base = col.pages[p].items_base;
    for (uint64_t i = b; i < e; ++i) {
      const uint64_t s = base + lp.offsets[i], t = base + lp.offsets[i + 1];
      num_items += t - s;
      offsets.push_back(static_cast<int64_t>(num_items));
      valid.push_back(lp.valid[i]);
      if (t == s) continue;
      if (!items.empty() && items.back().end == s) {
        items.back().end = t;
      } else {
        items.push_back({s, t});
      }
    }
    return Status::OK();
  }));
  if (valid.size() != total) return Status::Corruption(Where(column) + ": pages do not cover the requested rows");
  if (node.field->type.id == TypeId::kList && num_items > static_cast<uint64_t>(INT32_MAX)) {
    return Status::NotSupported(Where(column) + ": more than 2^31 list items in one read");
  }
  ASSIGN_OR_RETURN(Array child, ReadNode(node.children[0], items, num_items, cache));
  Array a;
  a.type = node.field->type;
  a.length = static_cast<int64_t>(total);
  a.buffers.push_back(PackValidity(valid, &a.null_count));
  if (node.field->type.id == TypeId::kList) {
    std::vector<uint8_t> bytes(offsets.size() * 4);
    for (size_t i = 0; i < offsets.size(); ++i) {
      const int32_t v = static_cast<int32_t>(offsets[i]);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
    a.buffers.push_back(Buffer::FromVector(std::move(bytes)));
  } else {
    std::vector<uint8_t> bytes(offsets.size() * 8);
    std::memcpy(bytes.data(), offsets.data(), bytes.size());
    a.buffers.push_back(Buffer::FromVector(std::move(bytes)));
  }
  a.children.push_back(std::move(child));
  return a;
}

}  // namespace

Result<std::unique_ptr<FileReader>> OpenV20File(std::shared_ptr<io::RandomAccessFile> file, uint64_t size,
                                                uint64_t num_rows, Schema schema,
                                                const std::vector<BufferPtr>& column_metadata) {
  auto reader = std::make_unique<V20FileReader>();
  RETURN_IF_ERROR(reader->Init(std::move(file), size, num_rows, std::move(schema), column_metadata));
  return std::unique_ptr<FileReader>(std::move(reader));
}

}  // namespace lancet::format::internal
