// The Iceberg REST Catalog's read routes (apache/iceberg open-api rest-catalog spec; notes:
// shared iceberg-notes §3) over the same catalog the Lance routes serve: config, list and
// load namespaces, list tables, load a table. A table whose directory holds an Iceberg
// table (metadata/version-hint.text) loads as itself; a Lance table loads the way Lance
// catalogs list one next to Iceberg tables: a dummy one-column schema, no snapshots,
// property table_type=lance and its root as location.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "lancet/catalog/namespace.h"
#include "lancet/catalog/rest_router.h"

namespace lancet::catalog::internal {

/// The prefix the config route hands out (`/v1/iceberg/namespaces/...`); routes without
/// one are answered too.
inline constexpr std::string_view kIcebergPrefix = "iceberg";

/// True for /v1/config and /v1[/iceberg]/namespaces[/...] (the Lance routes use the
/// singular /v1/namespace and /v1/table, so the two never meet).
bool IsIcebergRoute(std::string_view raw_path);

/// The table's directory on this machine, once checked to lie inside the served root.
using LocalTableDir = std::function<Result<std::string>(const TableInfo&)>;

/// Answers an Iceberg route (after the router's authentication), with the spec's error
/// body {"error": {"message", "type", "code"}}.
RestResponse HandleIcebergRoute(Namespace& ns, const RestRequest& request, const LocalTableDir& local_dir);

}  // namespace lancet::catalog::internal
