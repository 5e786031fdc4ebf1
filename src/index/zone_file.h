// Reading and writing the one-row-per-zone Lance files of ZoneMap and BloomFilter.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/zone_cutter.h"
#include "lancet/array.h"
#include "lancet/format/file_reader.h"
#include "lancet/io/object_store.h"

namespace lancet::index {

/// \brief A zone file's schema and rows, loaded whole (zone files are small).
class ZoneFile {
 public:
  /// Opens `path`; `what` names the index in errors ("ZoneMapIndex"). NotFound when
  /// absent, Corruption naming the path when it is not a readable Lance file.
  static Result<ZoneFile> Open(const io::ObjectStore& store, const std::string& path, std::string what);

  uint64_t num_rows() const { return reader_->num_rows(); }

  /// All rows of column `name`, which must have type `type` and, unless `nullable`, no
  /// nulls. Corruption naming the file and the column otherwise.
  Result<Array> Column(const std::string& name, const DataType& type, bool nullable) const;
  /// The fragment_id, zone_start and zone_length columns; Corruption unless each zone
  /// is a non-empty span inside one fragment.
  Result<std::vector<ZoneBound>> Bounds() const;
  /// Corruption "<path>: <what>: <message>".
  Status Corrupt(const std::string& message) const;

 private:
  ZoneFile(std::string path, std::string what, std::unique_ptr<format::FileReader> reader)
      : path_(std::move(path)), what_(std::move(what)), reader_(std::move(reader)) {}
  std::string path_, what_;
  std::shared_ptr<format::FileReader> reader_;
};

/// Writes `columns` under `schema` (its metadata included) as the Lance file `path` and
/// returns the file's size.
Result<uint64_t> WriteZoneFile(std::shared_ptr<io::ObjectStore> store, const std::string& path, const Schema& schema,
                               std::vector<Array> columns);

/// `dir` + "/" + `name`, without doubling a trailing slash.
std::string JoinPath(const std::string& dir, const std::string& name);

}  // namespace lancet::index
