// The Lance 2.2 file container (docs/format §6): page buffers as they are flushed,
// then global buffer 0 (FileDescriptor), column metadata, the offset tables and the
// 40-byte footer.
#include "lancet/format/file_writer.h"

#include <google/protobuf/any.pb.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "format/file_constants.h"
#include "format/lance_schema.h"
#include "format/page_encoder.h"
#include "format/repdef_writer.h"
#include "lance_proto/encodings_v2_0.pb.h"
#include "lance_proto/file.pb.h"
#include "lance_proto/file2.pb.h"
#include "util/thread_pool.h"

namespace lancet::format {

namespace {

namespace pb21 = ::lance::encodings21;
namespace pbv2 = ::lance::file::v2;

// docs/format §6.1: PAGE_BUFFER_ALIGNMENT and its pad byte ('H').
constexpr uint64_t kBufferAlignment = 64;
constexpr uint8_t kBufferPad = 0x48;
constexpr uint16_t kMajorVersion = 2;
// A mini-block chunk holds at most 32767 raw levels; runs of null/empty lists are
// the only levels that cannot be split by value, so a page ends before they get long.
constexpr uint64_t kMaxInvisibleRun = 8192;

class LocalFileSink : public OutputSink {
 public:
  LocalFileSink(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  ~LocalFileSink() override {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Append(std::span<const uint8_t> bytes) override {
    if (f_ == nullptr) return Status::IOError(path_ + ": write after close");
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) {
      return Status::IOError(path_ + ": write failed: " + std::strerror(errno));
    }
    return Status::OK();
  }
  Status Close() override {
    if (f_ == nullptr) return Status::OK();
    const int rc = std::fclose(f_);
    f_ = nullptr;
    if (rc != 0) return Status::IOError(path_ + ": close failed: " + std::strerror(errno));
    return Status::OK();
  }

 private:
  std::FILE* f_;
  std::string path_;
};

// Streams through the store's ObjectWriter, opened at the first byte so a writer that
// fails early leaves nothing behind.
class StoreSink : public OutputSink {
 public:
  StoreSink(std::shared_ptr<io::ObjectStore> store, std::string path)
      : store_(std::move(store)), path_(std::move(path)) {}
  Status Append(std::span<const uint8_t> bytes) override {
    if (!out_) {
      ASSIGN_OR_RETURN(out_, store_->OpenWrite(path_));
    }
    return out_->Append(bytes);
  }
  Status Close() override {
    if (!out_) {
      ASSIGN_OR_RETURN(out_, store_->OpenWrite(path_));
    }
    return out_->Close();
  }

 private:
  std::shared_ptr<io::ObjectStore> store_;
  std::string path_;
  std::unique_ptr<io::ObjectWriter> out_;
};

std::string PackAny(const char* url, const google::protobuf::Message& msg) {
  google::protobuf::Any any;
  any.set_type_url(url);
  any.set_value(msg.SerializeAsString());
  return any.SerializeAsString();
}

class FileWriterImpl;

// One leaf column: its pending page (levels + values) and the pages written so far.
class ColumnWriter {
 public:
  ColumnWriter(internal::LeafColumn column, internal::PageValues values, internal::ColumnEncodingOptions options)
      : column_(std::move(column)), values_(std::move(values)), options_(options) {}

  /// Buffers a slice's levels and values; full pages are encoded into pending(), not
  /// written, so that columns can be appended to in parallel.
  Status Append(const internal::Shredded& s, uint64_t max_page_bytes);
  /// Encodes the buffered rows (if any) as one more pending page.
  Status EncodePage();
  /// Writes the pending pages, in order, and records them in the metadata.
  Status WritePending(FileWriterImpl* writer);

  const internal::LeafColumn& column() const { return column_; }
  pbv2::ColumnMetadata& metadata() { return metadata_; }
  ColumnStats& stats() { return stats_; }

 private:
  bool PageFull(uint64_t max_page_bytes) const {
    return values_.bytes() + 4 * (rep_.size() + def_.size()) >= max_page_bytes || invisible_run_ >= kMaxInvisibleRun;
  }

  internal::LeafColumn column_;
  internal::PageValues values_;
  internal::ColumnEncodingOptions options_;
  std::vector<uint16_t> rep_;
  std::vector<uint16_t> def_;
  uint64_t page_rows_ = 0;
  uint64_t page_first_row_ = 0;
  uint64_t invisible_run_ = 0;
  pbv2::ColumnMetadata metadata_;
  ColumnStats stats_;
  std::set<std::string> encodings_;
  struct Pending {
    internal::EncodedPage page;
    uint64_t rows = 0;
    uint64_t first_row = 0;
  };
  std::vector<Pending> pending_;
  friend class FileWriterImpl;
};

class FileWriterImpl : public FileWriter {
 public:
  FileWriterImpl(std::unique_ptr<OutputSink> sink, Schema schema, FileWriterOptions options)
      : sink_(std::move(sink)), schema_(std::move(schema)), options_(options) {}

  Status Init() {
    ASSIGN_OR_RETURN(auto leaves, internal::LeafColumnsOf(schema_));
    internal::ColumnEncodingOptions base;
    base.enable_bitpacking = options_.enable_bitpacking;
    base.enable_dictionary = options_.enable_dictionary;
    base.enable_fsst = options_.enable_fsst;
    for (auto& leaf : leaves) {
      ASSIGN_OR_RETURN(internal::PageValues values, internal::PageValues::ForType(leaf.leaf().type));
      // A top-level field's keys reach all its leaves; the leaf's own keys win.
      ASSIGN_OR_RETURN(internal::ColumnEncodingOptions opts,
                       internal::EncodingOptionsFor(*leaf.path.front().field, base));
      if (leaf.path.size() > 1) {
        ASSIGN_OR_RETURN(opts, internal::EncodingOptionsFor(leaf.leaf(), opts));
      }
      auto col = std::make_unique<ColumnWriter>(std::move(leaf), std::move(values), opts);
      col->stats_.path = col->column_.name;
      col->stats_.field_id = col->column_.leaf().id;
      columns_.push_back(std::move(col));
    }
    return Status::OK();
  }

  const Schema& schema() const override { return schema_; }

  Status Write(const RecordBatch& batch) override {
    if (finished_) return Status::InvalidArgument("FileWriter: Write after Finish");
    if (batch.columns.size() != schema_.fields.size()) {
      return Status::InvalidArgument("FileWriter: batch has " + std::to_string(batch.columns.size()) +
                                     " columns, the schema " + std::to_string(schema_.fields.size()));
    }
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      const Array& a = batch.columns[i];
      if (a.type != schema_.fields[i].type) {
        return Status::InvalidArgument("FileWriter: column '" + schema_.fields[i].name + "' is " + a.type.ToString() +
                                       " but the schema says " + schema_.fields[i].type.ToString());
      }
      if (a.length != batch.num_rows) {
        return Status::InvalidArgument("FileWriter: column '" + schema_.fields[i].name + "' has " +
                                       std::to_string(a.length) + " rows, the batch " + std::to_string(batch.num_rows));
      }
    }
    const int64_t step = std::max<int64_t>(1, options_.shred_rows);
    shredded_.resize(columns_.size());
    for (int64_t begin = 0; begin < batch.num_rows; begin += step) {
      const int64_t end = std::min(batch.num_rows, begin + step);
      RETURN_IF_ERROR(ForEachColumn(end - begin, [&](size_t c) {
        ColumnWriter& col = *columns_[c];
        const Array& top = batch.columns[col.column().top_level_index];
        RETURN_IF_ERROR(internal::Shred(col.column(), top, begin, end, &shredded_[c]));
        return col.Append(shredded_[c], options_.max_page_bytes);
      }));
      num_rows_ += static_cast<uint64_t>(end - begin);
    }
    return Status::OK();
  }

  Result<uint64_t> WriteRawBuffer(std::span<const uint8_t> bytes) override {
    if (finished_) return Status::InvalidArgument("FileWriter: write after Finish");
    return WriteAligned(bytes);
  }

  Result<uint32_t> WriteGlobalBuffer(std::span<const uint8_t> bytes) override {
    if (finished_) return Status::InvalidArgument("FileWriter: write after Finish");
    ASSIGN_OR_RETURN(uint64_t at, WriteAligned(bytes));
    extra_globals_.emplace_back(at, bytes.size());
    return static_cast<uint32_t>(extra_globals_.size());
  }

  Result<FileStats> Finish() override {
    if (finished_) return Status::InvalidArgument("FileWriter: Finish called twice");
    finished_ = true;
    RETURN_IF_ERROR(
        ForEachColumn(std::numeric_limits<int64_t>::max(), [&](size_t c) { return columns_[c]->EncodePage(); }));

    // Global buffer 0: the schema and row count.
    ::lance::file::FileDescriptor fd;
    ASSIGN_OR_RETURN(auto fields, SchemaToLance(schema_));
    auto* schema_pb = fd.mutable_schema();
    for (auto& f : fields) *schema_pb->add_fields() = std::move(f);
    for (const auto& [k, v] : schema_.metadata) (*schema_pb->mutable_metadata())[k] = v;
    fd.set_length(num_rows_);
    const std::string fd_bytes = fd.SerializeAsString();
    RETURN_IF_ERROR(PadToAlignment());
    const uint64_t gb0_pos = pos_;
    RETURN_IF_ERROR(Emit(fd_bytes));

    ::lance::encodings::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    const std::string column_encoding_any = PackAny(kColumnEncodingUrl, column_encoding);

    const uint64_t column_meta_start = pos_;
    std::vector<std::pair<uint64_t, uint64_t>> cmo;
    for (auto& col : columns_) {
      col->metadata().mutable_encoding()->mutable_direct()->set_encoding(column_encoding_any);
      const std::string bytes = col->metadata().SerializeAsString();
      cmo.emplace_back(pos_, bytes.size());
      RETURN_IF_ERROR(Emit(bytes));
    }
    const uint64_t cmo_pos = pos_;
    std::string table;
    for (auto [p, s] : cmo) {
      AppendLE(&table, p);
      AppendLE(&table, s);
    }
    RETURN_IF_ERROR(Emit(table));
    const uint64_t gbo_pos = pos_;
    table.clear();
    AppendLE(&table, gb0_pos);
    AppendLE(&table, static_cast<uint64_t>(fd_bytes.size()));
    for (auto [p, n] : extra_globals_) {
      AppendLE(&table, p);
      AppendLE(&table, n);
    }
    RETURN_IF_ERROR(Emit(table));

    std::string footer;
    AppendLE(&footer, column_meta_start);
    AppendLE(&footer, cmo_pos);
    AppendLE(&footer, gbo_pos);
    AppendLE(&footer, static_cast<uint32_t>(1 + extra_globals_.size()));
    AppendLE(&footer, static_cast<uint32_t>(columns_.size()));
    AppendLE(&footer, kMajorVersion);
    AppendLE(&footer, options_.minor_version);
    footer.append(kMagic, 4);
    RETURN_IF_ERROR(Emit(footer));
    RETURN_IF_ERROR(sink_->Close());

    FileStats stats;
    stats.num_rows = num_rows_;
    stats.file_size = pos_;
    for (auto& col : columns_) {
      col->stats_.encodings.assign(col->encodings_.begin(), col->encodings_.end());
      stats.columns.push_back(col->stats_);
    }
    return stats;
  }

  Result<uint64_t> WriteAligned(std::span<const uint8_t> bytes) {
    RETURN_IF_ERROR(PadToAlignment());
    const uint64_t at = pos_;
    RETURN_IF_ERROR(Emit(bytes));
    return at;
  }

 private:
  template <typename T>
  static void AppendLE(std::string* out, T v) {
    char buf[sizeof(T)];
    std::memcpy(buf, &v, sizeof(T));
    out->append(buf, sizeof(T));
  }

  Status Emit(std::span<const uint8_t> bytes) {
    RETURN_IF_ERROR(sink_->Append(bytes));
    pos_ += bytes.size();
    return Status::OK();
  }
  Status Emit(const std::string& bytes) {
    return Emit(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  Status PadToAlignment() {
    const uint64_t pad = (kBufferAlignment - pos_ % kBufferAlignment) % kBufferAlignment;
    if (pad == 0) return Status::OK();
    const std::vector<uint8_t> fill(pad, kBufferPad);
    return Emit(fill);
  }

  // Runs fn on every column, in parallel when there are `rows` worth it (columns are
  // independent until their pages are written), then writes the pages encoded
  // meanwhile in column order: the bytes are those of a serial write.
  template <typename Fn>
  Status ForEachColumn(int64_t rows, Fn&& fn) {
    std::vector<Status> status(columns_.size());
    const size_t parallel = rows >= kParallelColumnRows ? ThreadPool::Cpu().size() : 1;
    ParallelFor(ThreadPool::Cpu(), columns_.size(), parallel, [&](size_t c) { status[c] = fn(c); });
    for (size_t c = 0; c < columns_.size(); ++c) {
      RETURN_IF_ERROR(status[c]);
      RETURN_IF_ERROR(columns_[c]->WritePending(this));
    }
    return Status::OK();
  }
  static constexpr int64_t kParallelColumnRows = 4096;

  std::unique_ptr<OutputSink> sink_;
  Schema schema_;
  FileWriterOptions options_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<internal::Shredded> shredded_;  // per column, reused across slices
  uint64_t pos_ = 0;
  uint64_t num_rows_ = 0;
  bool finished_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> extra_globals_;  // global buffers 1.. (offset, size)
};

Status ColumnWriter::Append(const internal::Shredded& s, uint64_t max_page_bytes) {
  const bool has_rep = column_.max_rep > 0;
  const bool has_def = column_.max_def > 0;
  const uint64_t num_levels = has_rep ? s.rep.size() : has_def ? s.def.size() : s.slots.size();
  const uint64_t limit = max_page_bytes;
  size_t slot = 0;
  for (uint64_t l = 0; l < num_levels; ++l) {
    const bool row_start = !has_rep || s.rep[l] == column_.max_rep;
    if (row_start) {
      if (page_rows_ > 0 && PageFull(limit)) RETURN_IF_ERROR(EncodePage());
      ++page_rows_;
    }
    if (has_rep) rep_.push_back(s.rep[l]);
    bool visible = true;
    if (has_def) {
      def_.push_back(s.def[l]);
      visible = column_.max_visible_def < 0 || s.def[l] <= column_.max_visible_def;
    }
    if (visible) {
      if (slot >= s.slots.size()) return Status::Internal(column_.name + ": more visible levels than slots");
      RETURN_IF_ERROR(values_.Append(s.leaf, s.slots[slot], s.slot_null[slot] != 0));
      ++slot;
      invisible_run_ = 0;
    } else {
      ++invisible_run_;
    }
  }
  return Status::OK();
}

Status ColumnWriter::EncodePage() {
  if (page_rows_ == 0) return Status::OK();
  internal::PageInput input;
  input.layers = &column_.layers;
  input.max_rep = column_.max_rep;
  input.max_def = column_.max_def;
  input.max_visible_def = column_.max_visible_def;
  input.rep = &rep_;
  input.def = &def_;
  input.values = &values_;
  input.num_rows = page_rows_;
  ASSIGN_OR_RETURN(internal::EncodedPage page, internal::EncodePage(input, options_, column_.name));
  pending_.push_back({std::move(page), page_rows_, page_first_row_});
  page_first_row_ += page_rows_;
  page_rows_ = 0;
  invisible_run_ = 0;
  rep_.clear();
  def_.clear();
  values_.Clear();
  return Status::OK();
}

Status ColumnWriter::WritePending(FileWriterImpl* writer) {
  for (Pending& p : pending_) {
    auto* pg = metadata_.add_pages();
    for (const auto& buf : p.page.buffers) {
      ASSIGN_OR_RETURN(uint64_t at, writer->WriteAligned(buf));
      pg->add_buffer_offsets(at);
      pg->add_buffer_sizes(buf.size());
      stats_.bytes += buf.size();
    }
    pg->set_length(p.rows);
    pg->set_priority(p.first_row);
    pg->mutable_encoding()->mutable_direct()->set_encoding(PackAny(kPageLayoutUrl, p.page.layout));
    ++stats_.num_pages;
    encodings_.insert(p.page.description);
  }
  pending_.clear();
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<OutputSink>> OpenLocalFileSink(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError(path + ": cannot create: " + std::strerror(errno));
  return std::unique_ptr<OutputSink>(std::make_unique<LocalFileSink>(f, path));
}

std::unique_ptr<OutputSink> MakeObjectStoreSink(std::shared_ptr<io::ObjectStore> store, std::string path) {
  return std::make_unique<StoreSink>(std::move(store), std::move(path));
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::unique_ptr<OutputSink> sink, const Schema& schema,
                                                     FileWriterOptions options) {
  if (!sink) return Status::InvalidArgument("FileWriter: no output sink");
  if (options.max_page_bytes == 0) return Status::InvalidArgument("FileWriter: max_page_bytes must be positive");
  if (options.minor_version != 2 && options.minor_version != 3) {
    return Status::InvalidArgument("FileWriter: file version 2." + std::to_string(options.minor_version) +
                                   " cannot be written (2.2 or 2.3)");
  }
  Schema with_ids = schema;
  RETURN_IF_ERROR(AssignFieldIds(&with_ids));
  // Fail early on types Lance has no logical type for.
  RETURN_IF_ERROR(SchemaToLance(with_ids).status());
  auto writer = std::make_unique<FileWriterImpl>(std::move(sink), std::move(with_ids), options);
  RETURN_IF_ERROR(writer->Init());
  return std::unique_ptr<FileWriter>(std::move(writer));
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::shared_ptr<io::ObjectStore> store, const std::string& path,
                                                     const Schema& schema, FileWriterOptions options) {
  if (!store) return Status::InvalidArgument("FileWriter: no object store");
  return Open(MakeObjectStoreSink(std::move(store), path), schema, options);
}

}  // namespace lancet::format
