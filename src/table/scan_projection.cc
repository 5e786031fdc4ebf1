#include "table/scan_projection.h"

#include <algorithm>

#include "lancet/format/file_reader.h"

namespace lancet::table {
namespace {

std::vector<std::string> SplitColumnPath(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

using MemberPath = std::vector<std::string>;

// `field` keeping only the members on `paths` (each relative to `field`); an empty
// path keeps the whole field.
Result<Field> PruneField(const Field& field, const std::vector<MemberPath>& paths, const std::string& shown,
                         const std::string& where) {
  if (std::any_of(paths.begin(), paths.end(), [](const MemberPath& p) { return p.empty(); })) return field;
  // A packed struct (the Blob V2 descriptor, say) is one stored column: no members to pick.
  if (field.type.id != TypeId::kStruct || format::IsLeafField(field)) {
    return Status::InvalidArgument(where + ": column path '" + shown + "' goes through '" + field.name + "', a " +
                                   field.type.ToString() + ", not a struct");
  }
  for (const MemberPath& p : paths) {
    bool found = std::any_of(field.type.children.begin(), field.type.children.end(),
                             [&](const Field& c) { return c.name == p.front(); });
    if (!found) return Status::NotFound(where + ": struct '" + field.name + "' has no member '" + p.front() + "'");
  }
  Field out = field;
  out.type.children.clear();
  for (const Field& child : field.type.children) {
    std::vector<MemberPath> rest;
    for (const MemberPath& p : paths) {
      if (p.front() == child.name) rest.emplace_back(p.begin() + 1, p.end());
    }
    if (rest.empty()) continue;
    ASSIGN_OR_RETURN(Field pruned, PruneField(child, rest, shown, where));
    out.type.children.push_back(std::move(pruned));
  }
  return out;
}

}  // namespace

Result<ScanProjection> PlanProjection(const Schema& read_schema, const std::vector<std::string>& columns, bool row_id,
                                      bool row_addr, const std::string& where) {
  ScanProjection p;
  auto add_meta = [&](RowMeta m) {
    if (std::find(p.meta.begin(), p.meta.end(), m) != p.meta.end()) return;
    p.meta.push_back(m);
    p.order.push_back(-1 - static_cast<int>(p.meta.size() - 1));
  };
  // Per top-level field, in order of first mention: the member paths asked for.
  std::vector<std::pair<int, std::vector<MemberPath>>> wanted;
  auto want = [&](int idx, MemberPath rest) {
    auto it = std::find_if(wanted.begin(), wanted.end(), [&](const auto& w) { return w.first == idx; });
    if (it == wanted.end()) {
      wanted.push_back({idx, {}});
      it = wanted.end() - 1;
      p.order.push_back(static_cast<int>(wanted.size() - 1));
    }
    it->second.push_back(std::move(rest));
  };
  if (columns.empty()) {
    for (size_t i = 0; i < read_schema.fields.size(); ++i) want(static_cast<int>(i), {});
  }
  for (const std::string& name : columns) {
    if (std::optional<RowMeta> m = RowMetaFromName(name)) {
      add_meta(*m);
      continue;
    }
    int idx = read_schema.FieldIndex(name);
    if (idx >= 0) {
      want(idx, {});
      continue;
    }
    MemberPath parts = SplitColumnPath(name);
    idx = parts.size() > 1 ? read_schema.FieldIndex(parts[0]) : -1;
    if (idx < 0) return Status::NotFound(where + ": no column named '" + name + "'");
    want(idx, MemberPath(parts.begin() + 1, parts.end()));
  }
  p.schema.metadata = read_schema.metadata;
  for (auto& [idx, paths] : wanted) {
    const Field& top = read_schema.fields[static_cast<size_t>(idx)];
    bool whole = std::any_of(paths.begin(), paths.end(), [](const MemberPath& q) { return q.empty(); });
    Field f = top;
    if (!whole) {
      std::string shown = top.name;
      for (const std::string& m : paths.front()) shown += "." + m;
      ASSIGN_OR_RETURN(f, PruneField(top, paths, shown, where));
    }
    p.top_index.push_back(idx);
    p.whole.push_back(whole);
    p.fields.push_back(std::move(f));
  }
  if (row_id) add_meta(RowMeta::kRowId);
  if (row_addr) add_meta(RowMeta::kRowAddr);
  // `fields` follows `wanted`, so a field's slot is its index in both.
  for (int slot : p.order) {
    p.schema.fields.push_back(slot >= 0 ? p.fields[static_cast<size_t>(slot)]
                                        : RowMetaField(p.meta[static_cast<size_t>(-1 - slot)]));
  }
  return p;
}

}  // namespace lancet::table
