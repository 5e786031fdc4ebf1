// One HNSW partition to and from the reference's index.idx rows and lance:hnsw object
// (docs/hnsw-format.md).
#include <nlohmann/json.hpp>

#include "index/hnsw.h"
#include "util/array_builder.h"

namespace lancet::index {

namespace {

// The reference's max_level is a u16.
constexpr size_t kMaxLevels = 65535;

Result<Array> ListArray(TypeId item, const std::vector<uint64_t>& offsets, Array values) {
  std::vector<int64_t> offs(offsets.begin(), offsets.end());
  return MakeListArray(ListOf(MakeField("item", MakeType(item))), offs, std::move(values));
}

Status Bad(const std::string& where, const std::string& what) {
  return Status::Corruption(where + ": HNSW graph " + what);
}

// An unsigned JSON integer no larger than `max`.
bool GetUnsigned(const nlohmann::json& obj, const char* key, uint64_t max, uint64_t* out) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) return false;
  *out = it->get<uint64_t>();
  return *out <= max;
}

}  // namespace

std::vector<Field> HnswFields() {
  return {MakeField(kHnswVectorIdColumn, MakeType(TypeId::kUInt32)),
          MakeField(kHnswNeighborsColumn, ListOf(MakeField("item", MakeType(TypeId::kUInt32)))),
          MakeField(kHnswDistanceColumn, ListOf(MakeField("item", MakeType(TypeId::kFloat32))))};
}

std::string HnswMetadataArray(const std::vector<std::string>& partitions) { return nlohmann::json(partitions).dump(); }

Result<std::vector<std::string>> ParseHnswMetadataArray(std::string_view json, size_t num_partitions,
                                                        const std::string& where) {
  const nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    return Status::Corruption(where + ": " + kHnswMetadataKey + " is not a JSON array");
  }
  if (doc.size() != num_partitions) {
    return Status::Corruption(where + ": " + kHnswMetadataKey + " lists " + std::to_string(doc.size()) +
                              " partitions, the IVF model " + std::to_string(num_partitions));
  }
  std::vector<std::string> out;
  for (const auto& e : doc) {
    if (!e.is_string()) return Status::Corruption(where + ": " + kHnswMetadataKey + " holds a non-string entry");
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<HnswGraph::Columns> HnswGraph::ToColumns() const {
  std::vector<uint32_t> ids;
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> neighbors;
  std::vector<float> distances;
  for (const Level& l : levels_) {
    for (size_t row = 0; row < l.ids.size(); ++row) {
      ids.push_back(l.ids[row]);
      for (uint64_t i = l.offsets[row]; i < l.offsets[row + 1]; ++i) {
        neighbors.push_back(l.neighbors[i]);
        distances.push_back(l.distances.empty() ? 0.0f : l.distances[i]);
      }
      offsets.push_back(neighbors.size());
    }
  }
  if (neighbors.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::OutOfRange("HNSW graph has too many links for one list<uint32> column");
  }
  Columns c;
  ASSIGN_OR_RETURN(c.vector_id, ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), ids));
  ASSIGN_OR_RETURN(Array nb, ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), neighbors));
  ASSIGN_OR_RETURN(c.neighbors, ListArray(TypeId::kUInt32, offsets, std::move(nb)));
  ASSIGN_OR_RETURN(Array ds, ArrayFromVector<float>(MakeType(TypeId::kFloat32), distances));
  ASSIGN_OR_RETURN(c.distance, ListArray(TypeId::kFloat32, offsets, std::move(ds)));
  return c;
}

std::string HnswMetadataObject(uint32_t entry_point, const HnswParams& params,
                               const std::vector<uint64_t>& level_sizes) {
  nlohmann::ordered_json p;
  p["max_level"] = params.max_level;
  p["m"] = params.m;
  p["ef_construction"] = params.ef_construction;
  p["prefetch_distance"] =
      params.prefetch_distance ? nlohmann::ordered_json(*params.prefetch_distance) : nlohmann::ordered_json();
  nlohmann::ordered_json offsets = nlohmann::ordered_json::array();
  uint64_t offset = 0;
  offsets.push_back(offset);
  for (uint64_t size : level_sizes) {
    offset += size;
    offsets.push_back(offset);
  }
  nlohmann::ordered_json doc;
  doc["entry_point"] = entry_point;
  doc["params"] = std::move(p);
  doc["level_offsets"] = std::move(offsets);
  return doc.dump();
}

std::string HnswGraph::MetadataJson() const {
  std::vector<uint64_t> sizes;
  for (const Level& l : levels_) sizes.push_back(l.ids.size());
  return HnswMetadataObject(entry_point_, params_, sizes);
}

Result<HnswGraph> HnswGraph::FromColumns(const Array& vector_id, const Array& neighbors, const Array* distance,
                                         std::string_view metadata_json, uint32_t num_vectors,
                                         const std::string& where) {
  // Column shapes.
  if (vector_id.type.id != TypeId::kUInt32) return Bad(where, "__vector_id is " + vector_id.type.ToString());
  const auto is_list_of = [](const Array& a, TypeId item) {
    return a.type.id == TypeId::kList && a.type.children.size() == 1 && a.type.children[0].type.id == item &&
           a.children.size() == 1;
  };
  if (!is_list_of(neighbors, TypeId::kUInt32)) return Bad(where, "__neighbors is " + neighbors.type.ToString());
  if (distance != nullptr && !is_list_of(*distance, TypeId::kFloat32)) {
    return Bad(where, "_distance is " + distance->type.ToString());
  }
  for (const Array* a : {&vector_id, &neighbors, distance}) {
    if (a == nullptr) continue;
    if (Status st = a->Validate(); !st.ok()) return Bad(where, "column is malformed: " + st.message());
  }
  const uint64_t rows = vector_id.length;
  if (static_cast<uint64_t>(neighbors.length) != rows ||
      (distance != nullptr && distance->length != neighbors.length)) {
    return Bad(where, "columns have different lengths");
  }
  if (vector_id.null_count != 0 || neighbors.children[0].null_count != 0 ||
      (distance != nullptr && distance->children[0].null_count != 0)) {
    return Bad(where, "has null ids");
  }

  HnswGraph g;
  if (rows == 0 && metadata_json.empty()) return g;  // an empty partition
  // Metadata.
  const nlohmann::json doc = nlohmann::json::parse(metadata_json.begin(), metadata_json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Bad(where, "metadata is not a JSON object");
  auto p = doc.find("params");
  if (p == doc.end() || !p->is_object()) return Bad(where, "metadata has no params object");
  uint64_t max_level = 0, m = 0, ef = 0, entry = 0;
  if (!GetUnsigned(*p, "max_level", kMaxLevels, &max_level) || max_level == 0) {
    return Bad(where, "metadata max_level is missing or not in 1.." + std::to_string(kMaxLevels));
  }
  if (!GetUnsigned(*p, "m", 1u << 20, &m) || m == 0) return Bad(where, "metadata m is missing or out of range");
  if (!GetUnsigned(*p, "ef_construction", UINT32_MAX, &ef)) return Bad(where, "metadata ef_construction is invalid");
  g.params_.max_level = static_cast<uint16_t>(max_level);
  g.params_.m = static_cast<uint32_t>(m);
  g.params_.ef_construction = static_cast<uint32_t>(ef);
  g.params_.prefetch_distance.reset();
  if (auto pd = p->find("prefetch_distance"); pd != p->end() && !pd->is_null()) {
    uint64_t v = 0;
    if (!GetUnsigned(*p, "prefetch_distance", UINT32_MAX, &v))
      return Bad(where, "metadata prefetch_distance is invalid");
    g.params_.prefetch_distance = static_cast<uint32_t>(v);
  }
  if (!GetUnsigned(doc, "entry_point", UINT32_MAX, &entry)) return Bad(where, "metadata entry_point is invalid");
  g.entry_point_ = static_cast<uint32_t>(entry);
  auto lo = doc.find("level_offsets");
  if (lo == doc.end() || !lo->is_array() || lo->size() < 2 || lo->size() > max_level + 1) {
    return Bad(where,
               "metadata level_offsets must list 2 to max_level + 1 = " + std::to_string(max_level + 1) + " offsets");
  }
  std::vector<uint64_t> offsets;
  for (const auto& v : *lo) {
    if (!v.is_number_unsigned()) return Bad(where, "metadata level_offsets holds a non-integer");
    const uint64_t o = v.get<uint64_t>();
    if ((offsets.empty() && o != 0) || (!offsets.empty() && o < offsets.back()) || o > rows) {
      return Bad(where, "level_offsets " + lo->dump() + " are not ascending from 0 within its " + std::to_string(rows) +
                            " rows");
    }
    offsets.push_back(o);
  }

  // Rows, level by level.
  const uint64_t n = offsets[1];
  if (n == 0) return Bad(where, "has no nodes on level 0");
  if (n > num_vectors) {
    return Bad(where, "has " + std::to_string(n) + " nodes but the partition stores " + std::to_string(num_vectors) +
                          " vectors");
  }
  if (g.entry_point_ >= n) {
    return Bad(where,
               "entry_point " + std::to_string(g.entry_point_) + " is not one of its " + std::to_string(n) + " nodes");
  }
  const uint32_t* ids = vector_id.values<uint32_t>();
  const uint32_t* nb_values = neighbors.children[0].values<uint32_t>();
  const float* dist_values = distance != nullptr ? distance->children[0].values<float>() : nullptr;
  const uint64_t max_links = 2 * m + 1;
  g.levels_.resize(offsets.size() - 1);
  for (size_t level = 0; level + 1 < offsets.size(); ++level) {
    Level& l = g.levels_[level];
    l.offsets.push_back(0);
    for (uint64_t row = offsets[level]; row < offsets[level + 1]; ++row) {
      const uint32_t id = ids[row];
      if (level == 0 ? id != row : id >= n) {
        return Bad(where, "level " + std::to_string(level) + " row " + std::to_string(row - offsets[level]) +
                              " names node " + std::to_string(id) +
                              (level == 0 ? " (level 0 must list nodes 0..n-1 in order)" : ", not a node"));
      }
      const auto [begin, end] = neighbors.IsNull(row) ? std::pair<int64_t, int64_t>{0, 0} : neighbors.ListRange(row);
      if (static_cast<uint64_t>(end - begin) > max_links) {
        return Bad(where, "node " + std::to_string(id) + " has " + std::to_string(end - begin) + " links on level " +
                              std::to_string(level) + ", more than 2m+1 = " + std::to_string(max_links));
      }
      if (distance != nullptr) {
        const auto [db, de] = distance->IsNull(row) ? std::pair<int64_t, int64_t>{0, 0} : distance->ListRange(row);
        if (de - db != end - begin) return Bad(where, "node " + std::to_string(id) + " has unequal link lists");
        l.distances.insert(l.distances.end(), dist_values + db, dist_values + de);
      }
      for (int64_t i = begin; i < end; ++i) {
        if (nb_values[i] >= n) {
          return Bad(where, "node " + std::to_string(id) + " links to " + std::to_string(nb_values[i]) +
                                ", not one of its " + std::to_string(n) + " nodes");
        }
      }
      l.ids.push_back(id);
      l.neighbors.insert(l.neighbors.end(), nb_values + begin, nb_values + end);
      l.offsets.push_back(l.neighbors.size());
    }
  }
  g.BuildLookups();
  return g;
}

}  // namespace lancet::index
