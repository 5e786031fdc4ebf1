// Constant (docs/format §8): every value equals the inline scalar; no value means all null.
#include "encoding/decoders_internal.h"

namespace lancet::encoding::internal {

Result<DataBlock> DecodeConstant(const pb::Constant& constant, uint64_t num_values) {
  if (!constant.has_value()) {
    DataBlock all_null;
    all_null.kind = DataBlock::Kind::kEmpty;
    all_null.num_values = num_values;
    return all_null;
  }
  const std::string& v = constant.value();
  if (v.empty()) return Corrupt("Constant: empty scalar");
  if (v.size() > UINT32_MAX / 8) return Corrupt("Constant: scalar of ", v.size(), " bytes is too wide");
  ASSIGN_OR_RETURN(uint64_t total, CheckedMul(num_values, v.size(), "Constant"));
  if (total > kMaxAllocation) return Corrupt("Constant: ", num_values, " copies exceed the allocation limit");
  ASSIGN_OR_RETURN(std::shared_ptr<Buffer> out, Buffer::Allocate(total));
  for (uint64_t i = 0; i < num_values; ++i) std::memcpy(out->mutable_data() + i * v.size(), v.data(), v.size());
  return DataBlock::Fixed(static_cast<uint32_t>(v.size() * 8), num_values, std::move(out));
}

}  // namespace lancet::encoding::internal
