// Building a full-text index: tokenize the column batch by batch, gather each term's
// postings in memory up to a budget, and write them out as a partition of the
// reference's layout (tokens FST, docs, postings) whenever the budget is reached.
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <span>
#include <thread>
#include <unordered_map>

#include "index/fst.h"
#include "index/fts_params.h"
#include "index/fts_posting.h"
#include "index/index_file.h"
#include "index/index_segment.h"
#include "index/text_build.h"
#include "index/text_files.h"
#include "lancet/index/text_index.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

// What a term costs beyond its postings: the hash node, the string, the vectors.
constexpr uint64_t kTermOverheadBytes = 96;

// One partition being gathered: doc numbers are its own (row numbers of its docs file).
class PartitionBuilder {
 public:
  explicit PartitionBuilder(bool with_position) : with_position_(with_position) {}

  void AddDoc(uint64_t row, std::span<const fts::Token> tokens) {
    const uint32_t doc = static_cast<uint32_t>(rows_.size());
    rows_.push_back(row);
    lengths_.push_back(static_cast<uint32_t>(tokens.size()));
    total_tokens_ += tokens.size();
    // Group the doc's tokens by term id: first appearance decides new ids, as the
    // reference numbers terms.
    doc_terms_.clear();
    for (const fts::Token& t : tokens) {
      auto [it, inserted] = ids_.try_emplace(t.text, static_cast<uint32_t>(terms_.size()));
      if (inserted) {
        terms_.emplace_back();
        bytes_ += kTermOverheadBytes + t.text.size();
      }
      doc_terms_.push_back({it->second, t.position});
    }
    // Positions ascend in token order, so sorting the pairs keeps each term's in order.
    std::sort(doc_terms_.begin(), doc_terms_.end());
    for (size_t i = 0; i < doc_terms_.size();) {
      size_t j = i;
      while (j < doc_terms_.size() && doc_terms_[j].first == doc_terms_[i].first) ++j;
      fts::Postings& p = terms_[doc_terms_[i].first];
      p.doc_ids.push_back(doc);
      p.freqs.push_back(static_cast<uint32_t>(j - i));
      bytes_ += 8;
      if (with_position_) {
        std::vector<uint32_t> positions;
        for (size_t k = i; k < j; ++k) positions.push_back(doc_terms_[k].second);
        bytes_ += 24 + 4 * positions.size();
        p.positions.push_back(std::move(positions));
      }
      i = j;
    }
  }

  uint64_t bytes() const { return bytes_ + rows_.size() * 12; }
  bool empty() const { return rows_.empty(); }

  // Writes part_<id>_{tokens,docs,invert}.lance into `dir`.
  Result<std::vector<IndexFileEntry>> Write(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                            uint32_t id) {
    std::vector<IndexFileEntry> files;
    ASSIGN_OR_RETURN(IndexFileEntry tokens, WriteTokens(store, dir, id));
    files.push_back(tokens);
    ASSIGN_OR_RETURN(IndexFileEntry docs, WriteTextDocs(store, dir, id, rows_, lengths_, total_tokens_));
    files.push_back(docs);
    fts::Bm25 bm25;
    bm25.num_docs = rows_.size();
    bm25.avg_doc_length = static_cast<float>(total_tokens_) / static_cast<float>(rows_.size());
    ASSIGN_OR_RETURN(std::unique_ptr<TextInvertWriter> invert, TextInvertWriter::Open(store, dir, id, with_position_));
    for (fts::Postings& p : terms_) {
      ASSIGN_OR_RETURN(fts::EncodedPostings encoded, fts::EncodePostings(p, lengths_, bm25));
      RETURN_IF_ERROR(invert->Add(std::move(encoded)));
      p = fts::Postings();  // what is encoded is not needed twice
    }
    ASSIGN_OR_RETURN(IndexFileEntry inverted, invert->Finish());
    files.push_back(inverted);
    return files;
  }

 private:
  Result<IndexFileEntry> WriteTokens(std::shared_ptr<io::ObjectStore> store, const std::string& dir, uint32_t id) {
    std::vector<std::pair<std::string, uint64_t>> entries;
    entries.reserve(ids_.size());
    uint64_t total_length = 0;
    for (const auto& [token, term] : ids_) {
      entries.emplace_back(token, term);
      total_length += token.size();
    }
    ids_.clear();
    std::sort(entries.begin(), entries.end());
    ASSIGN_OR_RETURN(std::string fst, fst::BuildMap(entries));
    return WriteTextTokens(store, dir, id, fst, static_cast<uint32_t>(entries.size()), total_length);
  }

  bool with_position_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<fts::Postings> terms_;
  std::vector<uint64_t> rows_;
  std::vector<uint32_t> lengths_;
  uint64_t total_tokens_ = 0;
  uint64_t bytes_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> doc_terms_;  // (term id, position) of one doc
};

bool IsText(const DataType& t) { return t.id == TypeId::kUtf8 || t.id == TypeId::kLargeUtf8; }

// One scanned batch's documents: rows with at least one token, their tokens flat.
struct Tokenized {
  std::vector<uint64_t> rows;
  std::vector<fts::Token> tokens;
  std::vector<size_t> ends;  // doc d's tokens end at ends[d]
  uint64_t batch_rows = 0;
};

// Fills `out` (its buffers reused) with `batch`'s documents.
void TokenizeBatch(const fts::Tokenizer& tokenizer, const RecordBatch& batch, Tokenized& out) {
  out.rows.clear();
  out.tokens.clear();
  out.ends.clear();
  out.batch_rows = static_cast<uint64_t>(batch.num_rows);
  const Array& text = batch.columns[0];
  const uint64_t* rows = batch.columns[1].values<uint64_t>();
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    if (text.IsNull(i)) continue;
    const size_t before = out.tokens.size();
    tokenizer.Tokenize(text.GetView(i), &out.tokens);
    // Documents without a token are not recorded, as the reference skips them.
    if (out.tokens.size() == before) continue;
    out.rows.push_back(rows[i]);
    out.ends.push_back(out.tokens.size());
  }
}

// Tokenizes one batch at a time on a thread of its own that lives as long as the build
// (the tokenizer's per-thread memo of stems with it).
class TokenizeWorker {
 public:
  explicit TokenizeWorker(const fts::Tokenizer& tokenizer) : tokenizer_(tokenizer), thread_([this] { Run(); }) {}
  ~TokenizeWorker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Submit(RecordBatch batch, Tokenized buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    input_ = std::move(batch);
    buffer_ = std::move(buffer);
    has_input_ = true;
    cv_.notify_all();
  }
  Tokenized Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return has_output_; });
    has_output_ = false;
    return std::move(buffer_);
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || has_input_; });
      if (stop_) return;
      has_input_ = false;
      RecordBatch batch = std::move(input_);
      Tokenized out = std::move(buffer_);
      lock.unlock();
      TokenizeBatch(tokenizer_, batch, out);
      lock.lock();
      buffer_ = std::move(out);
      has_output_ = true;
      cv_.notify_all();
    }
  }

  const fts::Tokenizer& tokenizer_;
  std::mutex mu_;
  std::condition_variable cv_;
  RecordBatch input_;
  Tokenized buffer_;
  bool has_input_ = false;
  bool has_output_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: it starts once the state above exists
};

// Builds (without committing) a segment `name` of `params` over every fragment.
Result<table::IndexMetadata> BuildTextSegment(const table::Dataset& dataset, const Field& field,
                                              const std::string& name, const fts::IndexParams& params,
                                              const CreateTextIndexOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<fts::Tokenizer> tokenizer, fts::Tokenizer::Make(params.tokenizer));
  std::shared_ptr<io::ObjectStore> store = dataset.store();
  const uint64_t total = dataset.CountRows();
  auto write = [&](const std::string& dir, table::IndexMetadata& meta) -> Result<std::vector<IndexFileEntry>> {
    std::vector<IndexFileEntry> files;
    std::vector<uint32_t> partitions;
    PartitionBuilder part(params.with_position);
    auto flush = [&]() -> Status {
      const uint32_t id = static_cast<uint32_t>(partitions.size());
      ASSIGN_OR_RETURN(std::vector<IndexFileEntry> written, part.Write(store, dir, id));
      files.insert(files.end(), written.begin(), written.end());
      partitions.push_back(id);
      part = PartitionBuilder(params.with_position);
      return Status::OK();
    };
    table::ScanOptions scan;
    scan.columns = {field.name};
    scan.batch_size = 4096;
    (dataset.stable_row_ids() ? scan.with_row_id : scan.with_row_addr) = true;
    ASSIGN_OR_RETURN(std::unique_ptr<RecordBatchReader> reader, dataset.NewScan(scan));
    // Batch n+1 is tokenized on another thread while batch n's tokens are gathered.
    TokenizeWorker worker(*tokenizer);
    Tokenized spare;
    bool in_flight = false;
    uint64_t seen = 0;
    for (;;) {
      ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
      std::optional<Tokenized> done;
      if (in_flight) done = worker.Wait();
      in_flight = batch.has_value();
      if (batch) worker.Submit(std::move(*batch), std::move(spare));
      if (!done) {
        if (!in_flight) break;
        continue;
      }
      size_t begin = 0;
      for (size_t d = 0; d < done->rows.size(); ++d) {
        part.AddDoc(done->rows[d], std::span<const fts::Token>(done->tokens.data() + begin, done->ends[d] - begin));
        begin = done->ends[d];
      }
      if (part.bytes() >= options.memory_budget) RETURN_IF_ERROR(flush());
      seen += done->batch_rows;
      if (options.progress) options.progress(seen, total);
      spare = std::move(*done);
      if (!in_flight) break;
    }
    if (!part.empty() || partitions.empty()) RETURN_IF_ERROR(flush());
    ASSIGN_OR_RETURN(IndexFileEntry metadata, WriteTextMetadata(store, dir, params, partitions));
    files.push_back(metadata);
    meta.details = fts::SerializeDetails(params);
    return files;
  };
  return WriteNewSegment(dataset, field, name, fts::kInvertedTypeUrl, fts::kInvertedIndexVersion, write);
}

}  // namespace

Result<table::IndexMetadata> CreateTextIndex(const table::Dataset& dataset, const std::string& column,
                                             const CreateTextIndexOptions& options) {
  const int pos = dataset.schema().FieldIndex(column);
  if (pos < 0) return Status::NotFound(dataset.uri() + ": no top-level column named '" + column + "'");
  const Field& field = dataset.schema().fields[static_cast<size_t>(pos)];
  if (!IsText(field.type)) {
    return Status::InvalidArgument(dataset.uri() + ": a full-text index needs a utf8 or large_utf8 column; '" + column +
                                   "' is " + field.type.ToString());
  }
  ASSIGN_OR_RETURN(fts::IndexParams params, fts::ParamsFromOptions(options.params));
  const std::string name = options.name.empty() ? column + "_idx" : options.name;
  ASSIGN_OR_RETURN(std::vector<std::string> removed, SegmentsToReplace(dataset, name, options.replace));
  ASSIGN_OR_RETURN(table::IndexMetadata meta, BuildTextSegment(dataset, field, name, params, options));
  return CommitSegment(dataset, std::move(meta), removed);
}

Result<table::IndexMetadata> RebuildTextSegment(const table::Dataset& dataset, const table::IndexMetadata& model) {
  const Field* field = model.fields.size() == 1 ? FieldById(dataset.schema(), model.fields[0]) : nullptr;
  if (!field) return Status::InvalidArgument("full-text index '" + model.name + "' names no column of the dataset");
  ASSIGN_OR_RETURN(const std::string dir, dataset.IndexDirectory(model));
  ASSIGN_OR_RETURN(TextMetadata old, ReadTextMetadata(*dataset.store(), dir));
  return BuildTextSegment(dataset, *field, model.name, old.params, CreateTextIndexOptions{});
}

bool IsTextIndex(const table::IndexMetadata& index) {
  std::string url = index.type_url;
  std::transform(url.begin(), url.end(), url.begin(), [](unsigned char c) { return std::tolower(c); });
  return url == "/lance.table.invertedindexdetails";
}

}  // namespace lancet::index
