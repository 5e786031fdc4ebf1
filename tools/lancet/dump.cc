#include "lancet/dump.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lancet/cli_common.h"
#include "lancet/value_json.h"
#include "util/sha256.h"

namespace lancet::cli {
namespace {

constexpr const char* kContract = "lance-peer-dump/1";
constexpr const char* kRowAddr = "_rowaddr";
constexpr const char* kRowId = "_rowid";

struct RowRef {
  uint64_t addr;
  uint32_t batch;
  uint32_t row;
};

// Where each output column lives in the scan batches.
struct BatchColumns {
  int row_addr = -1;
  int row_id = -1;
  std::vector<int> fields;  // per logical top-level field
};

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

int ColumnIndex(const RecordBatch& batch, const std::string& name) {
  for (size_t k = 0; k < batch.schema.fields.size(); ++k) {
    if (batch.schema.fields[k].name == name) return static_cast<int>(k);
  }
  return -1;
}

Result<uint64_t> ReadU64(const Array& a, int64_t i, const char* what) {
  if (a.type.id != TypeId::kUInt64 && a.type.id != TypeId::kInt64) {
    return Status::Internal(std::string(what) + " column has type " + a.type.ToString());
  }
  if (a.IsNull(i) || a.buffers.size() < 2 || !a.buffers[1] ||
      static_cast<uint64_t>(a.offset + i + 1) * 8 > a.buffers[1]->size()) {
    return Status::Internal(std::string(what) + " column is null or short");
  }
  return static_cast<uint64_t>(a.values<uint64_t>()[i]);
}

// The descriptor array and element for blob field `parts` in row `row`, or nullopt
// when the descriptor or one of its parent structs is null.
std::optional<std::pair<const Array*, int64_t>> FindDescriptor(const Array& top, int64_t row,
                                                               const std::vector<std::string>& parts) {
  const Array* a = &top;
  int64_t i = row;
  for (size_t p = 1; p < parts.size(); ++p) {
    if (a->IsNull(i) || a->type.id != TypeId::kStruct) return std::nullopt;
    const Array* next = nullptr;
    for (size_t k = 0; k < a->type.children.size() && k < a->children.size(); ++k) {
      if (a->type.children[k].name == parts[p]) next = &a->children[k];
    }
    if (next == nullptr) return std::nullopt;
    i += a->offset;
    a = next;
  }
  if (a->IsNull(i)) return std::nullopt;
  return std::make_pair(a, i);
}

// The descriptor's "size" child: how many payload bytes a fetch will return.
uint64_t DescriptorSize(const Array& desc, int64_t i) {
  for (size_t k = 0; k < desc.type.children.size() && k < desc.children.size(); ++k) {
    if (desc.type.children[k].name != "size") continue;
    auto v = ReadU64(desc.children[k], desc.offset + i, "size");
    return v.ok() ? *v : 0;
  }
  return 0;
}

std::string DigestJson(std::span<const uint8_t> bytes) {
  std::string out = "{\"len\":" + std::to_string(bytes.size()) + ",\"sha256\":\"" + Sha256Hex(bytes) + "\"}";
  return out;
}

class SnapshotWriter {
 public:
  SnapshotWriter(const table::Dataset& ds, const DumpOptions& options, OutputSink& sink)
      : ds_(ds), options_(options), sink_(sink) {}

  Status Write(uint64_t version, bool first) {
    const Schema& schema = ds_.schema();
    blob_paths_ = BlobFieldPaths(schema);

    table::ScanOptions scan;
    scan.with_row_id = true;
    scan.with_row_addr = true;
    auto scanned = ds_.Scan(scan);
    if (!scanned.ok()) return scanned.status().WithContext("scan of version " + std::to_string(version));
    batches_ = scanned.MoveValue();

    RETURN_IF_ERROR(MapColumns(schema));
    RETURN_IF_ERROR(OrderRows());

    std::string& out = sink_.buffer();
    out += first ? "\n    {" : ",\n    {";
    out += "\n      \"version\": " + std::to_string(version);
    out += ",\n      \"num_rows\": " + std::to_string(rows_.size());
    out += ",\n      \"num_fragments\": " + std::to_string(ds_.fragments().size());
    out += ",\n      \"schema\": {\"fields\": [";
    for (size_t k = 0; k < schema.fields.size(); ++k) {
      out += k == 0 ? "\n        " : ",\n        ";
      JsonWriter w(&out);
      WriteFieldJson(w, schema.fields[k]);
    }
    out += schema.fields.empty() ? "], \"metadata\": " : "\n      ], \"metadata\": ";
    {
      JsonWriter w(&out);
      w.BeginObject();
      for (const auto& [k, v] : schema.metadata) {
        w.Key(k);
        w.String(v);
      }
      w.EndObject();
    }
    out += "}";
    out += ",\n      \"blob_columns\": ";
    {
      JsonWriter w(&out);
      w.BeginArray();
      for (const auto& p : blob_paths_) w.String(p);
      w.EndArray();
    }
    out += ",\n      \"rows\": [";
    RETURN_IF_ERROR(WriteRows(schema, version));
    out += rows_.empty() ? "]\n    }" : "\n      ]\n    }";
    batches_.clear();
    return Status::OK();
  }

 private:
  Status MapColumns(const Schema& schema) {
    columns_.clear();
    for (const RecordBatch& b : batches_) {
      BatchColumns c;
      c.row_addr = ColumnIndex(b, kRowAddr);
      c.row_id = ColumnIndex(b, kRowId);
      if (c.row_addr < 0 || c.row_id < 0) return Status::Internal("scan result lacks _rowaddr or _rowid");
      for (const Field& f : schema.fields) {
        int k = ColumnIndex(b, f.name);
        if (k < 0) return Status::Internal("scan result lacks column '" + f.name + "'");
        c.fields.push_back(k);
      }
      if (b.columns.size() != b.schema.fields.size()) return Status::Internal("scan batch has a ragged schema");
      for (const Array& col : b.columns) {
        if (col.length != b.num_rows) return Status::Internal("scan batch column length differs from its row count");
      }
      columns_.push_back(std::move(c));
    }
    return Status::OK();
  }

  Status OrderRows() {
    rows_.clear();
    for (size_t b = 0; b < batches_.size(); ++b) {
      const Array& addr = batches_[b].columns[columns_[b].row_addr];
      for (int64_t i = 0; i < batches_[b].num_rows; ++i) {
        ASSIGN_OR_RETURN(uint64_t a, ReadU64(addr, i, kRowAddr));
        rows_.push_back({a, static_cast<uint32_t>(b), static_cast<uint32_t>(i)});
      }
    }
    // The contract orders rows by address; scans are expected to be in that order
    // already, so this is normally a linear check.
    auto less = [](const RowRef& x, const RowRef& y) { return x.addr < y.addr; };
    if (!std::is_sorted(rows_.begin(), rows_.end(), less)) std::stable_sort(rows_.begin(), rows_.end(), less);
    return Status::OK();
  }

  uint64_t RowId(const RowRef& r) const {
    auto v = ReadU64(batches_[r.batch].columns[columns_[r.batch].row_id], r.row, kRowId);
    return v.ok() ? *v : 0;
  }

  // Fetches and digests the blobs of rows [begin, end) for every blob path.
  Status FetchBlobs(size_t begin, size_t end, uint64_t version) {
    digests_.assign(blob_paths_.size(), std::vector<std::optional<std::string>>(end - begin));
    for (size_t p = 0; p < blob_paths_.size(); ++p) {
      const std::vector<std::string> parts = SplitPath(blob_paths_[p]);
      std::vector<uint64_t> ids;
      std::vector<size_t> slots;
      uint64_t bytes = 0;
      auto flush = [&]() -> Status {
        if (ids.empty()) return Status::OK();
        auto got = ds_.TakeBlobs(blob_paths_[p], ids);
        if (!got.ok()) {
          return got.status().WithContext("blob fetch of '" + blob_paths_[p] + "' for _rowid " +
                                          std::to_string(ids.front()) + ".." + std::to_string(ids.back()) +
                                          " at version " + std::to_string(version));
        }
        if (got->size() != ids.size()) return Status::Internal("TakeBlobs returned a wrong number of blobs");
        for (size_t k = 0; k < ids.size(); ++k) {
          const auto& buf = (*got)[k];
          if (buf.has_value()) {
            digests_[p][slots[k]] = *buf ? DigestJson((*buf)->span()) : DigestJson({});
          }
        }
        ids.clear();
        slots.clear();
        bytes = 0;
        return Status::OK();
      };
      for (size_t r = begin; r < end; ++r) {
        const RowRef& ref = rows_[r];
        const RecordBatch& b = batches_[ref.batch];
        auto desc = FindDescriptor(b.columns[columns_[ref.batch].fields[FieldIndexOf(parts[0])]], ref.row, parts);
        if (!desc) continue;
        ids.push_back(RowId(ref));
        slots.push_back(r - begin);
        bytes += DescriptorSize(*desc->first, desc->second);
        if (bytes >= options_.blob_batch_bytes) RETURN_IF_ERROR(flush());
      }
      RETURN_IF_ERROR(flush());
    }
    return Status::OK();
  }

  size_t FieldIndexOf(const std::string& top) const {
    for (size_t k = 0; k < top_names_.size(); ++k) {
      if (top_names_[k] == top) return k;
    }
    return 0;
  }

  Status WriteRows(const Schema& schema, uint64_t version) {
    top_names_.clear();
    for (const Field& f : schema.fields) top_names_.push_back(f.name);
    std::map<std::string, size_t, std::less<>> path_index;
    for (size_t p = 0; p < blob_paths_.size(); ++p) path_index.emplace(blob_paths_[p], p);

    size_t chunk_begin = 0;
    size_t current = 0;  // row within the chunk, read by the blob writer
    ValueOptions plain;
    ValueOptions values;
    if (!blob_paths_.empty()) {
      values.blob_writer = [&](JsonWriter& w, std::string_view path, const Array& desc, int64_t i) {
        if (desc.IsNull(i)) {
          w.Null();
          return;
        }
        w.BeginObject();
        w.Key("descriptor");
        Status st = WriteValue(w, desc, i, nullptr, {}, plain);
        if (!st.ok() && blob_error_.ok()) blob_error_ = st;
        w.Key("bytes");
        auto it = path_index.find(path);
        const std::optional<std::string>* d = it == path_index.end() ? nullptr : &digests_[it->second][current];
        if (d != nullptr && d->has_value()) {
          w.Raw(**d);
        } else {
          w.Null();
        }
        w.EndObject();
      };
    }

    std::string& out = sink_.buffer();
    for (size_t r = 0; r < rows_.size(); ++r) {
      if (r == chunk_begin && !blob_paths_.empty()) {
        size_t chunk_end = std::min(rows_.size(), r + static_cast<size_t>(std::max<uint64_t>(1, options_.blob_batch_rows)));
        RETURN_IF_ERROR(FetchBlobs(r, chunk_end, version));
        chunk_begin = chunk_end;
        current = 0;
      }
      const RowRef& ref = rows_[r];
      const RecordBatch& b = batches_[ref.batch];
      const BatchColumns& c = columns_[ref.batch];
      out += r == 0 ? "\n        " : ",\n        ";
      JsonWriter w(&out);
      w.BeginObject();
      w.Key(kRowAddr);
      w.UIntString(ref.addr);
      w.Key(kRowId);
      w.UIntString(RowId(ref));
      for (size_t k = 0; k < schema.fields.size(); ++k) {
        const Field& f = schema.fields[k];
        w.Key(f.name);
        Status st = WriteValue(w, b.columns[c.fields[k]], ref.row, &f, f.name, values);
        if (!st.ok()) {
          return st.WithContext("version " + std::to_string(version) + " row _rowaddr=" + std::to_string(ref.addr) +
                                " column '" + f.name + "'");
        }
        if (!blob_error_.ok()) return blob_error_.WithContext("blob descriptor of column '" + f.name + "'");
      }
      w.EndObject();
      ++current;
      RETURN_IF_ERROR(sink_.MaybeFlush());
    }
    return Status::OK();
  }

  const table::Dataset& ds_;
  const DumpOptions& options_;
  OutputSink& sink_;
  std::vector<RecordBatch> batches_;
  std::vector<BatchColumns> columns_;
  std::vector<RowRef> rows_;
  std::vector<std::string> blob_paths_;
  std::vector<std::string> top_names_;
  // Per blob path, per row of the current chunk: the rendered {len, sha256}, or
  // nullopt when the blob is null (or was not fetched because its descriptor is).
  std::vector<std::vector<std::optional<std::string>>> digests_;
  Status blob_error_;
};

}  // namespace

std::string DatasetNameFromUri(const std::string& uri) {
  std::string s = uri;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  size_t slash = s.find_last_of('/');
  std::string base = slash == std::string::npos ? s : s.substr(slash + 1);
  constexpr std::string_view kSuffix = ".lance";
  if (base.size() > kSuffix.size() && base.ends_with(kSuffix)) base.resize(base.size() - kSuffix.size());
  return base;
}

Status WriteDump(const table::Dataset& dataset, const DumpOptions& options, OutputSink& sink) {
  ASSIGN_OR_RETURN(std::vector<table::VersionInfo> versions, dataset.ListVersions());
  std::sort(versions.begin(), versions.end(),
            [](const table::VersionInfo& a, const table::VersionInfo& b) { return a.version < b.version; });
  ASSIGN_OR_RETURN(auto tags, dataset.ListTags());
  const uint64_t latest = versions.empty() ? dataset.version() : std::max(versions.back().version, dataset.version());

  std::set<uint64_t> targets;
  if (options.all_versions) {
    for (const auto& v : versions) targets.insert(v.version);
  }
  targets.insert(options.versions.begin(), options.versions.end());
  for (const std::string& tag : options.tags) {
    auto it = tags.find(tag);
    if (it == tags.end()) {
      std::string known;
      for (const auto& [name, v] : tags) known += (known.empty() ? "" : ", ") + name;
      return Status::NotFound("unknown tag '" + tag + "' (tags: " + (known.empty() ? "none" : known) + ")");
    }
    targets.insert(it->second);
  }
  if (targets.empty()) targets.insert(latest);

  std::string& out = sink.buffer();
  {
    out += "{\n  \"contract\": \"";
    out += kContract;
    out += "\",\n  \"dataset\": ";
    AppendJsonString(&out, options.dataset_name.empty() ? DatasetNameFromUri(dataset.uri()) : options.dataset_name);
    out += ",\n  \"producer\": {\"tool\": \"lancet\", \"version\": \"" LANCET_VERSION "\"}";
    out += ",\n  \"latest_version\": " + std::to_string(latest);
    if (options.history) {
      out += ",\n  \"versions\": [";
      for (size_t k = 0; k < versions.size(); ++k) {
        out += k == 0 ? "\n    " : ",\n    ";
        out += "{\"version\": " + std::to_string(versions[k].version) +
               ", \"num_rows\": " + std::to_string(versions[k].num_rows) + "}";
      }
      out += versions.empty() ? "]" : "\n  ]";
      out += ",\n  \"tags\": ";
      JsonWriter w(&out);
      w.BeginObject();
      for (const auto& [name, v] : tags) {
        w.Key(name);
        w.UInt(v);
      }
      w.EndObject();
    }
    out += ",\n  \"snapshots\": [";
  }

  bool first = true;
  for (uint64_t v : targets) {
    std::unique_ptr<table::Dataset> checked_out;
    const table::Dataset* ds = &dataset;
    if (v != dataset.version()) {
      auto r = dataset.Checkout(v);
      if (!r.ok()) return r.status().WithContext("checkout of version " + std::to_string(v));
      checked_out = r.MoveValue();
      ds = checked_out.get();
    }
    SnapshotWriter writer(*ds, options, sink);
    RETURN_IF_ERROR(writer.Write(v, first));
    RETURN_IF_ERROR(sink.MaybeFlush());
    first = false;
  }
  out += first ? "]\n}\n" : "\n  ]\n}\n";
  return Status::OK();
}

}  // namespace lancet::cli
