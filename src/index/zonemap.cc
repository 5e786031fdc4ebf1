#include "index/zonemap.h"

#include <optional>

#include "index/float_values.h"
#include "index/scalar_index.h"
#include "index/value_order.h"
#include "index/zone_cutter.h"
#include "index/zone_file.h"
#include "util/array_builder.h"

namespace lancet::index {
namespace {

Schema ZoneMapSchema(const DataType& value_type, uint64_t rows_per_zone) {
  Schema schema;
  schema.fields = {MakeField("min", value_type, true),
                   MakeField("max", value_type, true),
                   MakeField("null_count", MakeType(TypeId::kUInt32), false),
                   MakeField("nan_count", MakeType(TypeId::kUInt32), false),
                   MakeField("fragment_id", MakeType(TypeId::kUInt64), false),
                   MakeField("zone_start", MakeType(TypeId::kUInt64), false),
                   MakeField("zone_length", MakeType(TypeId::kUInt64), false)};
  schema.metadata[kZoneMapRowsKey] = std::to_string(rows_per_zone);
  return schema;
}

// One zone's running statistics. min/max point into the batch being added, and are
// copied into `held` when Add returns, so no batch is kept alive for one value.
struct ZoneStats {
  const Array* min_src = nullptr;
  const Array* max_src = nullptr;
  int64_t min_i = -1, max_i = -1;
  Array min_held, max_held;
  uint32_t nulls = 0, nans = 0;
};

class ZoneMapBuilder : public ScalarIndexBuilder {
 public:
  ZoneMapBuilder(DataType type, std::shared_ptr<io::ObjectStore> store, std::string dir, uint64_t rows_per_zone)
      : type_(std::move(type)),
        store_(std::move(store)),
        dir_(std::move(dir)),
        rows_per_zone_(rows_per_zone),
        cutter_(rows_per_zone) {}

  Status Add(const Array& values, std::span<const uint64_t> rows) override {
    RETURN_IF_ERROR(CheckZoneInput(values, rows, type_, "zone map"));
    Status added = AddRows(values, rows);
    // Even after an error, no pointer into `values` may outlive this call.
    RETURN_IF_ERROR(Detach(values));
    return added;
  }

  Result<std::vector<IndexFileEntry>> Finish() override {
    RETURN_IF_ERROR(CloseZone());
    Array mins, maxs;
    if (mins_.empty()) {
      ASSIGN_OR_RETURN(mins, MakeNullArray(type_, 0));
      maxs = mins;
    } else {
      ASSIGN_OR_RETURN(mins, Concatenate(mins_));
      ASSIGN_OR_RETURN(maxs, Concatenate(maxs_));
    }
    std::vector<Array> columns = {std::move(mins), std::move(maxs)};
    for (const auto* counts : {&null_counts_, &nan_counts_}) {
      ASSIGN_OR_RETURN(Array a, ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), *counts));
      columns.push_back(std::move(a));
    }
    for (const auto* column : {&fragments_, &starts_, &lengths_}) {
      ASSIGN_OR_RETURN(Array a, ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), *column));
      columns.push_back(std::move(a));
    }
    const std::string path = JoinPath(dir_, kZoneMapFile);
    ASSIGN_OR_RETURN(uint64_t size,
                     WriteZoneFile(store_, path, ZoneMapSchema(type_, rows_per_zone_), std::move(columns)));
    return std::vector<IndexFileEntry>{{kZoneMapFile, size}};
  }

 private:
  Status AddRows(const Array& values, std::span<const uint64_t> rows) {
    size_t i = 0;
    while (i < rows.size()) {
      ASSIGN_OR_RETURN(size_t take, cutter_.Extend(rows.subspan(i)));
      if (take == 0) {
        RETURN_IF_ERROR(CloseZone());
        continue;
      }
      for (size_t j = i; j < i + take; ++j) Accumulate(values, static_cast<int64_t>(j));
      i += take;
    }
    return Status::OK();
  }

  void Accumulate(const Array& values, int64_t j) {
    if (values.IsNull(j)) {
      ++cur_.nulls;
      return;
    }
    if (IsNaNAt(values, j)) ++cur_.nans;
    // By IEEE totalOrder, as the scans of both sides compare floats: a NaN becomes the max,
    // one with its sign bit set the min, so the zone's range holds every value it has.
    if (cur_.min_i < 0 || CompareValues(values, j, *cur_.min_src, cur_.min_i) < 0) {
      cur_.min_src = &values;
      cur_.min_i = j;
    }
    if (cur_.max_i < 0 || CompareValues(values, j, *cur_.max_src, cur_.max_i) > 0) {
      cur_.max_src = &values;
      cur_.max_i = j;
    }
  }

  Status Detach(const Array& values) {
    if (cur_.min_src == &values) {
      ASSIGN_OR_RETURN(cur_.min_held, TakeRows(values, {cur_.min_i}));
      cur_.min_src = &cur_.min_held;
      cur_.min_i = 0;
    }
    if (cur_.max_src == &values) {
      ASSIGN_OR_RETURN(cur_.max_held, TakeRows(values, {cur_.max_i}));
      cur_.max_src = &cur_.max_held;
      cur_.max_i = 0;
    }
    return Status::OK();
  }

  // A zone's min or max as a length-1 array. A zero is stored as -0 for the min and +0
  // for the max: readers that order -0 before +0 (the reference's ScalarValue) must not
  // skip a zone holding the other zero.
  Result<Array> Extreme(const Array* src, int64_t i, bool is_min) const {
    if (src == nullptr) return MakeNullArray(type_, 1);
    if (IsZeroAt(*src, i)) return SignedZero(type_, is_min);
    return TakeRows(*src, {i});
  }

  Status CloseZone() {
    std::optional<ZoneBound> bound = cutter_.Close();
    if (!bound) return Status::OK();
    ASSIGN_OR_RETURN(Array min, Extreme(cur_.min_src, cur_.min_i, true));
    ASSIGN_OR_RETURN(Array max, Extreme(cur_.max_src, cur_.max_i, false));
    mins_.push_back(std::move(min));
    maxs_.push_back(std::move(max));
    null_counts_.push_back(cur_.nulls);
    nan_counts_.push_back(cur_.nans);
    fragments_.push_back(bound->fragment_id);
    starts_.push_back(bound->start);
    lengths_.push_back(bound->length);
    cur_.min_src = cur_.max_src = nullptr;
    cur_.min_i = cur_.max_i = -1;
    cur_.nulls = cur_.nans = 0;
    return Status::OK();
  }

  DataType type_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string dir_;
  uint64_t rows_per_zone_;
  ZoneCutter cutter_;
  ZoneStats cur_;
  std::vector<Array> mins_, maxs_;
  std::vector<uint32_t> null_counts_, nan_counts_;
  std::vector<uint64_t> fragments_, starts_, lengths_;
};

// A query literal's values must have the indexed type, or comparisons read garbage.
Status CheckLiteral(const Array& literal, const DataType& type) {
  if (literal.type != type) {
    return Status::InvalidArgument("zone map over " + type.ToString() + " given a " + literal.type.ToString() +
                                   " literal");
  }
  return Status::OK();
}

bool HasPrefixBounds(const std::string_view min, const std::string_view max, const std::string& prefix) {
  // Truncation keeps the order, so a value starting with `prefix` lies between them.
  return min.substr(0, prefix.size()) <= prefix && prefix <= max.substr(0, prefix.size());
}

class ZoneMapReader : public ScalarIndexReader {
 public:
  ZoneMapReader(DataType type, Array mins, Array maxs, Array nulls, Array nans, std::vector<ZoneBound> bounds)
      : type_(std::move(type)),
        mins_(std::move(mins)),
        maxs_(std::move(maxs)),
        nulls_(std::move(nulls)),
        nans_(std::move(nans)),
        bounds_(std::move(bounds)) {}

  ScalarIndexType type() const override { return ScalarIndexType::kZoneMap; }

  bool Supports(const ScalarQuery& query) const override {
    switch (query.kind) {
      case ScalarQuery::Kind::kEquals:
      case ScalarQuery::Kind::kIn:
      case ScalarQuery::Kind::kRange:
      case ScalarQuery::Kind::kIsNull:
        return true;
      case ScalarQuery::Kind::kPrefix:
        return type_.id == TypeId::kUtf8 || type_.id == TypeId::kLargeUtf8;
      default:
        return false;
    }
  }

  Result<SearchResult> Search(const ScalarQuery& query) const override {
    if (!Supports(query)) return Status::NotSupported("a zone map cannot answer this query kind");
    if (query.kind == ScalarQuery::Kind::kEquals || query.kind == ScalarQuery::Kind::kIn) {
      RETURN_IF_ERROR(CheckLiteral(query.values, type_));
      if (query.kind == ScalarQuery::Kind::kEquals && query.values.length != 1) {
        return Status::InvalidArgument("an equality query needs one value");
      }
    }
    for (const auto* bound : {&query.lower, &query.upper}) {
      if (query.kind != ScalarQuery::Kind::kRange || !*bound) continue;
      RETURN_IF_ERROR(CheckLiteral((*bound)->value, type_));
      if ((*bound)->value.length != 1) return Status::InvalidArgument("a range bound needs one value");
    }
    std::vector<ZoneBound> hits;
    for (size_t z = 0; z < bounds_.size(); ++z) {
      if (Matches(query, static_cast<int64_t>(z))) hits.push_back(bounds_[z]);
    }
    return SearchResult{ZoneRows(std::move(hits)), false};
  }

 private:
  uint32_t nulls(int64_t z) const { return nulls_.values<uint32_t>()[z]; }
  uint32_t nans(int64_t z) const { return nans_.values<uint32_t>()[z]; }
  // A null min or max means the zone holds no value but nulls.
  bool HasValues(int64_t z) const { return mins_.IsValid(z) && maxs_.IsValid(z); }

  bool MayEqual(const Array& v, int64_t i, int64_t z) const {
    if (v.IsNull(i)) return nulls(z) > 0;
    if (IsNaNAt(v, i)) return nans(z) > 0;
    return HasValues(z) && CompareValues(v, i, mins_, z) >= 0 && CompareValues(v, i, maxs_, z) <= 0;
  }

  bool MayBeInRange(const ScalarQuery& q, int64_t z) const {
    const bool has_lower = q.lower && q.lower->value.IsValid(0), has_upper = q.upper && q.upper->value.IsValid(0);
    // The scan orders floats by IEEE totalOrder, where -NaN sorts below every number and
    // +NaN above: a zone with NaNs may match a NaN bound or a one-sided range whatever
    // its min and max say.
    if ((has_lower && IsNaNAt(q.lower->value, 0)) || (has_upper && IsNaNAt(q.upper->value, 0))) {
      return HasValues(z) || nans(z) > 0;
    }
    if (has_lower && has_upper) {
      const int c = CompareValues(q.lower->value, 0, q.upper->value, 0);
      if (c > 0 || (c == 0 && !(q.lower->inclusive && q.upper->inclusive))) return false;  // an empty range
    } else if (nans(z) > 0) {
      return true;
    }
    if (!HasValues(z)) return false;
    if (has_lower) {
      const int c = CompareValues(maxs_, z, q.lower->value, 0);
      if (q.lower->inclusive ? c < 0 : c <= 0) return false;
    }
    if (has_upper) {
      const int c = CompareValues(mins_, z, q.upper->value, 0);
      if (q.upper->inclusive ? c > 0 : c >= 0) return false;
    }
    return true;
  }

  bool Matches(const ScalarQuery& q, int64_t z) const {
    switch (q.kind) {
      case ScalarQuery::Kind::kIsNull:
        return nulls(z) > 0;
      case ScalarQuery::Kind::kEquals:
        return MayEqual(q.values, 0, z);
      case ScalarQuery::Kind::kIn:
        for (int64_t i = 0; i < q.values.length; ++i) {
          if (MayEqual(q.values, i, z)) return true;
        }
        return false;
      case ScalarQuery::Kind::kRange:
        return MayBeInRange(q, z);
      case ScalarQuery::Kind::kPrefix:
        return HasValues(z) && HasPrefixBounds(mins_.GetView(z), maxs_.GetView(z), q.prefix);
      default:
        return true;
    }
  }

  DataType type_;
  Array mins_, maxs_, nulls_, nans_;
  std::vector<ZoneBound> bounds_;
};

}  // namespace

Result<std::unique_ptr<ScalarIndexReader>> OpenZoneMapIndex(std::shared_ptr<io::ObjectStore> store,
                                                            const std::string& dir, const DataType& value_type) {
  if (!IsOrderable(value_type)) return Status::InvalidArgument("no zone map over " + value_type.ToString());
  ASSIGN_OR_RETURN(ZoneFile file, ZoneFile::Open(*store, JoinPath(dir, kZoneMapFile), "ZoneMapIndex"));
  const DataType u32 = MakeType(TypeId::kUInt32);
  ASSIGN_OR_RETURN(Array mins, file.Column("min", value_type, true));
  ASSIGN_OR_RETURN(Array maxs, file.Column("max", value_type, true));
  ASSIGN_OR_RETURN(Array nulls, file.Column("null_count", u32, false));
  ASSIGN_OR_RETURN(Array nans, file.Column("nan_count", u32, false));
  ASSIGN_OR_RETURN(std::vector<ZoneBound> bounds, file.Bounds());
  return std::unique_ptr<ScalarIndexReader>(new ZoneMapReader(value_type, std::move(mins), std::move(maxs),
                                                              std::move(nulls), std::move(nans), std::move(bounds)));
}

Result<std::unique_ptr<ScalarIndexBuilder>> MakeZoneMapBuilder(const Field& field,
                                                               std::shared_ptr<io::ObjectStore> store,
                                                               const std::string& dir, const BuildOptions& options) {
  if (!IsOrderable(field.type)) {
    return Status::InvalidArgument("a zone map cannot index " + field.name + " of type " + field.type.ToString());
  }
  for (const auto& [key, value] : options.params) {
    if (key != kZoneMapRowsKey) return Status::InvalidArgument("unknown zone map param '" + key + "'");
  }
  ASSIGN_OR_RETURN(uint64_t rows, ParseZoneRows(options.params, kZoneMapRowsKey, kZoneMapDefaultRows));
  DataType type = field.type;
  return std::unique_ptr<ScalarIndexBuilder>(new ZoneMapBuilder(std::move(type), std::move(store), dir, rows));
}

}  // namespace lancet::index
