#include "index/bloom_filter.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "index/float_values.h"
#include "index/sbbf.h"
#include "index/scalar_index.h"
#include "index/xxhash64.h"
#include "index/zone_cutter.h"
#include "index/zone_file.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

// Zones whose filters are written together, so a build holds a bounded number of them.
constexpr size_t kZonesPerBatch = 64;

Schema BloomSchema(uint64_t items, const std::string& probability) {
  Schema schema;
  schema.fields = {MakeField("fragment_id", MakeType(TypeId::kUInt64), false),
                   MakeField("zone_start", MakeType(TypeId::kUInt64), false),
                   MakeField("zone_length", MakeType(TypeId::kUInt64), false),
                   MakeField("has_null", MakeType(TypeId::kBool), false),
                   MakeField("bloom_filter_data", MakeType(TypeId::kBinary), false)};
  schema.metadata[kBloomItemsKey] = std::to_string(items);
  schema.metadata[kBloomProbabilityKey] = probability;
  return schema;
}

uint64_t HashAt(const Array& a, int64_t i) { return XxHash64(BloomValueBytes(a, i)); }

class BloomFilterBuilder : public ScalarIndexBuilder {
 public:
  BloomFilterBuilder(DataType type, std::shared_ptr<io::ObjectStore> store, std::string dir, uint64_t items,
                     std::string probability, uint64_t filter_bytes)
      : type_(std::move(type)),
        store_(std::move(store)),
        path_(JoinPath(dir, kBloomFilterFile)),
        items_(items),
        probability_(std::move(probability)),
        filter_bytes_(filter_bytes),
        cutter_(items) {}

  Status Add(const Array& values, std::span<const uint64_t> rows) override {
    RETURN_IF_ERROR(CheckZoneInput(values, rows, type_, "bloom filter"));
    size_t i = 0;
    while (i < rows.size()) {
      ASSIGN_OR_RETURN(size_t take, cutter_.Extend(rows.subspan(i)));
      if (take == 0) {
        RETURN_IF_ERROR(CloseZone());
        continue;
      }
      if (!filter_) {
        ASSIGN_OR_RETURN(filter_, Sbbf::Empty(filter_bytes_));
      }
      for (size_t j = i; j < i + take; ++j) {
        const auto r = static_cast<int64_t>(j);
        if (values.IsNull(r)) {
          has_null_ = true;
        } else {
          filter_->Insert(HashAt(values, r));
        }
      }
      i += take;
    }
    return Status::OK();
  }

  Result<std::vector<IndexFileEntry>> Finish() override {
    RETURN_IF_ERROR(CloseZone());
    RETURN_IF_ERROR(Flush());
    if (!writer_) RETURN_IF_ERROR(OpenWriter());
    ASSIGN_OR_RETURN(format::FileStats stats, writer_->Finish());
    return std::vector<IndexFileEntry>{{kBloomFilterFile, stats.file_size}};
  }

 private:
  Status OpenWriter() {
    ASSIGN_OR_RETURN(writer_, format::FileWriter::Open(store_, path_, BloomSchema(items_, probability_)));
    return Status::OK();
  }

  Status CloseZone() {
    std::optional<ZoneBound> bound = cutter_.Close();
    if (!bound) return Status::OK();
    fragments_.push_back(bound->fragment_id);
    starts_.push_back(bound->start);
    lengths_.push_back(bound->length);
    has_nulls_.push_back(has_null_);
    const std::vector<uint8_t>& bytes = filter_->bytes();
    filters_.emplace_back(std::string(bytes.begin(), bytes.end()));
    filter_.reset();
    has_null_ = false;
    return filters_.size() >= kZonesPerBatch ? Flush() : Status::OK();
  }

  Status Flush() {
    if (filters_.empty()) return Status::OK();
    if (!writer_) RETURN_IF_ERROR(OpenWriter());
    std::vector<Array> columns;
    for (const auto* column : {&fragments_, &starts_, &lengths_}) {
      ASSIGN_OR_RETURN(Array a, ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), *column));
      columns.push_back(std::move(a));
    }
    ASSIGN_OR_RETURN(Array has_null, MakeBoolArray(has_nulls_));
    ASSIGN_OR_RETURN(Array data, MakeBinaryArray(MakeType(TypeId::kBinary), filters_));
    columns.push_back(std::move(has_null));
    columns.push_back(std::move(data));
    const auto n = static_cast<int64_t>(filters_.size());
    RETURN_IF_ERROR(writer_->Write(RecordBatch{writer_->schema(), n, std::move(columns)}));
    fragments_.clear();
    starts_.clear();
    lengths_.clear();
    has_nulls_.clear();
    filters_.clear();
    return Status::OK();
  }

  DataType type_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string path_;
  uint64_t items_;
  std::string probability_;
  uint64_t filter_bytes_;
  ZoneCutter cutter_;
  std::optional<Sbbf> filter_;  // the current zone's
  bool has_null_ = false;
  std::unique_ptr<format::FileWriter> writer_;
  // Closed zones not yet written.
  std::vector<uint64_t> fragments_, starts_, lengths_;
  std::vector<bool> has_nulls_;
  std::vector<std::optional<std::string>> filters_;
};

Result<double> ParseProbability(const std::string& text) {
  double p = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, p);
  if (ec != std::errc() || ptr != end) {
    return Status::InvalidArgument(std::string(kBloomProbabilityParam) + " must be a number, got '" + text + "'");
  }
  return p;
}

// The hashes a literal may have been stored under: a float zero under both signs,
// because the scan's literal comparison takes -0 = 0 while the filter hashes bits.
void LiteralHashes(const Array& values, int64_t i, std::vector<uint64_t>* out) {
  if (IsZeroAt(values, i)) {
    for (bool negative : {false, true}) {
      Array zero = SignedZero(values.type, negative).MoveValue();
      out->push_back(HashAt(zero, 0));
    }
    return;
  }
  out->push_back(HashAt(values, i));
}

class BloomFilterReader : public ScalarIndexReader {
 public:
  BloomFilterReader(DataType type, std::vector<ZoneBound> bounds, std::vector<bool> has_null, std::vector<Sbbf> filters)
      : type_(std::move(type)),
        bounds_(std::move(bounds)),
        has_null_(std::move(has_null)),
        filters_(std::move(filters)) {}

  ScalarIndexType type() const override { return ScalarIndexType::kBloomFilter; }

  bool Supports(const ScalarQuery& query) const override {
    return query.kind == ScalarQuery::Kind::kEquals || query.kind == ScalarQuery::Kind::kIn ||
           query.kind == ScalarQuery::Kind::kIsNull;
  }

  Result<SearchResult> Search(const ScalarQuery& query) const override {
    if (!Supports(query)) return Status::NotSupported("a bloom filter cannot answer this query kind");
    bool want_null = query.kind == ScalarQuery::Kind::kIsNull, want_any = false;
    std::vector<uint64_t> hashes;
    if (!want_null) {
      if (query.values.type != type_) {
        return Status::InvalidArgument("bloom filter over " + type_.ToString() + " given a " +
                                       query.values.type.ToString() + " literal");
      }
      if (query.kind == ScalarQuery::Kind::kEquals && query.values.length != 1) {
        return Status::InvalidArgument("an equality query needs one value");
      }
      for (int64_t i = 0; i < query.values.length; ++i) {
        if (query.values.IsNull(i)) {
          want_null = true;
        } else if (IsNaNAt(query.values, i)) {
          // NaNs differ in sign and payload bits; a filter cannot tell which one matches.
          want_any = true;
        } else {
          LiteralHashes(query.values, i, &hashes);
        }
      }
    }
    std::vector<ZoneBound> hits;
    for (size_t z = 0; z < bounds_.size(); ++z) {
      bool hit = want_any || (want_null && has_null_[z]);
      for (size_t h = 0; !hit && h < hashes.size(); ++h) hit = filters_[z].Check(hashes[h]);
      if (hit) hits.push_back(bounds_[z]);
    }
    return SearchResult{ZoneRows(std::move(hits)), false};
  }

 private:
  DataType type_;
  std::vector<ZoneBound> bounds_;
  std::vector<bool> has_null_;
  std::vector<Sbbf> filters_;
};

}  // namespace

bool BloomFilterSupports(const DataType& type) {
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return true;
    case TypeId::kTime32:
      return type.unit == TimeUnit::kSecond || type.unit == TimeUnit::kMilli;
    case TypeId::kTime64:
      return type.unit == TimeUnit::kMicro || type.unit == TimeUnit::kNano;
    default:
      return false;
  }
}

std::span<const uint8_t> BloomValueBytes(const Array& a, int64_t i) {
  if (a.type.IsBinaryLike() || a.type.IsLargeBinaryLike()) {
    const std::string_view v = a.GetView(i);
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size()};
  }
  // Arrow buffers are little-endian, as the hashed bytes must be.
  const auto width = static_cast<size_t>(a.type.BitWidth() / 8);
  return {a.buffers[1]->data() + (a.offset + i) * width, width};
}

Result<std::unique_ptr<ScalarIndexReader>> OpenBloomFilterIndex(std::shared_ptr<io::ObjectStore> store,
                                                                const std::string& dir, const DataType& value_type) {
  if (!BloomFilterSupports(value_type)) return Status::InvalidArgument("no bloom filter over " + value_type.ToString());
  ASSIGN_OR_RETURN(ZoneFile file, ZoneFile::Open(*store, JoinPath(dir, kBloomFilterFile), "BloomFilterIndex"));
  ASSIGN_OR_RETURN(std::vector<ZoneBound> bounds, file.Bounds());
  ASSIGN_OR_RETURN(Array has_null, file.Column("has_null", MakeType(TypeId::kBool), false));
  ASSIGN_OR_RETURN(Array data, file.Column("bloom_filter_data", MakeType(TypeId::kBinary), false));
  std::vector<bool> nulls(bounds.size());
  std::vector<Sbbf> filters;
  filters.reserve(bounds.size());
  for (size_t z = 0; z < bounds.size(); ++z) {
    const auto row = static_cast<int64_t>(z);
    nulls[z] = has_null.GetBool(row);
    const std::string_view bytes = data.GetView(row);
    auto filter = Sbbf::Load({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    if (!filter.ok()) return file.Corrupt("zone " + std::to_string(z) + ": " + filter.status().message());
    filters.push_back(filter.MoveValue());
  }
  return std::unique_ptr<ScalarIndexReader>(
      new BloomFilterReader(value_type, std::move(bounds), std::move(nulls), std::move(filters)));
}

Result<std::unique_ptr<ScalarIndexBuilder>> MakeBloomFilterBuilder(const Field& field,
                                                                   std::shared_ptr<io::ObjectStore> store,
                                                                   const std::string& dir,
                                                                   const BuildOptions& options) {
  if (!BloomFilterSupports(field.type)) {
    return Status::InvalidArgument("a bloom filter cannot index " + field.name + " of type " + field.type.ToString());
  }
  for (const auto& [key, value] : options.params) {
    if (key != kBloomItemsParam && key != kBloomProbabilityParam) {
      return Status::InvalidArgument("unknown bloom filter param '" + key + "'");
    }
  }
  ASSIGN_OR_RETURN(uint64_t items, ParseZoneRows(options.params, kBloomItemsParam, kBloomDefaultItems));
  auto p = options.params.find(kBloomProbabilityParam);
  // The metadata keeps the param's own text, as the reference writes its f64.
  std::string probability = p == options.params.end() ? "0.00057" : p->second;
  ASSIGN_OR_RETURN(double fpp, ParseProbability(probability));
  ASSIGN_OR_RETURN(uint64_t filter_bytes, Sbbf::BytesFor(items, fpp));
  return std::unique_ptr<ScalarIndexBuilder>(
      new BloomFilterBuilder(field.type, std::move(store), dir, items, std::move(probability), filter_bytes));
}

}  // namespace lancet::index
