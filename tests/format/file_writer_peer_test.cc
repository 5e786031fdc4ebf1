// The reference reads what FileWriter writes: a one-fragment dataset is assembled by
// hand (docs/format §13.4 minimal manifest) and dumped with the peer harness
// (tests/peer/dump.mjs, lance 12). Skipped when node or the peer is not installed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "format/lance_schema.h"
#include "lance_proto/table.pb.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/sha256.h"
#include "common/peer.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string PeerDir() { return lancet::testing::PeerInstallDir(); }

std::string DumpScript() { return lancet::testing::PeerHarnessDir() + "/dump.mjs"; }

bool PeerAvailable() {
  if (std::system("node --version > /dev/null 2>&1") != 0) return false;
  return fs::exists(PeerDir() + "/node_modules") && fs::exists(DumpScript());
}

// Runs the peer's dump and returns its stdout, or an error with its stderr.
Result<std::string> RunDump(const std::string& dir) {
  const std::string err = dir + ".stderr";
  const std::string cmd = "LANCE_PEER_DIR='" + PeerDir() + "' node '" + DumpScript() + "' '" + dir +
                          "' --no-history 2>'" + err + "'";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return Status::IOError("cannot run " + cmd);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0) {
    std::ifstream in(err);
    std::string msg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return Status::IOError("dump.mjs failed (" + std::to_string(rc) + "): " + msg);
  }
  return out;
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

json Bytes(std::string_view bytes, bool as_string) {
  // The dump digests payloads over 256 bytes (peer lib/encode.mjs DIGEST_THRESHOLD).
  if (bytes.size() > 256) {
    return json{{"len", bytes.size()},
                {"sha256", Sha256Hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                              bytes.size()))}};
  }
  return as_string ? json(std::string(bytes)) : json(Hex(bytes));
}

json Float(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0 && std::signbit(x)) return "-0";
  return x;
}

double HalfToDouble(uint16_t h) {
  const double s = (h & 0x8000) ? -1 : 1;
  const int e = (h >> 10) & 0x1f;
  const int f = h & 0x3ff;
  if (e == 0) return s * f * std::ldexp(1.0, -24);
  if (e == 31) return f ? NAN : s * INFINITY;
  return s * (1 + f / 1024.0) * std::ldexp(1.0, e - 15);
}

// The peer's JSON for cell i of `a` (the "Values" rules of tests/peer/README.md).
json Cell(const Array& a, int64_t i) {
  if (a.type.id == TypeId::kNull || a.IsNull(i)) return nullptr;
  const int64_t j = a.offset + i;
  const uint8_t* v = a.buffers.size() > 1 && a.buffers[1] ? a.buffers[1]->data() : nullptr;
  auto i64 = [&](int64_t x) { return json(std::to_string(x)); };
  switch (a.type.id) {
    case TypeId::kBool: return a.GetBool(i);
    case TypeId::kInt8: return reinterpret_cast<const int8_t*>(v)[j];
    case TypeId::kInt16: return reinterpret_cast<const int16_t*>(v)[j];
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32: return reinterpret_cast<const int32_t*>(v)[j];
    case TypeId::kUInt8: return reinterpret_cast<const uint8_t*>(v)[j];
    case TypeId::kUInt16: return reinterpret_cast<const uint16_t*>(v)[j];
    case TypeId::kUInt32: return reinterpret_cast<const uint32_t*>(v)[j];
    case TypeId::kInt64: case TypeId::kDate64: case TypeId::kTime64: case TypeId::kTimestamp: case TypeId::kDuration:
      return i64(reinterpret_cast<const int64_t*>(v)[j]);
    case TypeId::kUInt64: return std::to_string(reinterpret_cast<const uint64_t*>(v)[j]);
    case TypeId::kFloat16: return Float(HalfToDouble(reinterpret_cast<const uint16_t*>(v)[j]));
    case TypeId::kFloat32: return Float(reinterpret_cast<const float*>(v)[j]);
    case TypeId::kFloat64: return Float(reinterpret_cast<const double*>(v)[j]);
    case TypeId::kUtf8: case TypeId::kLargeUtf8: return Bytes(a.GetView(i), true);
    case TypeId::kBinary: case TypeId::kLargeBinary: return Bytes(a.GetView(i), false);
    case TypeId::kFixedSizeBinary:
      return Bytes(std::string_view(reinterpret_cast<const char*>(v) + j * a.type.byte_width, a.type.byte_width), false);
    case TypeId::kDecimal128: {
      __int128 x;
      std::memcpy(&x, v + j * 16, 16);
      const bool neg = x < 0;
      unsigned __int128 u = neg ? -static_cast<unsigned __int128>(x) : x;
      std::string s;
      do {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
      } while (u != 0);
      return (neg ? "-" : "") + s;
    }
    case TypeId::kList: case TypeId::kLargeList: case TypeId::kMap: {
      json out = json::array();
      auto [b, e] = a.ListRange(i);
      for (int64_t k = b; k < e; ++k) out.push_back(Cell(a.children[0], k));
      return out;
    }
    case TypeId::kFixedSizeList: {
      json out = json::array();
      const int64_t n = a.type.list_size;
      for (int64_t k = 0; k < n; ++k) out.push_back(Cell(a.children[0], j * n + k));
      return out;
    }
    case TypeId::kStruct: {
      json out = json::object();
      for (size_t k = 0; k < a.children.size(); ++k) out[a.type.children[k].name] = Cell(a.children[k], j);
      return out;
    }
    default:
      return json{{"unsupported", a.type.ToString()}};
  }
}

Status WriteManifest(const std::string& dir, const Schema& schema, const FileStats& stats, const std::string& file) {
  ::lance::table::Manifest m;
  ASSIGN_OR_RETURN(auto fields, SchemaToLance(schema));
  for (auto& f : fields) *m.add_fields() = std::move(f);
  auto* frag = m.add_fragments();
  frag->set_id(0);
  frag->set_physical_rows(stats.num_rows);
  auto* df = frag->add_files();
  df->set_path(file);
  for (size_t c = 0; c < stats.columns.size(); ++c) {
    df->add_fields(stats.columns[c].field_id);
    df->add_column_indices(static_cast<int32_t>(c));
  }
  df->set_file_major_version(2);
  df->set_file_minor_version(2);
  df->set_file_size_bytes(stats.file_size);
  m.set_version(1);
  const std::string body = m.SerializeAsString();
  std::string out;
  const uint32_t len = static_cast<uint32_t>(body.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += body;
  const int64_t pos = 0;
  const uint16_t major = 0, minor = 2;
  out.append(reinterpret_cast<const char*>(&pos), 8);
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  fs::create_directories(dir + "/_versions");
  std::ofstream f(dir + "/_versions/18446744073709551614.manifest", std::ios::binary);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  return f ? Status::OK() : Status::IOError("cannot write the manifest in " + dir);
}

// Finds the rows array of the latest snapshot in a dump document.
const json* FindRows(const json& doc) {
  if (doc.is_object()) {
    if (doc.contains("rows") && doc["rows"].is_array()) return &doc["rows"];
    for (const auto& [k, v] : doc.items()) {
      if (const json* r = FindRows(v)) return r;
    }
  } else if (doc.is_array()) {
    for (const auto& v : doc) {
      if (const json* r = FindRows(v)) return r;
    }
  }
  return nullptr;
}

bool SameJson(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.is_number() && b.is_string()) return SameJson(b, a);
  if (a.is_string() && b.is_number()) {
    // 64-bit integers are strings on one side, numbers may be printed either way.
    try {
      return std::stod(a.get<std::string>()) == b.get<double>();
    } catch (...) {
      return false;
    }
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameJson(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items()) {
      if (!b.contains(k) || !SameJson(v, b[k])) return false;
    }
    return true;
  }
  return a == b;
}

class PeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PeerAvailable()) GTEST_SKIP() << "node or the lance peer (" << PeerDir() << ") is not installed";
    char tmpl[] = "/tmp/lancet_writer_peer_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    if (!root_.empty() && std::getenv("LANCET_KEEP_PEER_DIRS") == nullptr) fs::remove_all(root_);
  }

  // Writes `batch` as a one-fragment dataset and checks the peer's rows against it.
  void ExpectPeerReads(const std::string& name, const RecordBatch& batch, FileWriterOptions options = {},
                       FileStats* stats_out = nullptr) {
    SCOPED_TRACE(name);
    const std::string dir = root_ + "/" + name;
    fs::create_directories(dir + "/data");
    ASSERT_OK_AND_ASSIGN(auto sink, OpenLocalFileSink(dir + "/data/part0.lance"));
    ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(std::move(sink), batch.schema, options));
    ASSERT_OK(writer->Write(batch));
    const Schema schema = writer->schema();
    ASSERT_OK_AND_ASSIGN(FileStats stats, writer->Finish());
    if (stats_out != nullptr) *stats_out = stats;
    ASSERT_OK(WriteManifest(dir, schema, stats, "part0.lance"));
    ASSERT_OK_AND_ASSIGN(std::string out, RunDump(dir));
    json doc = json::parse(out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(doc.is_discarded()) << out.substr(0, 2000);
    const json* rows = FindRows(doc);
    ASSERT_NE(rows, nullptr) << out.substr(0, 2000);
    ASSERT_EQ(rows->size(), static_cast<size_t>(batch.num_rows));
    int failures = 0;
    for (int64_t r = 0; r < batch.num_rows && failures < 20; ++r) {
      const json& row = (*rows)[static_cast<size_t>(r)];
      for (size_t c = 0; c < batch.columns.size(); ++c) {
        const std::string& col = schema.fields[c].name;
        const json want = Cell(batch.columns[c], r);
        ASSERT_TRUE(row.contains(col)) << row.dump().substr(0, 500);
        if (!SameJson(want, row[col])) {
          ADD_FAILURE() << "row " << r << " column " << col << ": wrote " << want.dump().substr(0, 300)
                        << ", the reference read " << row[col].dump().substr(0, 300);
          ++failures;
        }
      }
    }
  }

  std::string root_;
};

RecordBatch JsonBatch(const std::vector<std::pair<Field, std::string>>& cols) {
  RecordBatch b;
  for (const auto& [f, js] : cols) {
    auto a = ArrayFromJson(f.type, js);
    EXPECT_TRUE(a.ok()) << f.name << ": " << a.status().ToString();
    if (!a.ok()) return b;
    b.schema.fields.push_back(f);
    b.num_rows = a->length;
    b.columns.push_back(*a);
  }
  return b;
}

TEST_F(PeerTest, SmallTypes) {
  DataType st = StructOf({MakeField("a", MakeType(TypeId::kInt32)), MakeField("b", MakeType(TypeId::kUtf8))});
  DataType lt = ListOf(MakeField("item", MakeType(TypeId::kInt32)));
  DataType fsl = FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 4);
  RecordBatch b = JsonBatch({
      {MakeField("id", MakeType(TypeId::kInt64), false), "[0,1,2,3,4,5,6,7]"},
      {MakeField("x_n", MakeType(TypeId::kFloat64)), "[1.5,null,-2,null,4.25,null,7,8]"},
      {MakeField("s", MakeType(TypeId::kUtf8)), R"(["", "héllo", null, "abc", "d", "", "long string here", null])"},
      {MakeField("v", fsl, false), "[[1,2,3,4],[5,6,7,8],[0,0,0,0],[1,1,1,1],[2,2,2,2],[3,3,3,3],[4,4,4,4],[5,5,5,5]]"},
      {MakeField("st", st), R"([{"a":1,"b":"x"}, null, {"a":null,"b":"y"}, {"a":4,"b":null}, {"a":5,"b":""}, null, {"a":7,"b":"z"}, {"a":8,"b":"w"}])"},
      {MakeField("l", lt), "[[1,2,3], [], null, [null, 5], [6], [], [7,8,9,10], null]"},
      {MakeField("bo", MakeType(TypeId::kBool)), "[true,false,null,true,true,false,false,true]"},
      {MakeField("d", MakeType(TypeId::kDate32)), "[0,1,2,null,4,5,6,7]"},
      {MakeField("ts", TimestampType(TimeUnit::kMicro)), "[0,1,2,null,4,5,6,7]"},
  });
  ExpectPeerReads("small", b);
}

TEST_F(PeerTest, MoreTypes) {
  DataType entries = StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))});
  DataType map = MakeType(TypeId::kMap);
  map.children.push_back(MakeField("entries", entries, false));
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 3;
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 20;
  dec.scale = 4;
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kMilli;
  DataType nested = StructOf({MakeField("x", MakeType(TypeId::kInt64)),
                              MakeField("c", StructOf({MakeField("y", ListOf(MakeField("item", MakeType(TypeId::kInt32))))}))});
  std::string vec = "[";
  for (int r = 0; r < 6; ++r) {
    vec += r ? "," : "";
    if (r == 2) {
      vec += "null";
      continue;
    }
    vec += "[";
    for (int i = 0; i < 128; ++i) vec += (i ? "," : "") + (r == 4 && i == 9 ? std::string("null") : std::to_string(r + i));
    vec += "]";
  }
  vec += "]";
  RecordBatch b = JsonBatch({
      {MakeField("h", MakeType(TypeId::kFloat16)), "[1.5, null, -2, 0, 65504, 0.25]"},
      {MakeField("lu", MakeType(TypeId::kLargeUtf8)), R"(["a", null, "", "xyz", "q", "r"])"},
      {MakeField("bin", MakeType(TypeId::kBinary)), R"(["00ff", null, "", "01", "02", "03"])"},
      {MakeField("fsb", fsb), R"(["000102", null, "ffffff", "010101", "020202", "030303"])"},
      {MakeField("dec", dec), R"(["1.2500", null, "-3", "0", "99999.9999", "1"])"},
      {MakeField("t", t32), "[0, 1000, null, 5, 6, 7]"},
      {MakeField("m", map), R"([[["a", 1], ["b", null]], [], null, [["c", 3]], [], [["d", 4]]])"},
      {MakeField("ls", ListOf(MakeField("item", StructOf({MakeField("a", MakeType(TypeId::kInt32)), MakeField("b", MakeType(TypeId::kUtf8))})))),
       R"([[{"a":1,"b":"x"}, null, {"a":null,"b":"y"}], [], null, [{"a":3,"b":null}], [null], [{"a":5,"b":"z"}]])"},
      {MakeField("ll", ListOf(MakeField("item", ListOf(MakeField("item", MakeType(TypeId::kInt32)))))),
       "[[[1,2],[],null,[3]], null, [], [null], [[4]], [[5,6],[7]]]"},
      {MakeField("nest", nested), R"([{"x":1,"c":{"y":[1,2]}}, null, {"x":null,"c":null}, {"x":4,"c":{"y":null}}, {"x":5,"c":{"y":[]}}, {"x":6,"c":{"y":[null,7]}}])"},
      {MakeField("vec", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 128)), vec},
      {MakeField("i64fsl", FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt64)), 3)), "[[1,2,3], null, [4,null,6], [7,8,9], [0,0,0], [1,1,1]]"},
  });
  // Long large_utf8 values: full-zip with 64-bit lengths.
  ASSERT_OK_AND_ASSIGN(Array longs, MakeBinaryArray(MakeType(TypeId::kLargeUtf8),
                                                    {std::string(300, 'a'), std::nullopt, std::string(40000, 'b'),
                                                     std::string(), std::string(500, 'c'), std::string(257, 'd')}));
  b.schema.fields.push_back(MakeField("llong", MakeType(TypeId::kLargeUtf8)));
  b.columns.push_back(longs);
  ExpectPeerReads("more", b);
}

TEST_F(PeerTest, ManyChunksAndPages) {
  // 5000 rows: bitpacked ints, multi-chunk strings, lists cut across chunks, long
  // strings in full-zip, several pages per column.
  const int n = 5000;
  std::string ids = "[", small = "[", s = "[", l = "[", lng = "[", f = "[";
  for (int i = 0; i < n; ++i) {
    const char* sep = i ? "," : "";
    ids += sep + std::to_string(i);
    small += sep + (i % 10 == 3 ? std::string("null") : std::to_string((i * 7919) % 1000));
    s += sep + (i % 9 == 4 ? std::string("null") : "\"row-" + std::to_string(i) + "\"");
    f += sep + (i % 13 == 0 ? std::string("null") : std::to_string(i * 0.25));
    std::string list;
    if (i % 11 == 0) {
      list = "null";
    } else if (i % 7 == 0) {
      list = "[]";
    } else {
      list = "[";
      for (int k = 0; k < (i % 5) + (i % 97 == 0 ? 600 : 0); ++k) list += (k ? "," : "") + std::to_string(i + k);
      list += "]";
    }
    l += sep + list;
    // Distinct values, so no dictionary: these stay full-zip.
    lng += sep + (i % 17 == 0 ? std::string("null")
                              : "\"" + std::string(260 + i % 50, static_cast<char>('a' + i % 26)) + std::to_string(i) +
                                    "\"");
  }
  for (auto* js : {&ids, &small, &s, &l, &lng, &f}) *js += "]";
  RecordBatch b = JsonBatch({
      {MakeField("id", MakeType(TypeId::kInt64), false), ids},
      {MakeField("small", MakeType(TypeId::kInt32)), small},
      {MakeField("f", MakeType(TypeId::kFloat32)), f},
      {MakeField("s", MakeType(TypeId::kUtf8)), s},
      {MakeField("l", ListOf(MakeField("item", MakeType(TypeId::kInt32)))), l},
      {MakeField("long", MakeType(TypeId::kUtf8)), lng},
  });
  FileStats stats;
  ExpectPeerReads("one_page", b, {}, &stats);
  auto uses = [&](size_t col, const std::string& what) {
    for (const auto& e : stats.columns[col].encodings) {
      if (e.find(what) != std::string::npos) return true;
    }
    return false;
  };
  ASSERT_EQ(stats.columns.size(), 6u);
  EXPECT_TRUE(uses(0, "InlineBitpacking")) << stats.columns[0].encodings[0];
  EXPECT_TRUE(uses(4, "miniblock")) << stats.columns[4].encodings[0];
  EXPECT_TRUE(uses(5, "fullzip")) << stats.columns[5].encodings[0];
  FileWriterOptions small_pages;
  small_pages.max_page_bytes = 8192;
  ExpectPeerReads("small_pages", b, small_pages, &stats);
  for (const auto& c : stats.columns) EXPECT_GT(c.num_pages, 2u) << c.path;
  FileWriterOptions no_bp;
  no_bp.enable_bitpacking = false;
  ExpectPeerReads("no_bitpacking", b, no_bp);
}

TEST_F(PeerTest, DictionaryFsstRleConstantAndPackedLevels) {
  // Each column is shaped for one of the data-dependent encodings; the reference must
  // read them all, in one page and in many.
  const int n = 6000;
  const char* colours[] = {"red", "green", "blue", "", "ultramarine"};
  std::string cat = "[", url = "[", runs = "[", runs64 = "[", tags = "[", opt = "[", k = "[", ks = "[", d64 = "[";
  for (int i = 0; i < n; ++i) {
    const char* sep = i ? "," : "";
    cat += sep + (i % 13 == 0 ? std::string("null") : "\"" + std::string(colours[(i * 7) % 5]) + "\"");
    url += sep + (i % 5 == 0 ? std::string("null")
                             : "\"https://example.com/item/" + std::to_string((i * 31) % 99991) + "?q=" +
                                   std::to_string(i) + "\"");
    runs += sep + (i % 1000 == 999 ? std::string("null") : std::to_string((i / 300) % 7 - 3));
    runs64 += sep + std::to_string(int64_t{1} << 40 | (i / 500));
    std::string list;
    if (i % 11 == 0) {
      list = "null";
    } else {
      list = "[";
      for (int k = 0; k < i % 4; ++k) {
        list += (k ? "," : "") + (k == 2 ? std::string("null") : "\"tag" + std::to_string((i + k) % 9) + "\"");
      }
      list += "]";
    }
    tags += sep + list;
    opt += sep + (i % 4 == 1 ? std::string("null") : std::to_string((int64_t{i} * 2654435761) % 1000003));
    k += sep + std::string("42");
    ks += sep + std::string("\"the same text\"");
    d64 += sep + (i % 10 == 3 ? std::string("null") : std::to_string((int64_t{(i * 13) % 19} << 40) - 5));
  }
  for (auto* js : {&cat, &url, &runs, &runs64, &tags, &opt, &k, &ks, &d64}) *js += "]";
  RecordBatch b = JsonBatch({
      {MakeField("cat", MakeType(TypeId::kUtf8)), cat},
      {MakeField("url", MakeType(TypeId::kUtf8)), url},
      {MakeField("runs", MakeType(TypeId::kInt32)), runs},
      {MakeField("runs64", MakeType(TypeId::kInt64), false), runs64},
      {MakeField("tags", ListOf(MakeField("item", MakeType(TypeId::kUtf8)))), tags},
      {MakeField("opt", MakeType(TypeId::kInt64)), opt},
      {MakeField("k", MakeType(TypeId::kInt32), false), k},
      {MakeField("ks", MakeType(TypeId::kUtf8)), ks},
      {MakeField("d64", MakeType(TypeId::kInt64)), d64},
      {MakeField("lurl", MakeType(TypeId::kLargeUtf8)), url},
  });
  for (const uint64_t page_bytes : {uint64_t{8} << 20, uint64_t{65536}, uint64_t{16384}}) {
    FileWriterOptions options;
    options.max_page_bytes = page_bytes;
    FileStats stats;
    ExpectPeerReads("encodings_" + std::to_string(page_bytes), b, options, &stats);
    auto uses = [&](size_t col, const std::string& what) {
      for (const auto& e : stats.columns[col].encodings) {
        if (e.find(what) != std::string::npos) return true;
      }
      return false;
    };
    ASSERT_EQ(stats.columns.size(), 10u);
    EXPECT_TRUE(uses(0, "dictionary")) << stats.columns[0].encodings[0];
    // FSST needs 32 KiB of strings in a page.
    if (page_bytes >= 65536) {
      EXPECT_TRUE(uses(1, "Fsst")) << stats.columns[1].encodings[0];
      EXPECT_TRUE(uses(9, "Fsst(Variable(Flat(64)))")) << stats.columns[9].encodings[0];
    }
    EXPECT_TRUE(uses(2, "Rle")) << stats.columns[2].encodings[0];
    EXPECT_TRUE(uses(3, "Rle")) << stats.columns[3].encodings[0];
    EXPECT_TRUE(uses(4, "dictionary")) << stats.columns[4].encodings[0];
    EXPECT_TRUE(uses(6, "constant value")) << stats.columns[6].encodings[0];
    EXPECT_TRUE(uses(7, "constant value")) << stats.columns[7].encodings[0];
    EXPECT_TRUE(uses(8, "dictionary")) << stats.columns[8].encodings[0];
  }
}

}  // namespace
}  // namespace lancet::format
