// blob_interop_write OUT_DIR: Blob V2 datasets written by Lancet for the reference to
// read (tests/interop/blob_interop.sh).
//
// Writes OUT_DIR/data/<name>.lance and, for each, OUT_DIR/expected/<name>.json (the
// peer's lance-peer-dump/1 contract: schema, descriptor kind and size, payload length
// and sha256 per row, for `check.mjs --blob kind`) and OUT_DIR/layout/<name>.json (per
// stored value: the kind, the pack it shares, its position and, for external blobs,
// blob_id and blob_uri). Placement follows the reference's documented rules
// (lance-format-notes.md §10.1): size <= inline → inline, <= dedicated →
// packed, else dedicated; a new pack when the current one would pass the pack
// threshold. Source files for external and copied blobs go to OUT_DIR/external.
// Exit 0 on success, 2 on an error (message on stderr), 64 for bad usage.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lancet/table/blob_write.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"
#include "util/sha256.h"

namespace fs = std::filesystem;
using namespace lancet;
using lancet::table::BlobThresholds;
using Json = nlohmann::ordered_json;

namespace {

[[noreturn]] void Die(const std::string& msg) {
  std::cerr << "blob_interop_write: " << msg << "\n";
  std::exit(2);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(*r);
}

uint32_t Fnv1a32(const std::string& s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) h = (h ^ c) * 0x01000193u;
  return h;
}

// The peer's payload recipe (tests/peer/README.md) with seed 7.
std::string Payload(const std::string& label, uint64_t n) {
  uint32_t a = Fnv1a32("7:" + label);
  std::string out(n, '\0');
  for (uint64_t i = 0; i < n; i += 4) {
    a += 0x6D2B79F5u;
    uint32_t t = a;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    t ^= t >> 14;
    for (uint64_t k = 0; k < 4 && i + k < n; ++k) out[i + k] = static_cast<char>(t >> (8 * k));
  }
  return out;
}

constexpr uint64_t kMiB = 1024 * 1024;
const char* const kKindNames[] = {"inline", "packed", "dedicated", "external"};

/// One input value of a blob column and what the reference must read back.
struct BlobValue {
  enum class Source { kNull, kData, kUri } source = Source::kNull;
  std::string data;                  // kData: the payload
  std::string uri;                   // kUri
  std::optional<uint64_t> pos, len;  // kUri with the 4-child input
  std::string expect;                // the bytes fetchBlobs must return
  // Expected descriptor, filled by Placer (or by the caller for external values).
  int kind = 0;
  uint64_t size = 0;
  std::string pack;  // packed: its pack; dedicated: its own label
  std::optional<uint64_t> position;
  std::optional<uint32_t> blob_id;
  std::optional<std::string> blob_uri;
};

BlobValue Null() { return {}; }
BlobValue Data(std::string bytes) {
  BlobValue v;
  v.source = BlobValue::Source::kData;
  v.data = bytes;
  v.expect = std::move(bytes);
  return v;
}
BlobValue Uri(std::string uri, std::string expect, std::optional<uint64_t> pos = std::nullopt,
              std::optional<uint64_t> len = std::nullopt) {
  BlobValue v;
  v.source = BlobValue::Source::kUri;
  v.uri = std::move(uri);
  v.pos = pos;
  v.len = len;
  v.expect = std::move(expect);
  return v;
}

/// \brief The reference's placement by size for one blob column of one data file.
class Placer {
 public:
  Placer(std::string prefix, BlobThresholds t) : prefix_(std::move(prefix)), t_(t) {}

  void Place(BlobValue* v) {
    uint64_t n = v->expect.size();
    v->size = n;
    if (n <= t_.inline_max) {
      v->kind = 0;
      v->blob_id = 0;
    } else if (n <= t_.dedicated_min) {
      v->kind = 1;
      if (pack_.empty() || pack_size_ + n > t_.pack_file_max) {
        pack_ = prefix_ + "/pack" + std::to_string(++packs_);
        pack_size_ = 0;
      }
      v->pack = pack_;
      v->position = pack_size_;
      pack_size_ += n;
    } else {
      v->kind = 2;
      v->pack = prefix_ + "/dedicated" + std::to_string(++dedicated_);
      v->position = 0;
    }
  }

 private:
  std::string prefix_;
  BlobThresholds t_;
  std::string pack_;
  uint64_t pack_size_ = 0;
  int packs_ = 0, dedicated_ = 0;
};

// Places the values of one column written in files of `rows_per_file` rows.
void PlaceColumn(const std::string& column, const BlobThresholds& t, uint64_t rows_per_file,
                 std::vector<BlobValue>* values) {
  std::optional<Placer> placer;
  for (size_t i = 0; i < values->size(); ++i) {
    if (i % rows_per_file == 0) placer.emplace(column + "/file" + std::to_string(i / rows_per_file), t);
    BlobValue& v = (*values)[i];
    if (v.source != BlobValue::Source::kNull) placer->Place(&v);
  }
}

/// An input column: struct<data, uri> or, with `ranges`, struct<data, uri, position, size>.
Field InputBlobField(const std::string& name, bool nullable, const std::optional<BlobThresholds>& t, bool ranges) {
  Field f = table::MakeBlobField(name, nullable, t);
  if (ranges) {
    f.type.children.push_back(MakeField("position", MakeType(TypeId::kUInt64)));
    f.type.children.push_back(MakeField("size", MakeType(TypeId::kUInt64)));
  }
  return f;
}

Array BlobArray(const Field& field, const std::vector<BlobValue>& values, const std::vector<bool>& parent_valid = {}) {
  std::vector<std::optional<std::string>> data, uris;
  std::vector<uint64_t> pos, len;
  std::vector<bool> valid, pos_valid, len_valid;
  for (size_t i = 0; i < values.size(); ++i) {
    const BlobValue& v = values[i];
    bool is_valid = v.source != BlobValue::Source::kNull && (parent_valid.empty() || parent_valid[i]);
    valid.push_back(is_valid);
    data.push_back(v.source == BlobValue::Source::kData ? std::optional<std::string>(v.data) : std::nullopt);
    uris.push_back(v.source == BlobValue::Source::kUri ? std::optional<std::string>(v.uri) : std::nullopt);
    pos.push_back(v.pos.value_or(0));
    len.push_back(v.len.value_or(0));
    pos_valid.push_back(v.pos.has_value());
    len_valid.push_back(v.len.has_value());
  }
  std::vector<Array> children = {Check(MakeBinaryArray(MakeType(TypeId::kLargeBinary), data), field.name + ".data"),
                                 Check(MakeBinaryArray(MakeType(TypeId::kUtf8), uris), field.name + ".uri")};
  if (field.type.children.size() == 4) {
    children.push_back(Check(ArrayFromVector(MakeType(TypeId::kUInt64), pos, pos_valid), "position"));
    children.push_back(Check(ArrayFromVector(MakeType(TypeId::kUInt64), len, len_valid), "size"));
  }
  bool all_valid = true;
  for (bool b : valid) all_valid = all_valid && b;
  return Check(MakeStructArray(field.type, static_cast<int64_t>(values.size()), children,
                               all_valid ? std::vector<bool>{} : valid),
               field.name);
}

Array Int64s(int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  return Check(ArrayFromVector(MakeType(TypeId::kInt64), ids), "id");
}

Json FieldJson(const Field& f) {
  Json j;
  j["name"] = f.name;
  j["type"] = TypeIdName(f.type.id);
  j["nullable"] = f.nullable;
  j["metadata"] = Json::object();
  for (const auto& [k, v] : f.metadata) j["metadata"][k] = v;
  if (!f.type.children.empty()) {
    j["children"] = Json::array();
    for (const Field& c : f.type.children) j["children"].push_back(FieldJson(c));
  }
  return j;
}

Json CellJson(const BlobValue& v) {
  if (v.source == BlobValue::Source::kNull) return nullptr;
  return {{"descriptor", {{"kind", v.kind}, {"size", std::to_string(v.size)}}},
          {"bytes", {{"len", v.expect.size()}, {"sha256", Sha256Hex(std::string_view(v.expect))}}}};
}

Json LayoutJson(int64_t id, const std::string& column, const BlobValue& v) {
  Json j = {{"id", id}, {"column", column}, {"kind", kKindNames[v.kind]}};
  if (!v.pack.empty()) j["pack"] = v.pack;
  if (v.position) j["position"] = std::to_string(*v.position);
  if (v.blob_id) j["blob_id"] = *v.blob_id;
  if (v.blob_uri) j["blob_uri"] = *v.blob_uri;
  return j;
}

/// One dataset: what to write and what the reference must read.
struct Case {
  std::string name;
  Schema schema;   // input schema
  Schema logical;  // the schema the reference reports
  std::vector<std::string> blob_columns;
  std::vector<RecordBatch> batches;
  table::WriteParams params;
  int64_t rows = 0;
  uint64_t fragments = 1;
  Json expected_rows = Json::array();
  Json layout = Json::array();
};

void WriteJson(const fs::path& path, const Json& j) {
  std::ofstream out(path);
  out << j.dump(1) << "\n";
  if (!out) Die(path.string() + ": cannot write");
}

void WriteCase(const fs::path& out, Case& c) {
  fs::path ds = out / "data" / (c.name + ".lance");
  uint64_t version = Check(table::WriteDataset(ds.string(), c.schema, c.batches, c.params), "write " + ds.string());
  Json snap;
  snap["version"] = version;
  snap["num_rows"] = c.rows;
  snap["num_fragments"] = c.fragments;
  Json fields = Json::array();
  for (const Field& f : c.logical.fields) fields.push_back(FieldJson(f));
  snap["schema"] = {{"fields", fields}, {"metadata", Json::object()}};
  snap["blob_columns"] = c.blob_columns;
  snap["rows"] = c.expected_rows;
  Json doc = {{"contract", "lance-peer-dump/1"}, {"dataset", c.name}, {"snapshots", Json::array({snap})}};
  WriteJson(out / "expected" / (c.name + ".json"), doc);
  WriteJson(out / "layout" / (c.name + ".json"), c.layout);
}

// A top-level blob column: its field, values placed, expected cells and layout added.
void AddBlobColumn(Case* c, const Field& input, std::vector<BlobValue> values, uint64_t rows_per_file,
                   const std::optional<BlobThresholds>& thresholds, std::vector<Json>* row_cells) {
  PlaceColumn(input.name, thresholds.value_or(BlobThresholds{}), rows_per_file, &values);
  c->schema.fields.push_back(input);
  c->logical.fields.push_back(table::MakeBlobField(input.name, input.nullable, thresholds));
  c->blob_columns.push_back(input.name);
  for (size_t i = 0; i < values.size(); ++i) {
    (*row_cells)[i][input.name] = CellJson(values[i]);
    if (values[i].source != BlobValue::Source::kNull) {
      c->layout.push_back(LayoutJson(static_cast<int64_t>(i), input.name, values[i]));
    }
  }
  c->batches[0].columns.push_back(BlobArray(input, values));
  c->batches[0].schema = c->schema;
}

Case NewCase(const std::string& name, int64_t rows, std::vector<Json>* cells) {
  Case c;
  c.name = name;
  c.rows = rows;
  Field id = MakeField("id", MakeType(TypeId::kInt64), false);
  c.schema.fields = {id};
  c.logical.fields = {id};
  c.batches.push_back(RecordBatch{c.schema, rows, {Int64s(rows)}});
  cells->assign(static_cast<size_t>(rows), Json::object());
  for (int64_t i = 0; i < rows; ++i) (*cells)[static_cast<size_t>(i)]["id"] = std::to_string(i);
  return c;
}

void Finish(Case* c, std::vector<Json>& cells) {
  for (Json& r : cells) c->expected_rows.push_back(std::move(r));
}

std::vector<BlobValue> DataValues(const std::string& label, const std::vector<std::optional<uint64_t>>& sizes) {
  std::vector<BlobValue> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(sizes[i] ? Data(Payload(label + "/" + std::to_string(i), *sizes[i])) : Null());
  }
  return out;
}

// Default thresholds: at and +-1 of inline (64 KiB) and dedicated (4 MiB), in two
// data files of 8 rows (blob ids and packs start over in the second).
Case DefaultKinds() {
  std::vector<Json> cells;
  std::vector<std::optional<uint64_t>> sizes = {
      0,        13,           65535,        65536, 65537,        std::nullopt, kMiB + 123, 4 * kMiB - 1,
      4 * kMiB, 4 * kMiB + 1, 6 * kMiB + 7, 100,   std::nullopt, 70000,        300000,     0};
  Case c = NewCase("default_kinds", static_cast<int64_t>(sizes.size()), &cells);
  c.params.max_rows_per_file = 8;
  c.fragments = 2;
  AddBlobColumn(&c, InputBlobField("blob", true, std::nullopt, false), DataValues("default/blob", sizes), 8,
                std::nullopt, &cells);
  Finish(&c, cells);
  return c;
}

// Thresholds from field metadata: `img` inline 100 / dedicated 1000 / pack 2000 with a
// pack filled to exactly 2000 and packs rolling over at 2000 + 1; non-nullable `doc`
// inline 0 / dedicated 64 / pack 256 in the same data file (one id counter).
Case CustomThresholds() {
  std::vector<Json> cells;
  std::vector<std::optional<uint64_t>> img = {99, 100, 101, 999, 900, 1000, 1001, 500, 501, std::nullopt, 0, 2000};
  std::vector<std::optional<uint64_t>> doc = {0, 1, 64, 65, 63, 100, 64, 64, 64, 0, 200, 10};
  Case c = NewCase("custom_thresholds", static_cast<int64_t>(img.size()), &cells);
  BlobThresholds ti{100, 1000, 2000}, td{0, 64, 256};
  AddBlobColumn(&c, InputBlobField("img", true, ti, false), DataValues("custom/img", img), 1000, ti, &cells);
  AddBlobColumn(&c, InputBlobField("doc", false, td, false), DataValues("custom/doc", doc), 1000, td, &cells);
  Finish(&c, cells);
  return c;
}

// A blob inside a struct (null parents, null and empty blobs) next to a top-level one.
Case NestedBlob() {
  std::vector<Json> cells;
  std::vector<std::optional<uint64_t>> img = {0, 10, std::nullopt, std::nullopt, 64, 65, 100000, 100001};
  std::vector<bool> s_valid = {true, true, false, true, true, true, true, true};
  std::vector<std::optional<std::string>> tags = {"t0", "t1", std::nullopt, "t3", "t4", "t5", std::nullopt, "t7"};
  std::vector<std::optional<uint64_t>> thumb = {0, 13, std::nullopt, 70000, 5 * kMiB, 65536, 10, std::nullopt};
  Case c = NewCase("nested_blob", static_cast<int64_t>(img.size()), &cells);
  BlobThresholds ti{64, 100000, 1ULL << 30};
  Field img_field = InputBlobField("img", true, ti, false);
  std::vector<BlobValue> imgs = DataValues("nested/img", img);
  PlaceColumn("s.img", ti, 1000, &imgs);
  Field s = MakeField("s", StructOf({MakeField("tag", MakeType(TypeId::kUtf8)), img_field}));
  Field s_logical =
      MakeField("s", StructOf({MakeField("tag", MakeType(TypeId::kUtf8)), table::MakeBlobField("img", true, ti)}));
  c.schema.fields.push_back(s);
  c.logical.fields.push_back(s_logical);
  c.blob_columns.push_back("s.img");
  Array s_array =
      Check(MakeStructArray(s.type, c.rows, {StringArray(tags), BlobArray(img_field, imgs, s_valid)}, s_valid), "s");
  c.batches[0].columns.push_back(s_array);
  c.batches[0].schema = c.schema;
  for (size_t i = 0; i < img.size(); ++i) {
    if (!s_valid[i]) {
      cells[i]["s"] = nullptr;
      continue;
    }
    cells[i]["s"] = {{"tag", tags[i] ? Json(*tags[i]) : Json(nullptr)}, {"img", CellJson(imgs[i])}};
    if (imgs[i].source != BlobValue::Source::kNull) c.layout.push_back(LayoutJson(int64_t(i), "s.img", imgs[i]));
  }
  AddBlobColumn(&c, InputBlobField("thumb", true, std::nullopt, false), DataValues("nested/thumb", thumb), 1000,
                std::nullopt, &cells);
  Finish(&c, cells);
  return c;
}

// Plain binary columns declared blob through BlobWriteOptions::binary_as_blob.
Case BinaryAsBlob() {
  std::vector<Json> cells;
  std::vector<std::optional<uint64_t>> payload = {0, 100, 101, 1000, 1001, std::nullopt};
  std::vector<std::optional<uint64_t>> bin = {5, 65536, 65537, std::nullopt, 4 * kMiB + 1, 0};
  Case c = NewCase("binary_as_blob", static_cast<int64_t>(payload.size()), &cells);
  BlobThresholds tp{100, 1000, 2000};
  c.params.blobs.binary_as_blob = {{"payload", tp}, {"bin", BlobThresholds{}}};
  struct Col {
    std::string name;
    TypeId type;
    std::vector<std::optional<uint64_t>> sizes;
    BlobThresholds t;
  };
  for (const Col& col : {Col{"payload", TypeId::kLargeBinary, payload, tp}, Col{"bin", TypeId::kBinary, bin, {}}}) {
    std::vector<BlobValue> values = DataValues("binary/" + col.name, col.sizes);
    PlaceColumn(col.name, col.t, 1000, &values);
    std::vector<std::optional<std::string>> raw;
    for (const BlobValue& v : values)
      raw.push_back(v.source == BlobValue::Source::kNull ? std::nullopt : std::optional(v.data));
    c.schema.fields.push_back(MakeField(col.name, MakeType(col.type)));
    c.logical.fields.push_back(table::MakeBlobField(col.name, true, col.t));
    c.blob_columns.push_back(col.name);
    c.batches[0].columns.push_back(Check(MakeBinaryArray(MakeType(col.type), raw), col.name));
    for (size_t i = 0; i < values.size(); ++i) {
      cells[i][col.name] = CellJson(values[i]);
      if (values[i].source != BlobValue::Source::kNull) c.layout.push_back(LayoutJson(int64_t(i), col.name, values[i]));
    }
  }
  c.batches[0].schema = c.schema;
  Finish(&c, cells);
  return c;
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) Die(path.string() + ": cannot write");
}

// External references (kind 3): absolute URIs outside every base (blob_id 0, the URI
// as given) and paths under a registered base (blob_id 1, path relative to it), whole
// objects (size 0) and ranges, next to an inline value and a null.
Case External(const fs::path& out) {
  fs::path base = out / "external" / "base";
  std::string outside = Payload("external/outside", 1000), a = Payload("external/a", 300),
              b = Payload("external/b", 5000);
  WriteFile(out / "external" / "outside.bin", outside);
  WriteFile(base / "a.bin", a);
  WriteFile(base / "sub" / "b.bin", b);
  std::string outside_path = (out / "external" / "outside.bin").string();
  std::vector<BlobValue> values = {
      Uri("file://" + outside_path, outside, 0, 0),
      Uri(outside_path, outside.substr(10, 20), 10, 20),
      Uri((base / "a.bin").string(), a),
      Uri("file://" + (base / "sub" / "b.bin").string(), b.substr(100, 1000), 100, 1000),
      Null(),
      Data(Payload("external/inline", 50)),
  };
  const std::vector<std::pair<uint32_t, std::string>> ids = {
      {0, "file://" + outside_path}, {0, outside_path}, {1, "a.bin"}, {1, "sub/b.bin"}};
  const std::vector<std::pair<uint64_t, uint64_t>> ranges = {{0, 0}, {10, 20}, {0, 0}, {100, 1000}};
  for (size_t i = 0; i < ids.size(); ++i) {
    values[i].kind = 3;
    values[i].size = ranges[i].second;
    values[i].position = ranges[i].first;
    values[i].blob_id = ids[i].first;
    values[i].blob_uri = ids[i].second;
  }
  values[5].kind = 0;
  values[5].size = 50;
  values[5].blob_id = 0;
  std::vector<Json> cells;
  Case c = NewCase("external", static_cast<int64_t>(values.size()), &cells);
  c.params.blobs.external_bases = {base.string()};
  c.params.blobs.allow_external_outside_bases = true;
  Field f = InputBlobField("ext", true, std::nullopt, true);
  c.schema.fields.push_back(f);
  c.logical.fields.push_back(table::MakeBlobField("ext", true));
  c.blob_columns.push_back("ext");
  for (size_t i = 0; i < values.size(); ++i) {
    cells[i]["ext"] = CellJson(values[i]);
    if (values[i].source != BlobValue::Source::kNull) c.layout.push_back(LayoutJson(int64_t(i), "ext", values[i]));
  }
  c.batches[0].columns.push_back(BlobArray(f, values));
  c.batches[0].schema = c.schema;
  Finish(&c, cells);
  return c;
}

// BlobUriMode::kCopy: local files (whole, or a range with the 4-child input) stored
// like data values, placed by their size.
Case Copied(const fs::path& out) {
  fs::path dir = out / "external" / "copy";
  std::string small = Payload("copy/small", 10), pack = Payload("copy/pack", 70000),
              big = Payload("copy/big", 5 * kMiB + 3);
  WriteFile(dir / "small.bin", small);
  WriteFile(dir / "pack.bin", pack);
  WriteFile(dir / "big.bin", big);
  WriteFile(dir / "empty.bin", "");
  std::vector<BlobValue> values = {
      Uri((dir / "small.bin").string(), small),
      Uri("file://" + (dir / "pack.bin").string(), pack),
      Uri((dir / "big.bin").string(), big),
      Data(Payload("copy/data", 20)),
      Uri((dir / "empty.bin").string(), ""),
      Null(),
      Uri((dir / "big.bin").string(), big.substr(1000, 70000), 1000, 70000),
      Uri((dir / "big.bin").string(), big.substr(kMiB), kMiB, 0),
  };
  std::vector<Json> cells;
  Case c = NewCase("copied", static_cast<int64_t>(values.size()), &cells);
  c.params.blobs.uri_mode = table::BlobUriMode::kCopy;
  AddBlobColumn(&c, InputBlobField("doc", true, std::nullopt, true), values, 1000, std::nullopt, &cells);
  Finish(&c, cells);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: blob_interop_write OUT_DIR\n";
    return 64;
  }
  fs::path out = fs::absolute(argv[1]);
  std::error_code ec;
  for (const char* sub : {"data", "expected", "layout", "external"}) {
    fs::remove_all(out / sub, ec);
    fs::create_directories(out / sub, ec);
    if (ec) Die((out / sub).string() + ": " + ec.message());
  }
  std::vector<Case> cases;
  cases.push_back(DefaultKinds());
  cases.push_back(CustomThresholds());
  cases.push_back(NestedBlob());
  cases.push_back(BinaryAsBlob());
  cases.push_back(External(out));
  cases.push_back(Copied(out));
  for (Case& c : cases) {
    WriteCase(out, c);
    std::cout << c.name << ": " << c.rows << " rows\n";
  }
  return 0;
}
