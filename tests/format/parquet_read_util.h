// Hand-built Parquet bytes for the reader's tests: a minimal Thrift compact encoder and a
// file assembler, independent of the library's own writer so each side checks the other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet_metadata.h"

namespace lancet::format::parquet::testing {

/// \brief Thrift compact protocol output, one struct at a time.
class CompactWriter {
 public:
  void I32(int16_t id, int32_t v);
  void I64(int16_t id, int64_t v);
  void Byte(int16_t id, int8_t v);
  void Bool(int16_t id, bool v);
  void Binary(int16_t id, const std::string& v);
  void BeginStruct(int16_t id);
  void EndStruct();  // writes the stop byte and returns to the enclosing struct
  /// A list of n elements of compact type `elem` (5 i32, 8 binary, 12 struct).
  void BeginList(int16_t id, uint8_t elem, uint32_t n);
  void ListI32(int32_t v);
  void ListBinary(const std::string& v);
  void BeginListStruct();  // an element struct; close with EndStruct
  std::string Finish();    // closes the outermost struct
  void Varint(uint64_t v);
  void Raw(const std::string& bytes) { out_ += bytes; }

 private:
  void Header(int16_t id, uint8_t type);
  std::string out_;
  std::vector<int16_t> last_{0};
};

/// A leaf SchemaElement (type set) or group (num_children set).
struct Element {
  std::string name;
  int type = -1;  // PhysicalType, -1 for a group
  int repetition = 1;
  int num_children = -1;
  int converted = -1;
  int type_length = -1;
  int field_id = -1;
  int scale = -1, precision = -1;
  /// LogicalType union member id (0: none) and, for INTEGER/TIMESTAMP/TIME/DECIMAL, args.
  int logical = 0;
  int logical_a = 0, logical_b = 0;
};

struct Page {
  std::string header;  // a PageHeader
  std::string body;
};

/// PageHeader bytes for a v1 data page over `body` (uncompressed).
std::string DataPageV1Header(size_t body_size, int32_t num_values, Encoding encoding);
std::string DictionaryPageHeader(size_t body_size, int32_t num_values);
std::string DataPageV2Header(size_t body_size, int32_t num_values, int32_t num_nulls, int32_t num_rows,
                             Encoding encoding, int32_t def_len, int32_t rep_len);

struct Chunk {
  std::vector<std::string> path;
  PhysicalType type = PhysicalType::kInt32;
  int64_t num_values = 0;
  std::string pages;  // headers and bodies, concatenated
};

struct Group {
  int64_t num_rows = 0;
  std::vector<Chunk> chunks;
};

/// A whole file: magic, the chunks of each group, the footer.
std::string BuildFile(const std::vector<Element>& schema, const std::vector<Group>& groups,
                      const std::vector<std::pair<std::string, std::string>>& kv = {});

/// Level bytes: RLE runs of single values (v1 pages prefix the u32 length).
std::string RleLevels(const std::vector<int>& levels, int bit_width, bool length_prefix);
std::string PlainInt32(const std::vector<int32_t>& v);
std::string PlainInt64(const std::vector<int64_t>& v);
std::string PlainStrings(const std::vector<std::string>& v);
/// Standard base64 (with padding), as ARROW:schema is stored.
std::string Base64(const std::string& bytes);
/// DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks.
std::string DeltaBinaryPacked(const std::vector<int64_t>& values);

}  // namespace lancet::format::parquet::testing
