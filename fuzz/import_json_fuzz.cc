// Fuzzes `lancet import`'s JSON inputs: the input is a JSON document read as an import
// schema; when it is one, its "rows" member (if any) is normalized as NDJSON rows of
// that schema and built into arrays, as the importer does.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "lancet/ndjson.h"
#include "lancet/schema_json.h"
#include "util/array_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  auto schema = lancet::cli::SchemaFromJson(doc);
  if (!schema.ok() || !doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array()) return 0;
  for (const lancet::Field& field : schema->fields) {
    nlohmann::json column = nlohmann::json::array();
    bool ok = true;
    for (const auto& row : doc["rows"]) {
      nlohmann::json value = row.is_object() && row.contains(field.name) ? row[field.name] : nlohmann::json();
      nlohmann::json normalized;
      if (!lancet::cli::NormalizeValue(value, field, field.name, &normalized).ok()) {
        ok = false;
        break;
      }
      column.push_back(std::move(normalized));
    }
    if (ok) (void)lancet::ArrayFromJson(field.type, column.dump());
  }
  return 0;
}
