// filter_interop DATASET PREDICATES_FILE: Lancet's answer to each predicate (one per line;
// blank lines and '#' comments skipped) in filter_oracle.mjs's format, one JSON line each:
// {"where": EXPR, "rows": [[rowid, id], ...]} sorted by row id, or {"where", "error"}.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "lancet/expr/filter.h"
#include "lancet/table/dataset.h"

namespace {

using namespace lancet;

// Every row the filter matches, scanning only its columns plus id and _rowid.
Result<nlohmann::json> Answer(const table::Dataset& dataset, const std::string& where) {
  ASSIGN_OR_RETURN(expr::Filter filter, expr::Filter::Bind(where, dataset.read_schema()));
  table::ScanOptions scan;
  scan.columns = filter.columns();
  if (std::find(scan.columns.begin(), scan.columns.end(), "id") == scan.columns.end()) scan.columns.push_back("id");
  scan.with_row_id = true;
  ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, dataset.Scan(scan));
  std::vector<std::pair<uint64_t, int64_t>> rows;
  for (const RecordBatch& batch : batches) {
    ASSIGN_OR_RETURN(std::vector<bool> match, filter.Evaluate(batch));
    const int rowid = batch.schema.FieldIndex("_rowid"), id = batch.schema.FieldIndex("id");
    if (rowid < 0 || id < 0) return Status::Internal("scan returned no _rowid or id");
    const uint64_t* r = batch.columns[static_cast<size_t>(rowid)].values<uint64_t>();
    const int64_t* v = batch.columns[static_cast<size_t>(id)].values<int64_t>();
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i]) rows.emplace_back(r[i], v[i]);
    }
  }
  std::sort(rows.begin(), rows.end());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [r, v] : rows) out.push_back({std::to_string(r), std::to_string(v)});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: filter_interop DATASET PREDICATES_FILE\n";
    return 64;
  }
  auto dataset = table::Dataset::Open(argv[1]);
  if (!dataset.ok()) {
    std::cerr << dataset.status().ToString() << "\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    nlohmann::json j = {{"where", line}};
    auto rows = Answer(**dataset, line);
    if (rows.ok()) {
      j["rows"] = *rows;
    } else {
      j["error"] = rows.status().ToString();
    }
    std::cout << j.dump() << "\n";
  }
  return 0;
}
