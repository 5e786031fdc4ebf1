#include "format/parquet_write_column.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "format/parquet_compress.h"
#include "format/parquet_encode.h"

namespace lancet::format::parquet {

namespace {

constexpr int64_t kMillisPerSecond = 1000;
constexpr int64_t kMillisPerDay = 86400000;
constexpr size_t kByteArrayLengthPrefix = 4;
constexpr int32_t kSlotsPerSizeCheck = 16;

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
T Get(std::string_view s) {
  T v;
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

float HalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa != 0 ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}

bool IsNan(SortOrder order, std::string_view v) {
  if (order == SortOrder::kFloat16) return std::isnan(HalfToFloat(Get<uint16_t>(v)));
  if (order != SortOrder::kFloat) return false;
  return v.size() == 4 ? std::isnan(Get<float>(v)) : std::isnan(Get<double>(v));
}

bool IsZero(SortOrder order, std::string_view v) {
  if (order == SortOrder::kFloat16) return (Get<uint16_t>(v) & 0x7FFF) == 0;
  return v.size() == 4 ? Get<float>(v) == 0.0f : Get<double>(v) == 0.0;
}

// parquet.thrift (ColumnOrder): a zero min is written as -0, a zero max as +0.
std::string SignedZero(SortOrder order, size_t size, bool negative) {
  std::string out;
  if (order == SortOrder::kFloat16) {
    Put<uint16_t>(&out, negative ? 0x8000 : 0);
  } else if (size == 4) {
    Put<float>(&out, negative ? -0.0f : 0.0f);
  } else {
    Put<double>(&out, negative ? -0.0 : 0.0);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Statistics

bool ChunkStatistics::Less(std::string_view a, std::string_view b) const {
  switch (order_) {
    case SortOrder::kBool:
      return a < b;
    case SortOrder::kSigned:
      return a.size() == 4 ? Get<int32_t>(a) < Get<int32_t>(b) : Get<int64_t>(a) < Get<int64_t>(b);
    case SortOrder::kUnsigned:
      return a.size() == 4 ? Get<uint32_t>(a) < Get<uint32_t>(b) : Get<uint64_t>(a) < Get<uint64_t>(b);
    case SortOrder::kFloat:
      return a.size() == 4 ? Get<float>(a) < Get<float>(b) : Get<double>(a) < Get<double>(b);
    case SortOrder::kFloat16:
      return HalfToFloat(Get<uint16_t>(a)) < HalfToFloat(Get<uint16_t>(b));
    case SortOrder::kBytes:
      return a < b;  // char_traits<char>::compare is memcmp: unsigned bytes
    case SortOrder::kDecimal: {
      // Big-endian two's complement of one width: the sign byte compares signed.
      const auto sa = static_cast<int8_t>(a[0]), sb = static_cast<int8_t>(b[0]);
      if (sa != sb) return sa < sb;
      return a.substr(1) < b.substr(1);
    }
    case SortOrder::kNone:
      return false;
  }
  return false;
}

void ChunkStatistics::Update(std::string_view plain) {
  if (order_ == SortOrder::kNone) return;
  if (IsNan(order_, plain)) {
    ++nan_count_;
    return;
  }
  if (!min_ || Less(plain, *min_)) min_.emplace(plain);
  if (!max_ || Less(*max_, plain)) max_.emplace(plain);
}

Statistics ChunkStatistics::Take() {
  Statistics s;
  s.null_count = null_count_;
  const bool is_float = order_ == SortOrder::kFloat || order_ == SortOrder::kFloat16;
  if (is_float) s.nan_count = nan_count_;
  if (min_ && max_) {
    s.min_value = is_float && IsZero(order_, *min_) ? SignedZero(order_, min_->size(), true) : *min_;
    s.max_value = is_float && IsZero(order_, *max_) ? SignedZero(order_, max_->size(), false) : *max_;
  }
  min_.reset();
  max_.reset();
  null_count_ = nan_count_ = 0;
  return s;
}

// ---------------------------------------------------------------------------
// Values

void AppendPlainValue(const LeafPlan& plan, const Array& a, int64_t i, std::string* out) {
  const DataType& t = a.type;
  switch (t.id) {
    case TypeId::kBool:
      out->push_back(a.GetBool(i) ? 1 : 0);
      return;
    case TypeId::kInt8:
      Put<int32_t>(out, a.values<int8_t>()[i]);
      return;
    case TypeId::kInt16:
      Put<int32_t>(out, a.values<int16_t>()[i]);
      return;
    case TypeId::kUInt8:
      Put<int32_t>(out, a.values<uint8_t>()[i]);
      return;
    case TypeId::kUInt16:
      Put<int32_t>(out, a.values<uint16_t>()[i]);
      return;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kDate32:
      Put<int32_t>(out, a.values<int32_t>()[i]);
      return;
    case TypeId::kTime32: {
      const int32_t v = a.values<int32_t>()[i];
      Put<int32_t>(out, t.unit == TimeUnit::kSecond ? static_cast<int32_t>(v * kMillisPerSecond) : v);
      return;
    }
    case TypeId::kTimestamp: {
      const int64_t v = a.values<int64_t>()[i];
      Put<int64_t>(out, t.unit == TimeUnit::kSecond ? v * kMillisPerSecond : v);
      return;
    }
    case TypeId::kDate64: {
      const int64_t ms = a.values<int64_t>()[i];
      const int64_t days = ms / kMillisPerDay - (ms % kMillisPerDay < 0 ? 1 : 0);
      Put<int32_t>(out, static_cast<int32_t>(days));
      return;
    }
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kTime64:
    case TypeId::kDuration:
      Put<int64_t>(out, a.values<int64_t>()[i]);
      return;
    case TypeId::kFloat16:
      Put<uint16_t>(out, a.values<uint16_t>()[i]);
      return;
    case TypeId::kFloat32:
      Put<float>(out, a.values<float>()[i]);
      return;
    case TypeId::kFloat64:
      Put<double>(out, a.values<double>()[i]);
      return;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      const std::string_view v = a.GetView(i);
      Put<uint32_t>(out, static_cast<uint32_t>(v.size()));
      out->append(v);
      return;
    }
    case TypeId::kFixedSizeBinary: {
      const uint8_t* p = a.buffers[1]->data() + (a.offset + i) * t.byte_width;
      out->append(reinterpret_cast<const char*>(p), static_cast<size_t>(t.byte_width));
      return;
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      // Arrow keeps little-endian two's complement; Parquet wants the low
      // type_length bytes big-endian.
      const int width = t.id == TypeId::kDecimal128 ? 16 : 32;
      const uint8_t* p = a.buffers[1]->data() + (a.offset + i) * width;
      for (int b = plan.type_length - 1; b >= 0; --b) out->push_back(static_cast<char>(p[b]));
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------
// Pages

ColumnChunkWriter::ColumnChunkWriter(LeafPlan plan, const ColumnWriteOptions& options)
    : plan_(std::move(plan)),
      options_(options),
      def_width_(BitWidthFor(plan_.max_def)),
      rep_width_(BitWidthFor(plan_.max_rep)),
      use_dictionary_(options.dictionary && plan_.physical != PhysicalType::kBoolean && plan_.type.id != TypeId::kNull),
      stats_(options.statistics ? plan_.order : SortOrder::kNone) {}

uint64_t ColumnChunkWriter::OpenPageBytes() const {
  const int index_width = std::max(1, BitWidthFor(dict_size_));
  const uint64_t level_bits = page_def_.size() * def_width_ + page_rep_.size() * rep_width_;
  return page_plain_.size() + (page_indices_.size() * index_width + page_bools_.size() + level_bits) / 8;
}

uint64_t ColumnChunkWriter::buffered_bytes() const { return pages_bytes_ + dict_plain_.size() + OpenPageBytes(); }

Status ColumnChunkWriter::Append(const LeafLevels& levels) {
  const bool has_rep = plan_.max_rep > 0;
  size_t next_value = 0;
  for (size_t k = 0; k < levels.def.size(); ++k) {
    // Pages end on row boundaries, so readers never see a row split across pages. The
    // size is looked at every kSlotsPerSizeCheck slots: pages overshoot by a few values.
    if (page_slots_ >= next_size_check_ && (!has_rep || levels.rep[k] == 0)) {
      if (fallback_pending_ || OpenPageBytes() >= options_.page_bytes) {
        RETURN_IF_ERROR(CutPage());
      } else {
        next_size_check_ = page_slots_ + kSlotsPerSizeCheck;
      }
    }
    ++page_slots_;
    if (plan_.max_def > 0) page_def_.push_back(levels.def[k]);
    if (has_rep) page_rep_.push_back(levels.rep[k]);
    if (levels.def[k] == plan_.max_def) {
      if (next_value >= levels.values.size()) return Status::Internal("shredded levels and values disagree");
      EncodeValue(levels.values_array, levels.values[next_value++]);
    } else {
      stats_.AddNulls(1);
    }
  }
  return Status::OK();
}

void ColumnChunkWriter::EncodeValue(const Array& a, int64_t i) {
  scratch_.clear();
  AppendPlainValue(plan_, a, i, &scratch_);
  ++page_values_;
  const bool byte_array = plan_.physical == PhysicalType::kByteArray;
  stats_.Update(byte_array ? std::string_view(scratch_).substr(kByteArrayLengthPrefix) : std::string_view(scratch_));
  if (plan_.physical == PhysicalType::kBoolean) {
    page_bools_.push_back(static_cast<uint8_t>(scratch_[0]));
  } else if (use_dictionary_) {
    uint32_t index;
    bool inserted;
    if (!byte_array && scratch_.size() <= sizeof(uint64_t)) {
      uint64_t key = 0;
      std::memcpy(&key, scratch_.data(), scratch_.size());
      auto [it, added] = dict_fixed_.try_emplace(key, dict_size_);
      index = it->second;
      inserted = added;
    } else {
      auto [it, added] = dict_bytes_.try_emplace(scratch_, dict_size_);
      index = it->second;
      inserted = added;
    }
    if (inserted) {
      ++dict_size_;
      dict_plain_ += scratch_;
      if (dict_plain_.size() > options_.page_bytes) fallback_pending_ = true;
    }
    page_indices_.push_back(index);
  } else {
    page_plain_ += scratch_;
  }
}

Status ColumnChunkWriter::AddPage(PageType type, std::string body, int32_t num_values, Encoding encoding,
                                  std::string* out) {
  if (body.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::InvalidArgument("column '" + plan_.path.front() + "': a Parquet page exceeds 2 GiB");
  }
  std::string compressed;
  RETURN_IF_ERROR(CompressPage(options_.codec, options_.compression_level,
                               {reinterpret_cast<const uint8_t*>(body.data()), body.size()}, &compressed));
  PageHeader h;
  h.type = type;
  h.uncompressed_page_size = static_cast<int32_t>(body.size());
  h.compressed_page_size = static_cast<int32_t>(compressed.size());
  if (type == PageType::kDictionaryPage) {
    h.dictionary_page_header = DictionaryPageHeader{num_values, encoding, std::nullopt};
  } else {
    h.data_page_header = DataPageHeader{num_values, encoding, Encoding::kRle, Encoding::kRle, std::nullopt};
  }
  *out = EncodePageHeader(h);
  uncompressed_bytes_ += static_cast<int64_t>(out->size() + body.size());
  out->append(compressed);
  return Status::OK();
}

Status ColumnChunkWriter::CutPage() {
  if (page_slots_ > 0) {
    std::string body;
    if (plan_.max_rep > 0) AppendLevelsV1(page_rep_, rep_width_, &body);
    if (plan_.max_def > 0) AppendLevelsV1(page_def_, def_width_, &body);
    Encoding encoding = Encoding::kPlain;
    if (plan_.physical == PhysicalType::kBoolean) {
      AppendPlainBools(page_bools_, &body);
      ++plain_pages_;
    } else if (use_dictionary_ && page_values_ > 0) {
      encoding = Encoding::kRleDictionary;
      const int width = std::max(1, BitWidthFor(dict_size_ - 1));
      body.push_back(static_cast<char>(width));
      AppendRleBitPacked(page_indices_, width, &body);
      ++dict_pages_;
    } else {
      // A page of nulls only has no indices; PLAIN keeps it readable without a dictionary.
      body += page_plain_;
      ++plain_pages_;
    }
    std::string page;
    RETURN_IF_ERROR(AddPage(PageType::kDataPage, std::move(body), page_slots_, encoding, &page));
    pages_bytes_ += page.size();
    pages_.push_back(std::move(page));
    num_slots_ += page_slots_;
    page_def_.clear();
    page_rep_.clear();
    page_indices_.clear();
    page_bools_.clear();
    page_plain_.clear();
    page_slots_ = page_values_ = 0;
    next_size_check_ = kSlotsPerSizeCheck;
  }
  if (fallback_pending_) {
    use_dictionary_ = false;
    fallback_pending_ = false;
  }
  return Status::OK();
}

Result<ColumnMetaData> ColumnChunkWriter::Flush(int64_t file_offset,
                                                const std::function<Status(std::string_view)>& emit) {
  RETURN_IF_ERROR(CutPage());
  ColumnMetaData m;
  m.type = plan_.physical;
  m.path_in_schema = plan_.path;
  m.codec = options_.codec;
  m.num_values = num_slots_;
  int64_t offset = file_offset;
  if (dict_pages_ > 0) {
    std::string page;
    RETURN_IF_ERROR(
        AddPage(PageType::kDictionaryPage, dict_plain_, static_cast<int32_t>(dict_size_), Encoding::kPlain, &page));
    m.dictionary_page_offset = offset;
    RETURN_IF_ERROR(emit(page));
    offset += static_cast<int64_t>(page.size());
    m.encodings.push_back(Encoding::kPlain);
    m.encodings.push_back(Encoding::kRleDictionary);
    m.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
    m.encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, dict_pages_});
  }
  m.data_page_offset = offset;
  for (const std::string& page : pages_) {
    RETURN_IF_ERROR(emit(page));
    offset += static_cast<int64_t>(page.size());
  }
  if (plain_pages_ > 0) {
    if (dict_pages_ == 0) m.encodings.push_back(Encoding::kPlain);
    m.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_pages_});
  }
  if (plan_.max_def > 0 || plan_.max_rep > 0) m.encodings.push_back(Encoding::kRle);
  m.total_uncompressed_size = uncompressed_bytes_;
  m.total_compressed_size = offset - file_offset;
  Statistics stats = stats_.Take();
  if (options_.statistics) m.statistics = std::move(stats);

  pages_.clear();
  pages_bytes_ = 0;
  dict_fixed_.clear();
  dict_bytes_.clear();
  dict_size_ = 0;
  dict_plain_.clear();
  num_slots_ = uncompressed_bytes_ = 0;
  dict_pages_ = plain_pages_ = 0;
  use_dictionary_ = options_.dictionary && plan_.physical != PhysicalType::kBoolean && plan_.type.id != TypeId::kNull;
  return m;
}

}  // namespace lancet::format::parquet
