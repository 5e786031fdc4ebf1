#include "table/compaction_row_ids.h"

#include <algorithm>
#include <cstring>

#include "lance_proto/rowids.pb.h"
#include "table/row_id_sequence.h"

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
  lance::table::RowDatasetVersionSequence pb;
  if (!pb.ParseFromString(bytes)) {
    return Status::Corruption(context + ": row version sequence is not a valid protobuf");
  }
  std::vector<uint64_t> out;
  size_t covered = 0;  // runs that fit
  for (const auto& run : pb.runs()) {
    // A span is a U64Segment; its length is what counts, which the row id parser knows.
    lance::table::RowIdSequence one;
    *one.add_segments() = run.span();
    std::string span = one.SerializeAsString();
    ASSIGN_OR_RETURN(RowIdSequence parsed,
                     RowIdSequence::Parse({reinterpret_cast<const uint8_t*>(span.data()), span.size()}, context));
    if (parsed.size() > physical_rows - out.size()) break;  // reported below, before allocating
    out.insert(out.end(), parsed.size(), run.version());
    ++covered;
  }
  if (out.size() != physical_rows || static_cast<int>(covered) != pb.runs_size()) {
    return Status::Corruption(context + ": row version sequence does not cover the fragment's " +
                              std::to_string(physical_rows) + " rows");
  }
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

}  // namespace lancet::table
