// The REST namespace client: a catalog::Namespace over a server speaking the Lance REST
// namespace protocol (`lancet serve`, or any implementation of the spec), plus the
// spec's table data routes for callers without access to the table's storage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lancet/catalog/namespace.h"
#include "lancet/record_batch_reader.h"
#include "lancet/result.h"

namespace lancet::catalog {

struct TableQuery {
  std::optional<uint64_t> version;   // default: the latest
  std::string filter;                // the scan filter language; empty: all rows
  std::vector<std::string> columns;  // empty: all
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
  bool with_row_id = false;
};

struct InsertResult {
  uint64_t rows = 0;
  uint64_t version = 0;  // the table's version after the insert
};

struct RestNamespaceOptions {
  /// Joins id parts in request paths; names holding it are refused.
  std::string delimiter = "$";
  /// Sent with every request, e.g. {"x-api-key", token} or {"Authorization", "Bearer …"}.
  std::vector<std::pair<std::string, std::string>> headers;
  long connect_timeout_ms = 5000;
  /// Bound on one catalog call; data routes are bounded by a stall timeout instead.
  long request_timeout_ms = 60000;
  /// A PEM bundle to verify an https server against instead of the system's (a server
  /// with a private CA or a self-signed certificate).
  std::string ca_file;
};

/// \brief Thread-safe: calls share a pool of connections.
class RestNamespace : public Namespace {
 public:
  /// `uri`: http(s)://host:port[/base]. No request is made until the first call.
  static Result<std::unique_ptr<RestNamespace>> Open(const std::string& uri, RestNamespaceOptions options);
  /// Options from OpenNamespace properties: `delimiter`, `headers.<Name>`,
  /// `connect_timeout_ms`, `request_timeout_ms`, `tls.ca_file`.
  static Result<RestNamespaceOptions> OptionsFromProperties(const Properties& properties);
  ~RestNamespace() override;

  Result<Page> ListNamespaces(const Id& parent, const PageRequest& page) override;
  Result<Properties> CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) override;
  Result<Properties> DescribeNamespace(const Id& id) override;
  Status DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) override;
  Status NamespaceExists(const Id& id) override;

  Result<Page> ListTables(const Id& parent, const PageRequest& page) override;
  Result<TableInfo> DeclareTable(const Id& id, const Properties& properties) override;
  Result<TableInfo> DescribeTable(const Id& id) override;
  Status TableExists(const Id& id) override;
  Result<TableInfo> DropTable(const Id& id) override;
  Result<TableInfo> RegisterTable(const Id& id, const std::string& location, const Properties& properties) override;
  Result<TableInfo> DeregisterTable(const Id& id) override;
  Status RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) override;

  /// Rows of the table (those `filter` keeps), counted by the server.
  Result<uint64_t> CountRows(const Id& id, const std::string& filter = "",
                             std::optional<uint64_t> version = std::nullopt);
  /// The query's rows, decoded from the server's Arrow IPC stream as they arrive (a few
  /// MiB buffered, never the whole answer). A stream the server breaks off is an error
  /// from Next, never a short result.
  Result<std::unique_ptr<RecordBatchReader>> Query(const Id& id, const TableQuery& query);
  /// Sends `rows` as an Arrow IPC stream, encoded batch by batch while it is uploaded.
  Result<InsertResult> Insert(const Id& id, RecordBatchReader& rows, bool overwrite = false);

 private:
  struct Impl;
  explicit RestNamespace(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lancet::catalog
