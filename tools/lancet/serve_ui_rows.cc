// The UI's row pages: a filtered, offset and limited scan of a table as JSON.
#include <algorithm>

#include "lancet/json_writer.h"
#include "lancet/scan/scanner.h"
#include "lancet/serve_ui.h"
#include "lancet/serve_ui_http.h"
#include "lancet/value_json.h"

namespace lancet::cli {
namespace {

// Strings and binaries longer than this show as {len, sha256} in the row preview.
constexpr size_t kPreviewValueBytes = 1024;
constexpr size_t kMaxFilterBytes = 4096;

const Array* BlobSizeChild(const Array& descriptor) {
  for (size_t i = 0; i < descriptor.type.children.size() && i < descriptor.children.size(); ++i) {
    if (descriptor.type.children[i].name == "size" && descriptor.children[i].type.id == TypeId::kUInt64) {
      return &descriptor.children[i];
    }
  }
  return nullptr;
}

// Blob values show as their size: the page fetches the bytes (or frames) when asked.
void WriteBlobSummary(JsonWriter& w, const Array& descriptor, int64_t index) {
  if (descriptor.IsNull(index)) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("blob");
  w.Bool(true);
  const Array* size = BlobSizeChild(descriptor);
  const int64_t at = descriptor.offset + index;  // struct children carry the parent's offset
  if (size != nullptr && size->IsValid(at)) {
    w.Key("size");
    w.UInt(size->values<uint64_t>()[at]);
  }
  w.EndObject();
}

}  // namespace

Result<catalog::RestResponse> UiRoutes::Rows(const Query& query) const {
  ASSIGN_OR_RETURN(auto ds, OpenTable(query));
  ASSIGN_OR_RETURN(uint64_t offset, UiQueryU64(query, "offset", 0, uint64_t{1} << 48));
  ASSIGN_OR_RETURN(uint64_t limit, UiQueryU64(query, "limit", 50, options_.max_rows));
  std::string where;
  if (auto it = query.find("where"); it != query.end()) where = it->second;
  if (where.size() > kMaxFilterBytes) {
    return Status::InvalidArgument("the filter is longer than " + std::to_string(kMaxFilterBytes) + " bytes");
  }

  // The matching rows are counted with the filter's columns only, as `lancet count` does.
  uint64_t total = ds->CountRows();
  if (!where.empty()) {
    table::ScanOptions count;
    count.columns = {"_rowaddr"};
    count.filter = where;
    ASSIGN_OR_RETURN(auto reader, scan::NewScan(*ds, count));
    total = 0;
    while (true) {
      ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      total += static_cast<uint64_t>(batch->num_rows);
    }
  }

  table::ScanOptions scan;
  scan.filter = where;
  scan.offset = offset;
  scan.limit = limit;
  scan.with_row_id = true;
  scan.batch_size = std::max<uint64_t>(limit, 1);
  ValueOptions values;
  values.digest_threshold = kPreviewValueBytes;
  values.float32_shortest = true;
  values.blob_writer = [](JsonWriter& w, std::string_view, const Array& descriptor, int64_t i) {
    WriteBlobSummary(w, descriptor, i);
  };
  const Schema& logical = ds->schema();
  std::string body;
  JsonWriter w(&body);
  w.BeginObject();
  w.Key("total");
  w.UInt(total);
  w.Key("offset");
  w.UInt(offset);
  w.Key("limit");
  w.UInt(limit);
  w.Key("columns");
  w.BeginArray();
  for (const Field& f : logical.fields) w.String(f.name);
  w.EndArray();
  w.Key("rows");
  w.BeginArray();
  if (limit > 0) {
    ASSIGN_OR_RETURN(auto reader, scan::NewScan(*ds, scan));
    while (true) {
      ASSIGN_OR_RETURN(auto batch, reader->Next());
      if (!batch) break;
      const int rowid = batch->schema.FieldIndex("_rowid");
      if (rowid < 0) return Status::Internal("the scan returned no _rowid");
      const Array& ids = batch->columns[static_cast<size_t>(rowid)];
      for (int64_t i = 0; i < batch->num_rows; ++i) {
        w.BeginObject();
        w.Key("_rowid");
        w.UIntString(ids.values<uint64_t>()[i]);
        w.Key("values");
        w.BeginArray();
        for (const Field& f : logical.fields) {
          const int c = batch->schema.FieldIndex(f.name);
          if (c < 0) {
            w.Null();
            continue;
          }
          RETURN_IF_ERROR(WriteValue(w, batch->columns[static_cast<size_t>(c)], i, &f, f.name, values));
        }
        w.EndArray();
        w.EndObject();
      }
    }
  }
  w.EndArray();
  w.EndObject();
  return UiJson(std::move(body));
}

}  // namespace lancet::cli
