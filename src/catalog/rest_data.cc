#include "catalog/rest_data.h"

#include <nlohmann/json.hpp>

#include <memory>

#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/buffer.h"
#include "lancet/catalog/namespace.h"
#include "lancet/io/input_stream.h"
#include "lancet/scan/scanner.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"

namespace lancet::catalog::internal {
namespace {

using Json = nlohmann::json;

// A dataset that is not there is the spec's TableNotFound: the table may be only
// declared, or its data removed behind the catalog's back.
Result<std::shared_ptr<table::Dataset>> OpenAt(const std::string& location, std::optional<uint64_t> version) {
  table::OpenOptions options;
  options.version = version;
  auto ds = table::Dataset::Open(location, options);
  if (!ds.ok()) {
    if (ds.status().IsNotFound()) return NamespaceError(ErrorCode::kTableNotFound, ds.status().message());
    return ds.status();
  }
  return std::shared_ptr<table::Dataset>(std::move(*ds));
}

// Filter and column errors are the caller's: InvalidInput, not Internal.
Status AsInput(const Status& st) {
  if (st.IsInvalidArgument() || st.IsNotFound()) return NamespaceError(ErrorCode::kInvalidInput, st.message());
  return st;
}

Json TypeJson(const DataType& type) {
  Json out = Json::object();
  const auto children = [&] {
    Json fields = Json::array();
    for (const Field& child : type.children) {
      fields.push_back(Json{{"name", child.name}, {"type", TypeJson(child.type)}, {"nullable", child.nullable}});
    }
    return fields;
  };
  switch (type.id) {
    case TypeId::kList:
      out["type"] = "list";
      out["fields"] = children();
      break;
    case TypeId::kLargeList:
      out["type"] = "large_list";
      out["fields"] = children();
      break;
    case TypeId::kFixedSizeList:
      out["type"] = "fixed_size_list";
      out["fields"] = children();
      out["length"] = type.list_size;
      break;
    case TypeId::kStruct:
      out["type"] = "struct";
      out["fields"] = children();
      break;
    case TypeId::kMap:
      out["type"] = "map";
      out["fields"] = children();
      break;
    case TypeId::kFixedSizeBinary:
      out["type"] = "fixed_size_binary";
      out["length"] = type.byte_width;
      break;
    default:
      out["type"] = type.ToString();
  }
  return out;
}

}  // namespace

Result<uint64_t> CountTableRows(const std::string& location, std::optional<uint64_t> version,
                                const std::string& predicate) {
  ASSIGN_OR_RETURN(auto ds, OpenAt(location, version));
  if (predicate.empty()) return ds->CountRows();
  table::ScanOptions scan;
  scan.columns = {"_rowaddr"};
  scan.filter = predicate;
  auto reader = scan::NewScan(*ds, scan);
  if (!reader.ok()) return AsInput(reader.status());
  uint64_t rows = 0;
  while (true) {
    ASSIGN_OR_RETURN(auto batch, (*reader)->Next());
    if (!batch) break;
    rows += static_cast<uint64_t>(batch->num_rows);
  }
  return rows;
}

Result<ResultStream> QueryTable(const std::string& location, const TableQuery& query) {
  ASSIGN_OR_RETURN(auto ds, OpenAt(location, query.version));
  table::ScanOptions scan;
  scan.columns = query.columns;
  scan.filter = query.filter;
  scan.limit = query.limit;
  scan.offset = query.offset;
  scan.with_row_id = query.with_row_id;
  // Bounded batches keep one batch's encoding small whatever the rows hold.
  scan.batch_size = 8192;
  scan.batch_bytes = 8 << 20;
  auto opened = scan::NewScan(*ds, scan);
  if (!opened.ok()) return AsInput(opened.status());
  std::shared_ptr<RecordBatchReader> reader = std::move(*opened);
  // The dataset travels with the reader: the scan reads it until the stream ends.
  return ResultStream([ds, reader](const ChunkWriter& write) -> bool {
    auto sink = [&write](std::span<const uint8_t> bytes) {
      return write(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
                 ? Status::OK()
                 : Status::IOError("the client went away");
    };
    auto writer = format::IpcBatchWriter::Open(sink, reader->schema());
    if (!writer.ok()) return false;
    while (true) {
      auto batch = reader->Next();
      if (!batch.ok()) return false;  // the stream breaks off: the client sees a truncated stream
      if (!*batch) break;
      if (!(*writer)->Write(**batch).ok()) return false;
    }
    return (*writer)->Finish().ok();
  });
}

Result<InsertResult> InsertIntoTable(const std::string& location, std::unique_ptr<io::InputStream> ipc,
                                     bool overwrite) {
  auto reader = format::OpenIpcStreamReader(std::move(ipc));
  if (!reader.ok())
    return NamespaceError(ErrorCode::kInvalidInput,
                          "the body is not an Arrow IPC stream: " + reader.status().message());
  // Counts the rows as the writer pulls them.
  class Counting : public RecordBatchReader {
   public:
    explicit Counting(RecordBatchReader& in) : in_(in) {}
    const Schema& schema() const override { return in_.schema(); }
    Result<std::optional<RecordBatch>> Next() override {
      auto b = in_.Next();
      if (b.ok() && *b) rows += static_cast<uint64_t>((*b)->num_rows);
      return b;
    }
    uint64_t rows = 0;

   private:
    RecordBatchReader& in_;
  } counting(**reader);
  table::WriteParams params;
  params.mode = overwrite ? table::WriteMode::kOverwrite : table::WriteMode::kAppend;
  auto version = table::WriteDataset(location, counting, params);
  if (!version.ok()) {
    const Status& st = version.status();
    if (st.IsInvalidArgument() || st.IsCorruption() || st.IsNotSupported()) {
      return NamespaceError(ErrorCode::kInvalidInput, st.message());
    }
    return st;
  }
  return InsertResult{counting.rows, *version};
}

Result<std::pair<uint64_t, std::string>> DescribeTableData(const std::string& location) {
  ASSIGN_OR_RETURN(auto ds, OpenAt(location, std::nullopt));
  Json fields = Json::array();
  for (const Field& f : ds->schema().fields) {
    fields.push_back(Json{{"name", f.name}, {"type", TypeJson(f.type)}, {"nullable", f.nullable}});
  }
  Json schema{{"fields", fields}};
  return std::make_pair(ds->version(), schema.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace lancet::catalog::internal
