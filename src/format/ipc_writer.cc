#include "format/ipc_writer.h"

#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "format/flatbuf_builder.h"
#include "format/ipc_internal.h"
#include "util/bit_util.h"
#include "util/type_util.h"

namespace lancet::format {

using namespace ipc;  // NOLINT: constants private to this layer

namespace {

using Ref = FbBuilder::Ref;

// ---------------------------------------------------------------------------
// Schema

// Dictionary ids in the order the reader consumes them (see ipc_reader.cc):
// pre-order over record-batch fields, and per id over its value type.
struct DictPlan {
  std::vector<int64_t> top_ids;
  std::map<int64_t, std::vector<int64_t>> nested_ids;
};

Ref BuildMetadata(FbBuilder& fb, const Metadata& md) {
  std::vector<Ref> kvs;
  for (const auto& [key, value] : md) {
    Ref k = fb.CreateString(key);
    Ref v = fb.CreateString(value);
    fb.StartTable();
    fb.AddRef(slot::kKeyValueKey, k);
    fb.AddRef(slot::kKeyValueValue, v);
    kvs.push_back(fb.EndTable());
  }
  return fb.CreateVectorOfRefs(kvs);
}

int16_t EncodeTimeUnit(TimeUnit u) { return static_cast<int16_t>(u); }

Ref BuildIntTable(FbBuilder& fb, const DataType& t) {
  bool is_signed = t.id == TypeId::kInt8 || t.id == TypeId::kInt16 || t.id == TypeId::kInt32 || t.id == TypeId::kInt64;
  fb.StartTable();
  fb.AddScalar<int32_t>(slot::kIntBitWidth, t.BitWidth());
  fb.AddScalar<uint8_t>(slot::kIntIsSigned, is_signed ? 1 : 0);
  return fb.EndTable();
}

// Builds the type table for a non-dictionary type; returns its union tag too.
Result<std::pair<FbType, Ref>> BuildTypeTable(FbBuilder& fb, const DataType& t) {
  FbType tag;
  std::optional<Ref> tz;
  if (t.id == TypeId::kTimestamp && t.timezone) tz = fb.CreateString(*t.timezone);
  if (IsIntegerType(t.id)) return std::make_pair(FbType::kInt, BuildIntTable(fb, t));
  fb.StartTable();
  switch (t.id) {
    case TypeId::kNull: tag = FbType::kNull; break;
    case TypeId::kBool: tag = FbType::kBool; break;
    case TypeId::kUtf8: tag = FbType::kUtf8; break;
    case TypeId::kLargeUtf8: tag = FbType::kLargeUtf8; break;
    case TypeId::kBinary: tag = FbType::kBinary; break;
    case TypeId::kLargeBinary: tag = FbType::kLargeBinary; break;
    case TypeId::kList: tag = FbType::kList; break;
    case TypeId::kLargeList: tag = FbType::kLargeList; break;
    case TypeId::kStruct: tag = FbType::kStruct; break;
    case TypeId::kFloat16:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      tag = FbType::kFloatingPoint;
      fb.AddScalar<int16_t>(slot::kFloatPrecision,
                            t.id == TypeId::kFloat16 ? 0 : t.id == TypeId::kFloat32 ? 1 : 2);
      break;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      tag = FbType::kDecimal;
      fb.AddScalar<int32_t>(slot::kDecimalPrecision, t.precision);
      fb.AddScalar<int32_t>(slot::kDecimalScale, t.scale);
      fb.AddScalar<int32_t>(slot::kDecimalBitWidth, t.id == TypeId::kDecimal128 ? 128 : 256);
      break;
    case TypeId::kDate32:
    case TypeId::kDate64:
      tag = FbType::kDate;
      fb.AddScalar<int16_t>(slot::kDateUnit, t.id == TypeId::kDate32 ? 0 : 1);
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
      tag = FbType::kTime;
      fb.AddScalar<int16_t>(slot::kTimeUnit, EncodeTimeUnit(t.unit));
      fb.AddScalar<int32_t>(slot::kTimeBitWidth, t.id == TypeId::kTime32 ? 32 : 64);
      break;
    case TypeId::kTimestamp:
      tag = FbType::kTimestamp;
      fb.AddScalar<int16_t>(slot::kTimestampUnit, EncodeTimeUnit(t.unit));
      if (tz) fb.AddRef(slot::kTimestampTimezone, *tz);
      break;
    case TypeId::kDuration:
      tag = FbType::kDuration;
      fb.AddScalar<int16_t>(slot::kDurationUnit, EncodeTimeUnit(t.unit));
      break;
    case TypeId::kFixedSizeBinary:
      tag = FbType::kFixedSizeBinary;
      fb.AddScalar<int32_t>(slot::kFixedSizeBinaryWidth, t.byte_width);
      break;
    case TypeId::kFixedSizeList:
      tag = FbType::kFixedSizeList;
      fb.AddScalar<int32_t>(slot::kFixedSizeListSize, t.list_size);
      break;
    case TypeId::kMap:
      tag = FbType::kMap;
      fb.AddScalar<uint8_t>(slot::kMapKeysSorted, t.keys_sorted ? 1 : 0);
      break;
    default:
      return Status::InvalidArgument("arrow ipc: cannot write type " + t.ToString());
  }
  return std::make_pair(tag, fb.EndTable());
}

class SchemaBuilder {
 public:
  explicit SchemaBuilder(FbBuilder* fb) : fb_(fb) {}

  Result<Ref> Build(const Schema& schema, DictPlan* plan) {
    plan_ = plan;
    std::vector<Ref> fields;
    for (const Field& f : schema.fields) {
      ASSIGN_OR_RETURN(Ref r, BuildField(f, &plan->top_ids, 0));
      fields.push_back(r);
    }
    Ref fields_vec = fb_->CreateVectorOfRefs(fields);
    Ref md = BuildMetadata(*fb_, schema.metadata);
    fb_->StartTable();
    fb_->AddScalar<int16_t>(slot::kSchemaEndianness, 0);
    fb_->AddRef(slot::kSchemaFields, fields_vec);
    if (!schema.metadata.empty()) fb_->AddRef(slot::kSchemaCustomMetadata, md);
    return fb_->EndTable();
  }

 private:
  Result<Ref> BuildField(const Field& field, std::vector<int64_t>* ids, int depth) {
    if (depth > kMaxNestingDepth) return Status::InvalidArgument("arrow ipc: type nesting too deep");
    const DataType* type = &field.type;
    std::optional<Ref> dict;
    std::vector<int64_t>* child_ids = ids;
    int64_t id = -1;
    if (field.type.id == TypeId::kDictionary) {
      if (!field.type.value_type || !field.type.index_type || !IsIntegerType(field.type.index_type->id)) {
        return Status::InvalidArgument("arrow ipc: dictionary field " + field.name + " needs integer indices and values");
      }
      type = field.type.value_type.get();
      if (type->id == TypeId::kDictionary) {
        return Status::InvalidArgument("arrow ipc: dictionary of dictionary in field " + field.name);
      }
      id = next_id_++;
      child_ids = &plan_->nested_ids[id];
      Ref index = BuildIntTable(*fb_, *field.type.index_type);
      fb_->StartTable();
      fb_->AddScalar<int64_t>(slot::kDictId, id);
      fb_->AddRef(slot::kDictIndexType, index);
      fb_->AddScalar<uint8_t>(slot::kDictIsOrdered, 0);
      dict = fb_->EndTable();
    }
    std::vector<Ref> children;
    for (const Field& c : type->children) {
      ASSIGN_OR_RETURN(Ref r, BuildField(c, child_ids, depth + 1));
      children.push_back(r);
    }
    if (id >= 0) ids->push_back(id);
    Ref children_vec = fb_->CreateVectorOfRefs(children);
    ASSIGN_OR_RETURN(auto type_table, BuildTypeTable(*fb_, *type));
    Ref name = fb_->CreateString(field.name);
    Ref md = BuildMetadata(*fb_, field.metadata);
    fb_->StartTable();
    fb_->AddRef(slot::kFieldName, name);
    fb_->AddScalar<uint8_t>(slot::kFieldNullable, field.nullable ? 1 : 0);
    fb_->AddScalar<uint8_t>(slot::kFieldTypeType, static_cast<uint8_t>(type_table.first));
    fb_->AddRef(slot::kFieldType, type_table.second);
    if (dict) fb_->AddRef(slot::kFieldDictionary, *dict);
    fb_->AddRef(slot::kFieldChildren, children_vec);
    if (!field.metadata.empty()) fb_->AddRef(slot::kFieldCustomMetadata, md);
    return fb_->EndTable();
  }

  FbBuilder* fb_;
  DictPlan* plan_ = nullptr;
  int64_t next_id_ = 0;
};

// ---------------------------------------------------------------------------
// Bodies

struct NodeSpec {
  int64_t length, null_count;
};
struct BufferSpec {
  int64_t offset, length;
};

// A run of body bytes: a view of an array's buffer, or bytes of its own (compressed).
struct BodyPiece {
  std::span<const uint8_t> view;
  std::vector<uint8_t> owned;
  std::span<const uint8_t> bytes() const { return owned.empty() ? view : std::span<const uint8_t>(owned); }
};

class BodyBuilder {
 public:
  explicit BodyBuilder(const IpcWriteOptions& options) : options_(options) {}

  Status AddArray(const Array& a, const std::vector<int64_t>& ids, size_t* id_pos, int depth) {
    if (depth > kMaxNestingDepth) return Status::InvalidArgument("arrow ipc: array nesting too deep");
    if (a.offset != 0) return Status::NotSupported("arrow ipc: writing arrays with a non-zero offset");
    const int64_t n = a.length;
    if (a.type.id == TypeId::kNull) {
      nodes_.push_back({n, n});
      return Status::OK();
    }
    const BufferPtr& validity = a.buffers[0];
    int64_t nulls = validity ? a.null_count : 0;
    nodes_.push_back({n, nulls});
    RETURN_IF_ERROR(AddBuffer(nulls > 0 ? Prefix(validity, bit_util::BytesForBits(n)) : Span()));
    switch (a.type.id) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary: {
        ASSIGN_OR_RETURN(int64_t end, AddOffsets(a, a.type.IsLargeBinaryLike() ? 8 : 4));
        return AddBuffer(Prefix(a.buffers[2], end));
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap:
        RETURN_IF_ERROR(AddOffsets(a, a.type.id == TypeId::kLargeList ? 8 : 4));
        return AddArray(a.children[0], ids, id_pos, depth + 1);
      case TypeId::kFixedSizeList:
      case TypeId::kStruct:
        for (const Array& c : a.children) RETURN_IF_ERROR(AddArray(c, ids, id_pos, depth + 1));
        return Status::OK();
      case TypeId::kDictionary:
        if (*id_pos >= ids.size()) return Status::Internal("arrow ipc: dictionary ids out of step");
        ++*id_pos;
        return AddBuffer(Prefix(a.buffers[1], n * (a.type.index_type->BitWidth() / 8)));
      default:
        return AddBuffer(Prefix(a.buffers[1], bit_util::BytesForBits(n * a.type.BitWidth())));
    }
  }

  /// Builds the RecordBatch table for what was added.
  Ref BuildBatchTable(FbBuilder& fb, int64_t length) const {
    Ref nodes = fb.CreateVectorOfStructs(nodes_.data(), sizeof(NodeSpec), nodes_.size(), 8);
    Ref buffers = fb.CreateVectorOfStructs(specs_.data(), sizeof(BufferSpec), specs_.size(), 8);
    std::optional<Ref> compression;
    if (options_.compression != IpcCompression::kNone) {
      fb.StartTable();
      fb.AddScalar<int8_t>(slot::kCompressionCodec, static_cast<int8_t>(codec()));
      fb.AddScalar<int8_t>(slot::kCompressionMethod, 0);
      compression = fb.EndTable();
    }
    fb.StartTable();
    fb.AddScalar<int64_t>(slot::kBatchLength, length);
    fb.AddRef(slot::kBatchNodes, nodes);
    fb.AddRef(slot::kBatchBuffers, buffers);
    if (compression) fb.AddRef(slot::kBatchCompression, *compression);
    return fb.EndTable();
  }

  const std::vector<BodyPiece>& pieces() const { return pieces_; }
  uint64_t size() const { return size_; }

 private:
  using Span = std::span<const uint8_t>;

  Codec codec() const { return options_.compression == IpcCompression::kZstd ? Codec::kZstd : Codec::kLz4Frame; }

  // The first `n` bytes of `b`; Validate() has already checked the size.
  static Span Prefix(const BufferPtr& b, int64_t n) {
    if (!b || n <= 0) return {};
    return b->span().subspan(0, static_cast<size_t>(n));
  }

  // Writes length+1 offsets and returns the last one. Length-0 arrays may
  // lack offsets in memory, but readers expect the single zero offset.
  Result<int64_t> AddOffsets(const Array& a, int width) {
    if (a.length == 0 && (!a.buffers[1] || a.buffers[1]->size() < static_cast<uint64_t>(width))) {
      static const uint8_t kZeros[8] = {};
      RETURN_IF_ERROR(AddBuffer(Span(kZeros, static_cast<size_t>(width))));
      return int64_t{0};
    }
    const uint8_t* p = a.buffers[1]->data() + a.length * width;
    int64_t last = width == 8 ? LoadLast<int64_t>(p) : LoadLast<int32_t>(p);
    RETURN_IF_ERROR(AddBuffer(Prefix(a.buffers[1], (a.length + 1) * width)));
    return last;
  }

  template <typename T>
  static int64_t LoadLast(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<int64_t>(v);
  }

  Status AddBuffer(Span data) {
    const int64_t start = static_cast<int64_t>(size_);
    if (!data.empty()) {
      if (options_.compression == IpcCompression::kNone) {
        // A view: the arrays outlive the message, which goes out before Write returns.
        pieces_.push_back({data, {}});
      } else {
        ASSIGN_OR_RETURN(std::vector<uint8_t> packed, Compress(codec(), data, options_.zstd_level));
        // Incompressible buffers are stored raw behind the -1 marker.
        int64_t prefix = packed.size() < data.size() ? static_cast<int64_t>(data.size()) : kUncompressedMarker;
        Span payload = prefix == kUncompressedMarker ? data : Span(packed);
        std::vector<uint8_t> owned(8 + payload.size());
        std::memcpy(owned.data(), &prefix, 8);
        std::memcpy(owned.data() + 8, payload.data(), payload.size());
        pieces_.push_back({{}, std::move(owned)});
      }
      size_ += pieces_.back().bytes().size();
    }
    specs_.push_back({start, static_cast<int64_t>(size_) - start});
    static const uint8_t kPad[8] = {};
    if (const uint64_t pad = PaddedTo8(size_) - size_; pad > 0) {
      pieces_.push_back({Span(kPad, pad), {}});
      size_ += pad;
    }
    return Status::OK();
  }

  const IpcWriteOptions& options_;
  std::vector<NodeSpec> nodes_;
  std::vector<BufferSpec> specs_;
  std::vector<BodyPiece> pieces_;
  uint64_t size_ = 0;
};

// Finds the dictionaries a column needs, inner ones before the outer ones
// whose values refer to them.
Status CollectDictionaries(const Array& a, const std::vector<int64_t>& ids, size_t* id_pos, const DictPlan& plan,
                           std::vector<std::pair<int64_t, std::shared_ptr<Array>>>* out, int depth) {
  if (depth > kMaxNestingDepth) return Status::InvalidArgument("arrow ipc: array nesting too deep");
  if (a.type.id == TypeId::kDictionary) {
    if (*id_pos >= ids.size()) return Status::Internal("arrow ipc: dictionary ids out of step");
    int64_t id = ids[(*id_pos)++];
    auto nested = plan.nested_ids.find(id);
    static const std::vector<int64_t> kNone;
    const std::vector<int64_t>& nested_ids = nested == plan.nested_ids.end() ? kNone : nested->second;
    size_t nested_pos = 0;
    for (const Array& c : a.dictionary->children) {
      RETURN_IF_ERROR(CollectDictionaries(c, nested_ids, &nested_pos, plan, out, depth + 1));
    }
    out->emplace_back(id, a.dictionary);
    return Status::OK();
  }
  for (const Array& c : a.children) RETURN_IF_ERROR(CollectDictionaries(c, ids, id_pos, plan, out, depth + 1));
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Messages and files

// Body pieces at least this big are handed to the sink without a copy.
constexpr uint64_t kDirectBytes = 64 * 1024;

struct Block {
  int64_t offset;
  int32_t metadata_length;
  int32_t pad;
  int64_t body_length;
};
static_assert(sizeof(Block) == kBlockSize);

class IpcWriter {
 public:
  // `sink` receives the output in order, a message (or the footer) at a time.
  IpcWriter(const Schema& schema, const IpcWriteOptions& options, bool is_file,
            std::function<Status(std::span<const uint8_t>)> sink)
      : schema_(schema), options_(options), is_file_(is_file), sink_(std::move(sink)) {}

  Status Begin() {
    if (is_file_) {
      out_.Append(kFileMagic, kFileMagicSize);
      out_.AppendZeros(2);
    }
    FbBuilder fb;
    ASSIGN_OR_RETURN(Ref schema, SchemaBuilder(&fb).Build(schema_, &plan_));
    RETURN_IF_ERROR(WriteMessage(fb, MessageHeader::kSchema, schema, nullptr).status());
    return Flush();
  }

  Status Add(const RecordBatch& batch) {
    Status st = WriteBatch(batch);
    if (!st.ok()) return st.WithContext("batch " + std::to_string(batch_blocks_.size()));
    return Flush();
  }

  Status End() {
    if (is_file_) {
      RETURN_IF_ERROR(WriteFooter());
    } else {
      out_.AppendValue(kContinuation);
      out_.AppendValue(int32_t{0});
    }
    return Flush();
  }

 private:
  Status Flush() {
    if (out_.size() == 0) return Status::OK();
    RETURN_IF_ERROR(sink_(std::span<const uint8_t>(out_.data(), out_.size())));
    flushed_ += out_.size();
    out_.Resize(0);
    return Status::OK();
  }

  // Small pieces gather in out_; big ones go to the sink as they are, uncopied.
  Status Emit(std::span<const uint8_t> bytes) {
    if (bytes.size() < kDirectBytes) {
      out_.Append(bytes.data(), bytes.size());
      return Status::OK();
    }
    RETURN_IF_ERROR(Flush());
    RETURN_IF_ERROR(sink_(bytes));
    flushed_ += bytes.size();
    return Status::OK();
  }

  Result<Block> WriteMessage(FbBuilder& fb, MessageHeader type, Ref header, const BodyBuilder* body) {
    const uint64_t body_size = body ? body->size() : 0;
    fb.StartTable();
    fb.AddScalar<int16_t>(slot::kMessageVersion, kMetadataV5);
    fb.AddScalar<uint8_t>(slot::kMessageHeaderType, static_cast<uint8_t>(type));
    fb.AddRef(slot::kMessageHeader, header);
    fb.AddScalar<int64_t>(slot::kMessageBodyLength, static_cast<int64_t>(body_size));
    std::vector<uint8_t> meta = fb.Finish(fb.EndTable());
    Block blk{};
    blk.offset = static_cast<int64_t>(flushed_ + out_.size());
    out_.AppendValue(kContinuation);
    out_.AppendValue(static_cast<int32_t>(meta.size()));
    out_.Append(meta.data(), meta.size());
    blk.metadata_length = static_cast<int32_t>(8 + meta.size());
    if (body) {
      for (const BodyPiece& piece : body->pieces()) RETURN_IF_ERROR(Emit(piece.bytes()));
    }
    blk.body_length = static_cast<int64_t>(body_size);
    return blk;
  }

  Status WriteBatch(const RecordBatch& batch) {
    if (batch.columns.size() != schema_.fields.size()) {
      return Status::InvalidArgument("arrow ipc: batch has " + std::to_string(batch.columns.size()) +
                                     " columns, schema has " + std::to_string(schema_.fields.size()));
    }
    std::vector<std::pair<int64_t, std::shared_ptr<Array>>> dicts;
    size_t id_pos = 0;
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      const Array& col = batch.columns[i];
      const Field& f = schema_.fields[i];
      if (col.type != f.type) {
        return Status::InvalidArgument("arrow ipc: column " + f.name + " has type " + col.type.ToString() +
                                       ", schema says " + f.type.ToString());
      }
      if (col.length != batch.num_rows) {
        return Status::InvalidArgument("arrow ipc: column " + f.name + " length differs from num_rows");
      }
      // Validation guarantees every buffer we copy from holds what the layout needs.
      Status st = col.Validate();
      if (!st.ok()) return Status::InvalidArgument("arrow ipc: column " + f.name + ": " + st.message());
      RETURN_IF_ERROR(CollectDictionaries(col, plan_.top_ids, &id_pos, plan_, &dicts, 0));
    }
    for (const auto& [id, dict] : dicts) RETURN_IF_ERROR(MaybeWriteDictionary(id, dict));

    BodyBuilder body(options_);
    id_pos = 0;
    for (const Array& col : batch.columns) RETURN_IF_ERROR(body.AddArray(col, plan_.top_ids, &id_pos, 0));
    FbBuilder fb;
    Ref header = body.BuildBatchTable(fb, batch.num_rows);
    ASSIGN_OR_RETURN(Block blk, WriteMessage(fb, MessageHeader::kRecordBatch, header, &body));
    batch_blocks_.push_back(blk);
    return Status::OK();
  }

  Status MaybeWriteDictionary(int64_t id, const std::shared_ptr<Array>& dict) {
    auto it = written_.find(id);
    if (it != written_.end()) {
      if (it->second == dict || ArraysEqual(*it->second, *dict)) return Status::OK();
      if (is_file_) {
        return Status::NotSupported("arrow ipc: the file format cannot replace dictionary " + std::to_string(id));
      }
    }
    written_[id] = dict;
    auto nested = plan_.nested_ids.find(id);
    static const std::vector<int64_t> kNone;
    const std::vector<int64_t>& ids = nested == plan_.nested_ids.end() ? kNone : nested->second;
    BodyBuilder body(options_);
    size_t id_pos = 0;
    RETURN_IF_ERROR(body.AddArray(*dict, ids, &id_pos, 0));
    FbBuilder fb;
    Ref data = body.BuildBatchTable(fb, dict->length);
    fb.StartTable();
    fb.AddScalar<int64_t>(slot::kDictBatchId, id);
    fb.AddRef(slot::kDictBatchData, data);
    fb.AddScalar<uint8_t>(slot::kDictBatchIsDelta, 0);
    Ref header = fb.EndTable();
    ASSIGN_OR_RETURN(Block blk, WriteMessage(fb, MessageHeader::kDictionaryBatch, header, &body));
    dict_blocks_.push_back(blk);
    return Status::OK();
  }

  Status WriteFooter() {
    FbBuilder fb;
    DictPlan unused;
    ASSIGN_OR_RETURN(Ref schema, SchemaBuilder(&fb).Build(schema_, &unused));
    Ref dicts = fb.CreateVectorOfStructs(dict_blocks_.data(), sizeof(Block), dict_blocks_.size(), 8);
    Ref batches = fb.CreateVectorOfStructs(batch_blocks_.data(), sizeof(Block), batch_blocks_.size(), 8);
    fb.StartTable();
    fb.AddScalar<int16_t>(slot::kFooterVersion, kMetadataV5);
    fb.AddRef(slot::kFooterSchema, schema);
    fb.AddRef(slot::kFooterDictionaries, dicts);
    fb.AddRef(slot::kFooterRecordBatches, batches);
    std::vector<uint8_t> footer = fb.Finish(fb.EndTable());
    out_.Append(footer.data(), footer.size());
    out_.AppendValue(static_cast<int32_t>(footer.size()));
    out_.Append(kFileMagic, kFileMagicSize);
    return Status::OK();
  }

  Schema schema_;
  IpcWriteOptions options_;
  bool is_file_;
  std::function<Status(std::span<const uint8_t>)> sink_;
  DictPlan plan_;
  BufferBuilder out_;  // what the current message adds, before it goes to the sink
  uint64_t flushed_ = 0;
  std::map<int64_t, std::shared_ptr<Array>> written_;
  std::vector<Block> dict_blocks_, batch_blocks_;
};

class BatchWriterImpl final : public IpcBatchWriter {
 public:
  explicit BatchWriterImpl(std::unique_ptr<IpcWriter> impl) : impl_(std::move(impl)) {}
  Status Write(const RecordBatch& batch) override {
    if (finished_) return Status::InvalidArgument("arrow ipc: write after Finish");
    return impl_->Add(batch);
  }
  Status Finish() override {
    if (finished_) return Status::InvalidArgument("arrow ipc: finished twice");
    finished_ = true;
    return impl_->End();
  }

 private:
  std::unique_ptr<IpcWriter> impl_;
  bool finished_ = false;
};

}  // namespace

Result<std::unique_ptr<IpcBatchWriter>> IpcBatchWriter::Open(std::function<Status(std::span<const uint8_t>)> sink,
                                                             const Schema& schema, const IpcWriteOptions& options,
                                                             bool as_file) {
  auto impl = std::make_unique<IpcWriter>(schema, options, as_file, std::move(sink));
  RETURN_IF_ERROR(impl->Begin());
  return std::unique_ptr<IpcBatchWriter>(std::make_unique<BatchWriterImpl>(std::move(impl)));
}

namespace {

Result<BufferPtr> WriteAll(const Schema& schema, const std::vector<RecordBatch>& batches,
                           const IpcWriteOptions& options, bool as_file) {
  BufferBuilder out;
  auto sink = [&out](std::span<const uint8_t> bytes) {
    out.Append(bytes.data(), bytes.size());
    return Status::OK();
  };
  ASSIGN_OR_RETURN(auto writer, IpcBatchWriter::Open(sink, schema, options, as_file));
  for (const RecordBatch& b : batches) RETURN_IF_ERROR(writer->Write(b));
  RETURN_IF_ERROR(writer->Finish());
  return BufferPtr(out.Finish());
}

}  // namespace

Result<BufferPtr> WriteIpcFile(const Schema& schema, const std::vector<RecordBatch>& batches,
                               const IpcWriteOptions& options) {
  return WriteAll(schema, batches, options, /*as_file=*/true);
}

Result<BufferPtr> WriteIpcStream(const Schema& schema, const std::vector<RecordBatch>& batches,
                                 const IpcWriteOptions& options) {
  return WriteAll(schema, batches, options, /*as_file=*/false);
}

}  // namespace lancet::format
