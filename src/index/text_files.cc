#include "index/text_files.h"

#include <nlohmann/json.hpp>

#include "index/index_file.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

constexpr const char* kMetadataFile = "metadata.lance";
// Terms written per batch: bounds the encoded postings held at once.
constexpr size_t kTermsPerBatch = 512;
// The empty 32-bit portable Roaring bitmap (cookie 12346, no containers).
constexpr char kEmptyRoaring[] = {0x3a, 0x30, 0, 0, 0, 0, 0, 0};

std::string PartFile(uint32_t id, const char* kind) { return "part_" + std::to_string(id) + "_" + kind + ".lance"; }

DataType ListOfLargeBinary() { return ListOf(MakeField("item", MakeType(TypeId::kLargeBinary), true)); }
DataType ListOfUInt32() { return ListOf(MakeField("item", MakeType(TypeId::kUInt32), true)); }

void PostingMetadata(Metadata& m, bool with_position) {
  m["format_version"] = "2";
  m["posting_block_size"] = std::to_string(fts::kPostingBlockSize);
  m["posting_tail_codec"] = "varint_delta_v1";
  if (with_position) {
    m["positions_codec"] = "packed_delta_v1";
    m["positions_layout"] = "shared_stream_v2";
  }
}

Result<Array> LargeBinaryList(const std::vector<const std::vector<std::string>*>& lists) {
  std::vector<int64_t> offsets{0};
  std::vector<std::optional<std::string>> items;
  for (const auto* l : lists) {
    for (const std::string& s : *l) items.emplace_back(s);
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  ASSIGN_OR_RETURN(Array child, MakeBinaryArray(MakeType(TypeId::kLargeBinary), items));
  return MakeListArray(ListOfLargeBinary(), offsets, std::move(child));
}

// Field `index` of a file whose fields are one column each (lists included).
Result<Array> ReadWhole(const format::FileReader& file, int index, const std::string& name, TypeId type) {
  const Schema& schema = file.file_schema();
  if (index >= static_cast<int>(schema.fields.size()) || schema.fields[index].name != name ||
      schema.fields[index].type.id != type) {
    return Status::Corruption(file.path() + ": expected column " + std::to_string(index) + " to be '" + name + "'");
  }
  const int column = index;
  return file.ReadRange(schema.fields[index], std::span<const int>(&column, 1), 0, file.num_rows());
}

Result<Array> ReadRow(const format::FileReader& file, int index, const std::string& name, uint64_t row) {
  const Schema& schema = file.file_schema();
  if (index >= static_cast<int>(schema.fields.size()) || schema.fields[index].name != name) {
    return Status::Corruption(file.path() + ": expected column " + std::to_string(index) + " to be '" + name + "'");
  }
  if (row >= file.num_rows()) {
    return Status::Corruption(file.path() + ": term " + std::to_string(row) + " beyond its " +
                              std::to_string(file.num_rows()) + " rows");
  }
  const int column = index;
  return file.ReadRange(schema.fields[index], std::span<const int>(&column, 1), row, row + 1);
}

}  // namespace

Result<IndexFileEntry> WriteTextTokens(std::shared_ptr<io::ObjectStore> store, const std::string& dir, uint32_t id,
                                       const std::string& fst, uint32_t next_id, uint64_t total_length) {
  Schema schema;
  schema.fields = {MakeField("_token_fst_bytes", MakeType(TypeId::kLargeBinary), false),
                   MakeField("_token_next_id", MakeType(TypeId::kUInt32), false),
                   MakeField("_token_total_length", MakeType(TypeId::kUInt64), false)};
  const std::string name = PartFile(id, "tokens");
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, name, schema));
  ASSIGN_OR_RETURN(Array bytes, MakeBinaryArray(MakeType(TypeId::kLargeBinary), {fst}));
  ASSIGN_OR_RETURN(Array next, ArrayFromVector(MakeType(TypeId::kUInt32), std::vector<uint32_t>{next_id}));
  ASSIGN_OR_RETURN(Array total, ArrayFromVector(MakeType(TypeId::kUInt64), std::vector<uint64_t>{total_length}));
  RecordBatch batch{schema, 1, {std::move(bytes), std::move(next), std::move(total)}};
  RETURN_IF_ERROR(writer->Write(batch));
  return FinishIndexFile(*writer, name);
}

Result<IndexFileEntry> WriteTextDocs(std::shared_ptr<io::ObjectStore> store, const std::string& dir, uint32_t id,
                                     const std::vector<uint64_t>& rows, const std::vector<uint32_t>& lengths,
                                     uint64_t total_tokens) {
  Schema schema;
  schema.fields = {MakeField("_rowid", MakeType(TypeId::kUInt64), false),
                   MakeField("_num_tokens", MakeType(TypeId::kUInt32), false)};
  schema.metadata["total_tokens"] = std::to_string(total_tokens);
  const std::string name = PartFile(id, "docs");
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, name, schema));
  constexpr size_t kRows = 1 << 16;
  for (size_t begin = 0; begin < rows.size(); begin += kRows) {
    const size_t end = std::min(rows.size(), begin + kRows);
    ASSIGN_OR_RETURN(Array r, ArrayFromVector(MakeType(TypeId::kUInt64),
                                              std::vector<uint64_t>(rows.begin() + begin, rows.begin() + end)));
    ASSIGN_OR_RETURN(Array l, ArrayFromVector(MakeType(TypeId::kUInt32),
                                              std::vector<uint32_t>(lengths.begin() + begin, lengths.begin() + end)));
    RecordBatch batch{schema, static_cast<int64_t>(end - begin), {std::move(r), std::move(l)}};
    RETURN_IF_ERROR(writer->Write(batch));
  }
  return FinishIndexFile(*writer, name);
}

Result<IndexFileEntry> WriteTextMetadata(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                         const fts::IndexParams& params, const std::vector<uint32_t>& partitions) {
  Schema schema;
  schema.fields = {MakeField("deleted_fragments", MakeType(TypeId::kBinary), true)};
  nlohmann::json parts = partitions;
  schema.metadata["format_version"] = "2";
  schema.metadata["params"] = fts::ParamsJson(params);
  schema.metadata["partitions"] = parts.dump();
  schema.metadata["posting_block_size"] = std::to_string(fts::kPostingBlockSize);
  schema.metadata["posting_tail_codec"] = "varint_delta_v1";
  schema.metadata["token_set_format"] = "fst";
  ASSIGN_OR_RETURN(auto writer, CreateIndexFile(store, dir, kMetadataFile, schema));
  ASSIGN_OR_RETURN(Array deleted,
                   MakeBinaryArray(MakeType(TypeId::kBinary), {std::string(kEmptyRoaring, sizeof(kEmptyRoaring))}));
  RecordBatch batch{schema, 1, {std::move(deleted)}};
  RETURN_IF_ERROR(writer->Write(batch));
  return FinishIndexFile(*writer, kMetadataFile);
}

Result<std::unique_ptr<TextInvertWriter>> TextInvertWriter::Open(std::shared_ptr<io::ObjectStore> store,
                                                                 const std::string& dir, uint32_t id,
                                                                 bool with_position) {
  std::unique_ptr<TextInvertWriter> w(new TextInvertWriter());
  w->with_position_ = with_position;
  w->name_ = PartFile(id, "invert");
  Schema schema;
  schema.fields = {
      MakeField("_posting", ListOfLargeBinary(), true), MakeField("_max_score", MakeType(TypeId::kFloat32), true),
      MakeField("_length", MakeType(TypeId::kUInt32), true), MakeField("_impacts", ListOfLargeBinary(), true)};
  if (with_position) {
    schema.fields.push_back(MakeField("_compressed_position", MakeType(TypeId::kLargeBinary), true));
    schema.fields.push_back(MakeField("_position_block_offset", ListOfUInt32(), true));
  }
  PostingMetadata(schema.metadata, with_position);
  ASSIGN_OR_RETURN(w->writer_, CreateIndexFile(std::move(store), dir, w->name_, schema));
  return w;
}

Status TextInvertWriter::Add(fts::EncodedPostings postings) {
  pending_.push_back(std::move(postings));
  if (pending_.size() >= kTermsPerBatch) return Flush();
  return Status::OK();
}

Status TextInvertWriter::Flush() {
  if (pending_.empty()) return Status::OK();
  std::vector<const std::vector<std::string>*> blocks, impacts;
  std::vector<float> max_scores;
  std::vector<uint32_t> lengths;
  for (const fts::EncodedPostings& p : pending_) {
    blocks.push_back(&p.blocks);
    impacts.push_back(&p.impacts);
    max_scores.push_back(p.max_score);
    lengths.push_back(p.length);
  }
  RecordBatch batch;
  batch.schema = writer_->schema();
  batch.num_rows = static_cast<int64_t>(pending_.size());
  ASSIGN_OR_RETURN(Array posting, LargeBinaryList(blocks));
  ASSIGN_OR_RETURN(Array max_score, ArrayFromVector(MakeType(TypeId::kFloat32), max_scores));
  ASSIGN_OR_RETURN(Array length, ArrayFromVector(MakeType(TypeId::kUInt32), lengths));
  ASSIGN_OR_RETURN(Array impact, LargeBinaryList(impacts));
  batch.columns = {std::move(posting), std::move(max_score), std::move(length), std::move(impact)};
  if (with_position_) {
    std::vector<std::optional<std::string>> compressed;
    std::vector<int64_t> offsets{0};
    std::vector<uint32_t> values;
    for (const fts::EncodedPostings& p : pending_) {
      compressed.emplace_back(p.compressed_positions);
      values.insert(values.end(), p.position_block_offsets.begin(), p.position_block_offsets.end());
      offsets.push_back(static_cast<int64_t>(values.size()));
    }
    ASSIGN_OR_RETURN(Array c, MakeBinaryArray(MakeType(TypeId::kLargeBinary), compressed));
    ASSIGN_OR_RETURN(Array v, ArrayFromVector(MakeType(TypeId::kUInt32), values));
    ASSIGN_OR_RETURN(Array o, MakeListArray(ListOfUInt32(), offsets, std::move(v)));
    batch.columns.push_back(std::move(c));
    batch.columns.push_back(std::move(o));
  }
  pending_.clear();
  return writer_->Write(batch);
}

Result<IndexFileEntry> TextInvertWriter::Finish() {
  RETURN_IF_ERROR(Flush());
  return FinishIndexFile(*writer_, name_);
}

Result<TextMetadata> ReadTextMetadata(const io::ObjectStore& store, const std::string& dir) {
  ASSIGN_OR_RETURN(auto file, OpenIndexFile(store, dir, kMetadataFile));
  TextMetadata out;
  const std::string what = file->path();
  const std::string params = IndexFileMetadata(*file, "params");
  if (params.empty()) return Status::Corruption(what + ": no 'params' in the schema metadata");
  ASSIGN_OR_RETURN(out.params, fts::ParseParamsJson(params, what));
  const std::string tokens = IndexFileMetadata(*file, "token_set_format");
  if (tokens != "fst") {
    return Status::NotSupported(what + ": token set format '" + tokens + "' (Lancet reads 'fst', format 2)");
  }
  const std::string tail = IndexFileMetadata(*file, "posting_tail_codec");
  if (tail != "varint_delta_v1") {
    return Status::NotSupported(what + ": posting tail codec '" + tail + "' (Lancet reads varint_delta_v1)");
  }
  const std::string block = IndexFileMetadata(*file, "posting_block_size");
  if (!block.empty() && block != std::to_string(fts::kPostingBlockSize)) {
    return Status::NotSupported(what + ": posting block size " + block + " (Lancet reads 128)");
  }
  nlohmann::json parts = nlohmann::json::parse(IndexFileMetadata(*file, "partitions"), nullptr, false);
  if (!parts.is_array()) return Status::Corruption(what + ": 'partitions' is not a JSON list");
  for (const auto& p : parts) {
    if (!p.is_number_unsigned() || p.get<uint64_t>() > UINT32_MAX) {
      return Status::Corruption(what + ": 'partitions' holds a non-id");
    }
    out.partitions.push_back(p.get<uint32_t>());
  }
  return out;
}

Result<std::unique_ptr<TextPartition>> ReadTextPartition(const io::ObjectStore& store, const std::string& dir,
                                                         uint32_t id, bool with_position) {
  auto part = std::make_unique<TextPartition>();
  part->id = id;
  {
    ASSIGN_OR_RETURN(auto file, OpenIndexFile(store, dir, PartFile(id, "tokens")));
    ASSIGN_OR_RETURN(Array bytes, ReadWhole(*file, 0, "_token_fst_bytes", TypeId::kLargeBinary));
    if (bytes.length != 1 || bytes.IsNull(0)) return Status::Corruption(file->path() + ": expected one FST");
    ASSIGN_OR_RETURN(fst::Map map, fst::Map::Open(std::string(bytes.GetView(0)), file->path()));
    part->terms = std::make_unique<fst::Map>(std::move(map));
  }
  {
    ASSIGN_OR_RETURN(auto file, OpenIndexFile(store, dir, PartFile(id, "docs")));
    ASSIGN_OR_RETURN(Array rows, ReadWhole(*file, 0, "_rowid", TypeId::kUInt64));
    ASSIGN_OR_RETURN(Array lengths, ReadWhole(*file, 1, "_num_tokens", TypeId::kUInt32));
    part->rows.assign(rows.values<uint64_t>(), rows.values<uint64_t>() + rows.length);
    part->lengths.assign(lengths.values<uint32_t>(), lengths.values<uint32_t>() + lengths.length);
    const std::string total = IndexFileMetadata(*file, "total_tokens");
    char* end = nullptr;
    part->total_tokens = std::strtoull(total.c_str(), &end, 10);
    if (total.empty() || *end != '\0') return Status::Corruption(file->path() + ": no total_tokens");
  }
  ASSIGN_OR_RETURN(part->invert, OpenIndexFile(store, dir, PartFile(id, "invert")));
  ASSIGN_OR_RETURN(Array lengths, ReadWhole(*part->invert, 2, "_length", TypeId::kUInt32));
  part->doc_freq.assign(lengths.values<uint32_t>(), lengths.values<uint32_t>() + lengths.length);
  part->positions = with_position && part->invert->file_schema().fields.size() >= 6;
  if (part->terms->size() > part->doc_freq.size()) {
    return Status::Corruption(part->invert->path() + ": " + std::to_string(part->doc_freq.size()) +
                              " posting lists for " + std::to_string(part->terms->size()) + " terms");
  }
  return part;
}

Result<fts::DecodedPostings> ReadTermPostings(const TextPartition& part, uint32_t term) {
  ASSIGN_OR_RETURN(Array list, ReadRow(*part.invert, 0, "_posting", term));
  if (list.length != 1 || list.IsNull(0) || list.children.size() != 1) {
    return Status::Corruption(part.invert->path() + ": term " + std::to_string(term) + " has no posting list");
  }
  const auto [begin, end] = list.ListRange(0);
  std::vector<std::string_view> blocks;
  for (int64_t i = begin; i < end; ++i) blocks.push_back(list.children[0].GetView(i));
  if (term >= part.doc_freq.size()) return Status::Corruption(part.invert->path() + ": term beyond _length");
  return fts::DecodePostings(blocks, part.doc_freq[term], part.invert->path());
}

Result<std::vector<std::vector<uint32_t>>> ReadTermPositions(const TextPartition& part, uint32_t term,
                                                             const std::vector<uint32_t>& freqs) {
  ASSIGN_OR_RETURN(Array compressed, ReadRow(*part.invert, 4, "_compressed_position", term));
  ASSIGN_OR_RETURN(Array offsets, ReadRow(*part.invert, 5, "_position_block_offset", term));
  if (compressed.length != 1 || offsets.length != 1 || offsets.children.size() != 1) {
    return Status::Corruption(part.invert->path() + ": term " + std::to_string(term) + " has no positions");
  }
  const auto [begin, end] = offsets.ListRange(0);
  const Array& values = offsets.children[0];
  std::vector<uint32_t> block_offsets(values.values<uint32_t>() + begin, values.values<uint32_t>() + end);
  return fts::DecodePositions(compressed.GetView(0), block_offsets, freqs, part.invert->path());
}

}  // namespace lancet::index
