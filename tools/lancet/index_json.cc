#include "lancet/index_json.h"

namespace lancet::cli {

void WriteIndexStatsJson(JsonWriter& w, const index::IndexStats& s) {
  w.BeginObject();
  w.Key("name");
  w.String(s.name);
  w.Key("type");
  w.String(s.type);
  w.Key("column");
  w.String(s.column);
  w.Key("usable");
  w.Bool(s.usable);
  w.Key("segments");
  w.UInt(s.num_segments);
  w.Key("indexed_rows");
  w.UInt(s.num_indexed_rows);
  w.Key("unindexed_rows");
  w.UInt(s.num_unindexed_rows);
  w.Key("size_bytes");
  w.UInt(s.size_bytes);
  w.EndObject();
}

}  // namespace lancet::cli
