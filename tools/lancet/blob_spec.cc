#include "lancet/blob_spec.h"

#include <charconv>
#include <set>

namespace lancet::cli {
namespace {

constexpr const char* kSpecSyntax = "expected COLUMN[:inline=SIZE,dedicated=SIZE,pack=SIZE]";

bool IsBlobInputStruct(const DataType& type) {
  if (type.id != TypeId::kStruct) return false;
  bool data = false, uri = false;
  for (const Field& c : type.children) {
    data |= c.name == "data" && (c.type.id == TypeId::kBinary || c.type.id == TypeId::kLargeBinary);
    uri |= c.name == "uri" && (c.type.id == TypeId::kUtf8 || c.type.id == TypeId::kLargeUtf8);
  }
  return data && uri;
}

}  // namespace

Result<uint64_t> ParseByteSize(const std::string& text) {
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string unit(ptr, text.data() + text.size());
  int shift = -1;
  if (unit.empty()) shift = 0;
  if (unit == "k" || unit == "K") shift = 10;
  if (unit == "m" || unit == "M") shift = 20;
  if (unit == "g" || unit == "G") shift = 30;
  if (ec != std::errc() || ptr == text.data() || shift < 0 || (shift > 0 && n > (UINT64_MAX >> shift))) {
    return Status::InvalidArgument("'" + text + "' is not a byte size (e.g. 65536, 64k, 4m, 1g)");
  }
  return n << shift;
}

Result<BlobColumnSpec> ParseBlobSpec(const std::string& text) {
  BlobColumnSpec spec;
  // A column name may itself hold ':', so only a tail with '=' is read as options.
  const size_t colon = text.rfind(':');
  const bool has_options = colon != std::string::npos && text.find('=', colon) != std::string::npos;
  spec.column = has_options ? text.substr(0, colon) : text;
  if (spec.column.empty()) return Status::InvalidArgument("--blob '" + text + "': no column name; " + kSpecSyntax);
  if (!has_options) return spec;
  std::set<std::string> seen;
  size_t start = colon + 1;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("--blob '" + text + "': '" + item + "' is not KEY=SIZE; " + kSpecSyntax);
    }
    const std::string key = item.substr(0, eq);
    std::optional<uint64_t>* slot = key == "inline"      ? &spec.inline_max
                                    : key == "dedicated" ? &spec.dedicated_min
                                    : key == "pack"      ? &spec.pack_file_max
                                                         : nullptr;
    if (slot == nullptr) {
      return Status::InvalidArgument("--blob '" + text + "': unknown threshold '" + key +
                                     "' (known: inline, dedicated, pack)");
    }
    if (!seen.insert(key).second) {
      return Status::InvalidArgument("--blob '" + text + "': '" + key + "' is given twice");
    }
    auto size = ParseByteSize(item.substr(eq + 1));
    if (!size.ok()) return Status::InvalidArgument("--blob '" + text + "': " + key + ": " + size.status().message());
    *slot = *size;
  }
  return spec;
}

Result<table::BlobThresholds> BlobColumnSpec::Apply(const table::BlobThresholds& base) const {
  table::BlobThresholds t = base;
  if (inline_max) t.inline_max = *inline_max;
  if (dedicated_min) t.dedicated_min = *dedicated_min;
  if (pack_file_max) t.pack_file_max = *pack_file_max;
  const std::string where = "--blob " + column + ": ";
  if (t.dedicated_min == 0) return Status::InvalidArgument(where + "the dedicated threshold must be at least 1");
  if (t.pack_file_max == 0) return Status::InvalidArgument(where + "the pack file size must be at least 1");
  if (t.inline_max > t.dedicated_min) {
    return Status::InvalidArgument(where + "the inline threshold (" + std::to_string(t.inline_max) +
                                   ") is above the dedicated threshold (" + std::to_string(t.dedicated_min) + ")");
  }
  return t;
}

Field WithThresholdMetadata(Field field, const table::BlobThresholds& thresholds) {
  field.metadata[kArrowExtensionName] = kBlobV2ExtensionName;
  field.metadata[table::kBlobInlineThresholdKey] = std::to_string(thresholds.inline_max);
  field.metadata[table::kBlobDedicatedThresholdKey] = std::to_string(thresholds.dedicated_min);
  field.metadata[table::kBlobPackFileThresholdKey] = std::to_string(thresholds.pack_file_max);
  return field;
}

Status ApplyBlobSpecs(const std::vector<BlobColumnSpec>& specs, Schema* schema, table::BlobWriteOptions* options) {
  std::set<std::string> done;
  for (const BlobColumnSpec& spec : specs) {
    if (!done.insert(spec.column).second) {
      return Status::InvalidArgument("--blob names column '" + spec.column + "' twice");
    }
    const int i = schema->FieldIndex(spec.column);
    if (i < 0) {
      std::string known;
      for (const Field& f : schema->fields) known += (known.empty() ? "" : ", ") + f.name;
      return Status::InvalidArgument("--blob " + spec.column + ": no such column (columns: " + known + ")");
    }
    Field& field = schema->fields[i];
    if (field.type.id == TypeId::kBinary || field.type.id == TypeId::kLargeBinary) {
      ASSIGN_OR_RETURN(options->binary_as_blob[spec.column], spec.Apply(table::BlobThresholds{}));
      continue;
    }
    if (!IsBlobInputStruct(field.type)) {
      return Status::InvalidArgument("--blob " + spec.column + ": the column is " + field.type.ToString() +
                                     "; a blob column must be binary, large_binary or "
                                     "struct<data: large_binary, uri: utf8>");
    }
    // A struct that already is a blob field keeps the thresholds the spec leaves out.
    table::BlobThresholds base;
    if (IsBlobV2Field(field)) {
      ASSIGN_OR_RETURN(base, table::BlobThresholdsOf(field));
    }
    ASSIGN_OR_RETURN(const table::BlobThresholds t, spec.Apply(base));
    field = WithThresholdMetadata(field, t);
  }
  return Status::OK();
}

}  // namespace lancet::cli
