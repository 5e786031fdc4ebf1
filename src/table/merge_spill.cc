#include "table/merge_spill.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/io/input_stream.h"
#include "lancet/io/object_store.h"

namespace lancet::table {
namespace {

uint64_t SpillArrayBytes(const Array& a) {
  uint64_t n = 0;
  for (const BufferPtr& b : a.buffers) n += b ? b->size() : 0;
  for (const Array& c : a.children) n += SpillArrayBytes(c);
  if (a.dictionary) n += SpillArrayBytes(*a.dictionary);
  return n;
}

// Spill files are written through a buffer: the IPC writer hands over each buffer of a
// message separately, and a syscall per buffer would dominate small batches. Small,
// since every partition has one.
constexpr size_t kSpillWriteBuffer = 64 << 10;

}  // namespace

uint64_t BatchBytes(const RecordBatch& batch) {
  uint64_t n = 0;
  for (const Array& a : batch.columns) n += SpillArrayBytes(a);
  return n;
}

Result<std::unique_ptr<SpillDir>> SpillDir::Make(const std::string& parent) {
  std::error_code ec;
  std::filesystem::path base =
      parent.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent);
  if (ec) return Status::IOError("merge insert: no temp directory for spill files: " + ec.message());
  std::string pattern = (base / "lancet-merge-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("merge insert: cannot create a spill directory under " + base.string());
  }
  return std::unique_ptr<SpillDir>(new SpillDir(pattern));
}

SpillDir::~SpillDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

class PartitionedSpill::File {
 public:
  static Result<std::unique_ptr<File>> Open(const std::string& path, const Schema& schema) {
    auto f = std::make_unique<File>();
    ASSIGN_OR_RETURN(f->out_, io::LocalFileSystem(false)->OpenWrite(path));
    File* self = f.get();
    ASSIGN_OR_RETURN(f->ipc_, format::IpcBatchWriter::Open(
                                  [self](std::span<const uint8_t> bytes) { return self->Sink(bytes); }, schema));
    return f;
  }
  Status Write(const RecordBatch& batch) { return ipc_->Write(batch); }
  Status Finish() {
    RETURN_IF_ERROR(ipc_->Finish());
    RETURN_IF_ERROR(Flush());
    std::vector<uint8_t>().swap(buffer_);
    return out_->Close();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  Status Sink(std::span<const uint8_t> bytes) {
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
    bytes_ += bytes.size();
    return buffer_.size() >= kSpillWriteBuffer ? Flush() : Status::OK();
  }
  Status Flush() {
    RETURN_IF_ERROR(out_->Append(buffer_));
    buffer_.clear();
    return Status::OK();
  }
  std::unique_ptr<io::ObjectWriter> out_;
  std::unique_ptr<format::IpcBatchWriter> ipc_;
  std::vector<uint8_t> buffer_;
  uint64_t bytes_ = 0;
};

Result<std::unique_ptr<PartitionedSpill>> PartitionedSpill::Open(const std::string& dir, const std::string& stem,
                                                                 const Schema& schema, uint32_t partitions) {
  auto spill = std::make_unique<PartitionedSpill>();
  for (uint32_t p = 0; p < partitions; ++p) {
    spill->paths_.push_back(dir + "/" + stem + "-" + std::to_string(p) + ".arrows");
    ASSIGN_OR_RETURN(std::unique_ptr<File> f, File::Open(spill->paths_.back(), schema));
    spill->files_.push_back(std::move(f));
  }
  return spill;
}

PartitionedSpill::~PartitionedSpill() {
  // Closed (or abandoned) first, so that nothing writes to a removed file.
  files_.clear();
  std::error_code ec;
  for (const std::string& path : paths_) std::filesystem::remove(path, ec);
}

Status PartitionedSpill::Write(const RecordBatch& batch, const std::vector<uint32_t>& part) {
  // A window of rows at a time, so that the pieces copied out of a large input batch
  // add little to it.
  constexpr int64_t kWindow = 8192;
  std::vector<std::vector<int64_t>> rows(files_.size());
  for (int64_t begin = 0; begin < batch.num_rows; begin += kWindow) {
    const int64_t end = std::min(batch.num_rows, begin + kWindow);
    for (auto& r : rows) r.clear();
    for (int64_t i = begin; i < end; ++i) rows[part[i]].push_back(i);
    for (size_t p = 0; p < files_.size(); ++p) {
      if (rows[p].empty()) continue;
      RecordBatch piece{batch.schema, static_cast<int64_t>(rows[p].size()), {}};
      for (const Array& column : batch.columns) {
        ASSIGN_OR_RETURN(Array taken, TakeRows(column, rows[p]));
        piece.columns.push_back(std::move(taken));
      }
      RETURN_IF_ERROR(files_[p]->Write(piece));
    }
  }
  return Status::OK();
}

Status PartitionedSpill::Finish() {
  bytes_ = 0;
  for (auto& f : files_) {
    RETURN_IF_ERROR(f->Finish());
    bytes_ += f->bytes();
  }
  return Status::OK();
}

Result<std::unique_ptr<RecordBatchReader>> PartitionedSpill::Read(uint32_t p) const {
  ASSIGN_OR_RETURN(std::unique_ptr<io::InputStream> in, io::OpenInputStream(paths_[p]));
  return format::OpenIpcStreamReader(std::move(in));
}

std::vector<uint32_t> RowPartitions(const RecordBatch& batch, const MergeKeys& keys, bool keys_only,
                                    uint32_t partitions) {
  std::vector<uint32_t> part(static_cast<size_t>(batch.num_rows), 0);
  MergeKeyRun run;
  for (int64_t begin = 0; begin < batch.num_rows; begin += kMergeKeyRunRows) {
    const int64_t end = std::min(batch.num_rows, begin + kMergeKeyRunRows);
    keys.EncodeRun(batch, keys_only, begin, end, &run);
    for (size_t i = 0; i < run.size(); ++i) {
      if (run.valid[i]) part[static_cast<size_t>(begin) + i] = KeyPartition(run.hashes[i], partitions);
    }
  }
  return part;
}

Result<RecordBatch> ConcatenateBatches(const Schema& schema, const std::vector<RecordBatch>& batches) {
  RecordBatch out{schema, 0, {}};
  for (const RecordBatch& b : batches) out.num_rows += b.num_rows;
  for (size_t c = 0; c < schema.fields.size(); ++c) {
    if (batches.empty()) {
      ASSIGN_OR_RETURN(Array empty, MakeNullArray(schema.fields[c].type, 0));
      out.columns.push_back(std::move(empty));
      continue;
    }
    std::vector<Array> parts;
    parts.reserve(batches.size());
    for (const RecordBatch& b : batches) parts.push_back(b.columns[c]);
    ASSIGN_OR_RETURN(Array joined, Concatenate(parts));
    out.columns.push_back(std::move(joined));
  }
  return out;
}

Result<std::unique_ptr<MergeSource>> MergeSource::Ingest(RecordBatchReader& reader, const MergeKeys& keys,
                                                         uint64_t budget, uint32_t partitions,
                                                         const std::string& spill_parent) {
  auto source = std::unique_ptr<MergeSource>(new MergeSource());
  source->schema_ = reader.schema();
  source->keys_ = keys;
  source->spill_parent_ = spill_parent;
  source->partitions_ = partitions == 0 ? 64 : partitions;
  uint64_t held_bytes = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader.Next());
    if (!batch) break;
    if (batch->num_rows == 0) continue;
    if (source->spill_) {
      RETURN_IF_ERROR(source->SpillBatch(*batch));
      continue;
    }
    held_bytes += BatchBytes(*batch);
    source->held_.push_back(std::move(*batch));
    if (held_bytes > budget) RETURN_IF_ERROR(source->SpillHeld());
  }
  if (source->spill_) RETURN_IF_ERROR(source->spill_->Finish());
  return source;
}

Result<RecordBatch> MergeSource::Gather() const {
  // Column by column, dropping each batch's copy as soon as it is gathered, so that the
  // source is not held twice.
  RecordBatch out{schema_, 0, {}};
  for (const RecordBatch& b : held_) out.num_rows += b.num_rows;
  for (size_t c = 0; c < schema_.fields.size(); ++c) {
    std::vector<Array> parts;
    for (RecordBatch& b : held_) parts.push_back(std::move(b.columns[c]));
    if (parts.size() == 1) {
      out.columns.push_back(std::move(parts[0]));
      continue;
    }
    if (parts.empty()) {
      ASSIGN_OR_RETURN(Array empty, MakeNullArray(schema_.fields[c].type, 0));
      out.columns.push_back(std::move(empty));
      continue;
    }
    ASSIGN_OR_RETURN(Array joined, Concatenate(parts));
    out.columns.push_back(std::move(joined));
  }
  held_.clear();
  return out;
}

Status MergeSource::SpillHeld() {
  ASSIGN_OR_RETURN(dir_, SpillDir::Make(spill_parent_));
  Schema with_seq = schema_;
  with_seq.fields.push_back(MakeField(kMergeSeqColumn, MakeType(TypeId::kUInt64), false));
  ASSIGN_OR_RETURN(spill_, PartitionedSpill::Open(dir_->path(), "source", with_seq, partitions_));
  for (const RecordBatch& b : held_) RETURN_IF_ERROR(SpillBatch(b));
  held_.clear();
  return Status::OK();
}

Status MergeSource::SpillBatch(const RecordBatch& batch) {
  BufferBuilder seq;
  for (int64_t i = 0; i < batch.num_rows; ++i) seq.AppendValue<uint64_t>(rows_seen_ + static_cast<uint64_t>(i));
  rows_seen_ += static_cast<uint64_t>(batch.num_rows);
  RecordBatch with_seq = batch;
  Array seq_column;
  seq_column.type = MakeType(TypeId::kUInt64);
  seq_column.length = batch.num_rows;
  seq_column.buffers = {nullptr, seq.Finish()};
  with_seq.columns.push_back(std::move(seq_column));
  with_seq.schema.fields.push_back(MakeField(kMergeSeqColumn, MakeType(TypeId::kUInt64), false));
  return spill_->Write(with_seq, RowPartitions(batch, keys_, false, partitions_));
}

Result<std::vector<RecordBatch>> MergeSource::Load(uint32_t p, bool whole) const {
  if (!spill_) {
    if (held_.size() != 1 && (whole || held_.empty())) {
      ASSIGN_OR_RETURN(RecordBatch gathered, Gather());
      held_ = {std::move(gathered)};
    }
    return held_;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, spill_->Read(p));
  ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, ReadAllBatches(*reader));
  ASSIGN_OR_RETURN(RecordBatch gathered, ConcatenateBatches(reader->schema(), batches));
  return std::vector<RecordBatch>{std::move(gathered)};
}

}  // namespace lancet::table
