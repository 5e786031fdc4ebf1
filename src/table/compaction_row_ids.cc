#include "table/compaction_row_ids.h"

#include <algorithm>
#include <cstring>

#include "lance_proto/rowids.pb.h"
#include "table/row_id_sequence.h"
#include "table/row_meta.h"

namespace lancet::table {
namespace {

// Runs this long are cheaper as a Range than as array entries.
constexpr size_t kMinRangeRun = 4;

template <typename T>
std::string PackOffsets(std::span<const uint64_t> values, uint64_t base) {
  std::string out(values.size() * sizeof(T), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    T v = static_cast<T>(values[i] - base);
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
  }
  return out;
}

void EncodeArray(std::span<const uint64_t> values, lance::table::EncodedU64Array* out) {
  uint64_t lo = *std::min_element(values.begin(), values.end());
  uint64_t hi = *std::max_element(values.begin(), values.end());
  if (hi - lo <= 0xFFFF) {
    out->mutable_u16_array()->set_base(lo);
    out->mutable_u16_array()->set_offsets(PackOffsets<uint16_t>(values, lo));
  } else if (hi - lo <= 0xFFFFFFFFu) {
    out->mutable_u32_array()->set_base(lo);
    out->mutable_u32_array()->set_offsets(PackOffsets<uint32_t>(values, lo));
  } else {
    out->mutable_u64_array()->set_values(PackOffsets<uint64_t>(values, 0));
  }
}

void FlushArray(std::span<const uint64_t> values, lance::table::RowIdSequence* seq) {
  if (values.empty()) return;
  lance::table::U64Segment* seg = seq->add_segments();
  bool sorted =
      std::is_sorted(values.begin(), values.end()) && std::adjacent_find(values.begin(), values.end()) == values.end();
  EncodeArray(values, sorted ? seg->mutable_sorted_array() : seg->mutable_array());
}

}  // namespace

std::string EncodeRowIds(std::span<const uint64_t> ids) {
  lance::table::RowIdSequence seq;
  size_t pending = 0;  // start of ids not yet in a segment
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1) ++j;
    if (j - i >= kMinRangeRun) {
      FlushArray(ids.subspan(pending, i - pending), &seq);
      auto* range = seq.add_segments()->mutable_range();
      range->set_start(ids[i]);
      range->set_end(ids[j - 1] + 1);
      pending = j;
    }
    i = j;
  }
  FlushArray(ids.subspan(pending), &seq);
  return seq.SerializeAsString();
}

Result<std::vector<uint64_t>> DecodeRowVersions(const std::string& bytes, uint64_t physical_rows,
                                                const std::string& context) {
  ASSIGN_OR_RETURN(RowVersions versions, RowVersions::Parse(bytes, physical_rows, context));
  std::vector<uint64_t> out;
  out.reserve(physical_rows);
  versions.AppendRange(0, physical_rows, &out);
  return out;
}

std::string EncodeRowVersions(std::span<const uint64_t> versions) {
  lance::table::RowDatasetVersionSequence seq;
  size_t i = 0;
  while (i < versions.size()) {
    size_t j = i + 1;
    while (j < versions.size() && versions[j] == versions[i]) ++j;
    auto* run = seq.add_runs();
    run->mutable_span()->mutable_range()->set_start(i);
    run->mutable_span()->mutable_range()->set_end(j);
    run->set_version(versions[i]);
    i = j;
  }
  return seq.SerializeAsString();
}

std::string EncodeConstantRowVersions(uint64_t rows, uint64_t version) {
  lance::table::RowDatasetVersionSequence seq;
  auto* run = seq.add_runs();
  run->mutable_span()->mutable_range()->set_end(rows);
  run->set_version(version);
  return seq.SerializeAsString();
}

}  // namespace lancet::table
