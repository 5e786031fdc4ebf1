// Blob V2 thresholds and the input field shape (include/lancet/table/blob_write.h).
#include <charconv>

#include "lancet/table/blob_write.h"

namespace lancet::table {
namespace {

Result<uint64_t> ParseThreshold(const Field& field, const char* key, uint64_t fallback, bool zero_ok) {
  auto it = field.metadata.find(key);
  if (it == field.metadata.end()) return fallback;
  const std::string& text = it->second;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Status::InvalidArgument("blob column '" + field.name + "': " + key + " = '" + text +
                                   "' is not a decimal byte count");
  }
  if (value == 0 && !zero_ok) {
    return Status::InvalidArgument("blob column '" + field.name + "': " + key + " must be at least 1");
  }
  return value;
}

}  // namespace

Result<BlobThresholds> BlobThresholdsOf(const Field& field) {
  BlobThresholds t;
  ASSIGN_OR_RETURN(t.inline_max, ParseThreshold(field, kBlobInlineThresholdKey, t.inline_max, true));
  ASSIGN_OR_RETURN(t.dedicated_min, ParseThreshold(field, kBlobDedicatedThresholdKey, t.dedicated_min, false));
  ASSIGN_OR_RETURN(t.pack_file_max, ParseThreshold(field, kBlobPackFileThresholdKey, t.pack_file_max, false));
  if (t.inline_max > t.dedicated_min) {
    return Status::InvalidArgument("blob column '" + field.name + "': the inline threshold (" +
                                   std::to_string(t.inline_max) + ") is above the dedicated threshold (" +
                                   std::to_string(t.dedicated_min) + ")");
  }
  return t;
}

Field MakeBlobField(const std::string& name, bool nullable, const std::optional<BlobThresholds>& thresholds) {
  Field f = MakeField(
      name, StructOf({MakeField("data", MakeType(TypeId::kLargeBinary)), MakeField("uri", MakeType(TypeId::kUtf8))}),
      nullable);
  f.metadata[kArrowExtensionName] = kBlobV2ExtensionName;
  if (thresholds) {
    f.metadata[kBlobInlineThresholdKey] = std::to_string(thresholds->inline_max);
    f.metadata[kBlobDedicatedThresholdKey] = std::to_string(thresholds->dedicated_min);
    f.metadata[kBlobPackFileThresholdKey] = std::to_string(thresholds->pack_file_max);
  }
  return f;
}

}  // namespace lancet::table
