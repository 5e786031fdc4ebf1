// Helpers shared by the format tests: corpus discovery, the peer JSON value contract,
// and a builder of small Lance 2.x files in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lance_proto/encodings_v2_1.pb.h"
#include "lancet/array.h"
#include "lancet/format/file_reader.h"
#include "lancet/io/object_store.h"

namespace lancet::format::testing {

/// "/tmp/corpus" (or $LANCET_CORPUS_DIR) if it holds generated data, else "".
std::string CorpusDir();
/// Every data file (*.lance under <dataset>/data/) of every corpus dataset, sorted.
std::vector<std::string> CorpusDataFiles(const std::string& dataset = "");

/// Value i of `a` in the peer dump contract (tests/peer/README.md); values over 256
/// bytes become {"len": n} (no digest).
nlohmann::json ValueToJson(const Array& a, int64_t i);

/// Compares an expected contract value with ValueToJson output; on mismatch returns
/// false and describes it in *why. Blob cells ({"descriptor": ...}) are compared by
/// descriptor; digests by length.
bool JsonMatches(const nlohmann::json& expected, const nlohmann::json& actual, const DataType& type,
                 std::string* why);

/// Leaf column indices of each top-level field of `schema`, assuming the file's
/// columns are the schema's leaves in pre-order.
std::vector<std::vector<int>> LeafColumnsByField(const Schema& schema);

/// \brief Assembles a Lance file: 64-aligned page buffers, column metadata, a
/// FileDescriptor, offset tables and the footer.
class FileBuilder {
 public:
  struct Page {
    ::lance::encodings21::PageLayout layout;
    std::vector<std::string> buffers;
    uint64_t rows = 0;
  };
  /// `fields` is a flat Lance schema; columns must be added in leaf order.
  explicit FileBuilder(uint64_t num_rows) : num_rows_(num_rows) {}
  void AddField(const std::string& name, int id, int parent, const std::string& logical_type, bool nullable);
  void AddColumn(std::vector<Page> pages) { columns_.push_back(std::move(pages)); }
  std::string Finish(uint16_t major = 2, uint16_t minor = 2) const;

 private:
  uint64_t num_rows_;
  std::vector<std::vector<Page>> columns_;
  std::string schema_bytes_;  // serialized lance.file.Schema fields appended
  std::vector<std::string> fields_;
};

/// Little-endian bytes of `values`.
template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

/// A mini-block page of one chunk: values are the chunk's single value buffer,
/// rep/def raw u16 levels (Flat(16)) when non-empty.
FileBuilder::Page MiniBlockPage(const ::lance::encodings21::CompressiveEncoding& values_encoding,
                                const std::string& value_buffer, uint64_t num_values, uint64_t rows,
                                const std::vector<uint16_t>& rep, const std::vector<uint16_t>& def,
                                const std::vector<::lance::encodings21::RepDefLayer>& layers);

::lance::encodings21::CompressiveEncoding FlatEncoding(uint64_t bits);
::lance::encodings21::CompressiveEncoding VariableEncoding();

/// Stores `bytes` at `path` in a fresh memory store and opens it.
struct OpenedFile {
  std::shared_ptr<io::ObjectStore> store;
  std::unique_ptr<FileReader> reader;
};
Result<OpenedFile> OpenBytes(const std::string& bytes, const std::string& path = "mem/test.lance");

}  // namespace lancet::format::testing
