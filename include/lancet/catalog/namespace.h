// Lance Namespace: one interface over catalogs of Lance tables (a directory, a REST
// server), after the reference's lance-namespace (docs/namespace.md). Identifiers are
// lists of names from the root down; the root namespace is the empty list.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::catalog {

using Id = std::vector<std::string>;
using Properties = std::map<std::string, std::string>;

/// The spec's error codes (lance-namespace errors.md); the REST wire format carries them
/// as `{"code": N}` and the reference's client classifies errors by them alone.
enum class ErrorCode : int {
  kUnsupported = 0,
  kNamespaceNotFound = 1,
  kNamespaceAlreadyExists = 2,
  kNamespaceNotEmpty = 3,
  kTableNotFound = 4,
  kTableAlreadyExists = 5,
  kInvalidInput = 13,
  kConcurrentModification = 14,
  kPermissionDenied = 15,
  kUnauthenticated = 16,
  kServiceUnavailable = 17,
  kInternal = 18,
};

/// A Status for `code` (NotFound / AlreadyExists / InvalidArgument / NotSupported / ...
/// as fits) that ErrorCodeOf maps back to `code`.
Status NamespaceError(ErrorCode code, std::string message);
/// The spec code of a Status a namespace returned (kInternal for ones it did not make).
ErrorCode ErrorCodeOf(const Status& status);

enum class CreateMode : uint8_t { kCreate, kExistOk, kOverwrite };
enum class DropMode : uint8_t { kFail, kSkip };
enum class DropBehavior : uint8_t { kRestrict, kCascade };

struct Page {
  std::vector<std::string> names;  // child names (last parts), ascending
  std::string next_token;          // empty: the end
};
struct PageRequest {
  std::string token;  // names after this one (the reference client sends the last name seen)
  std::optional<uint32_t> limit;
};

struct TableInfo {
  std::string location;  // the dataset's root: a local path or an s3:// URI
  Properties properties;
  bool only_declared = false;  // reserved by DeclareTable, no data written yet
};

/// \brief A catalog of namespaces and tables. Implementations are thread-safe.
class Namespace {
 public:
  virtual ~Namespace() = default;

  virtual Result<Page> ListNamespaces(const Id& parent, const PageRequest& page) = 0;
  virtual Result<Properties> CreateNamespace(const Id& id, CreateMode mode, const Properties& properties) = 0;
  virtual Result<Properties> DescribeNamespace(const Id& id) = 0;
  virtual Status DropNamespace(const Id& id, DropMode mode, DropBehavior behavior) = 0;
  virtual Status NamespaceExists(const Id& id) = 0;

  virtual Result<Page> ListTables(const Id& parent, const PageRequest& page) = 0;
  /// Reserves `id` and returns where its data goes (the client writes it there).
  virtual Result<TableInfo> DeclareTable(const Id& id, const Properties& properties) = 0;
  virtual Result<TableInfo> DescribeTable(const Id& id) = 0;
  virtual Status TableExists(const Id& id) = 0;
  /// Removes the table and deletes its data (what the reference client relies on).
  virtual Result<TableInfo> DropTable(const Id& id) = 0;
  /// Adds an existing dataset at `location` under `id`; its data is not touched.
  virtual Result<TableInfo> RegisterTable(const Id& id, const std::string& location, const Properties& properties) = 0;
  /// Removes `id` from the catalog, keeping its data.
  virtual Result<TableInfo> DeregisterTable(const Id& id) = 0;
  virtual Status RenameTable(const Id& id, const Id& new_namespace, const std::string& new_name) = 0;
};

/// Opens a namespace from a URI: a directory (or `file://`, `s3://` root) is a directory
/// namespace; `http://` / `https://` a REST namespace client. `properties` are the
/// implementation's (dir: manifest_enabled, dir_listing_enabled, storage.*; rest:
/// delimiter, headers.*).
Result<std::unique_ptr<Namespace>> OpenNamespace(const std::string& uri, const Properties& properties = {});

/// "ns1$ns2$t" for {"ns1","ns2","t"} with delimiter "$"; the root is "".
std::string JoinId(const Id& id, const std::string& delimiter = "$");
/// The inverse of JoinId; the root ("" or the delimiter itself) is the empty list.
Id SplitId(const std::string& text, const std::string& delimiter = "$");

}  // namespace lancet::catalog
