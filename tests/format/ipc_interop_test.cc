// Cross-checks our Arrow IPC reader/writer against Arrow JS (when node and the
// apache-arrow module are installed) and real Lance deletion files (when the
// corpus is present); otherwise the tests skip.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/array.h"
#include "util/array_builder.h"

namespace lancet::format {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNodeModules = "/root/.cache/lance-peer/node_modules";
// The corpus the test suite generates (LANCET_CORPUS_DIR), else a developer's /tmp/corpus.
std::string CorpusRoot() {
  const char* env = std::getenv("LANCET_CORPUS_DIR");
  return env != nullptr && *env != '\0' ? env : "/tmp/corpus";
}

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                                              \
  auto LANCET_CONCAT(_r_, __LINE__) = (rexpr);                                                        \
  ASSERT_TRUE(LANCET_CONCAT(_r_, __LINE__).ok()) << LANCET_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(LANCET_CONCAT(_r_, __LINE__)).value()

Array Must(Result<Array> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r.MoveValue() : Array{};
}

BufferPtr ReadFileBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return Buffer::Copy(ss.str());
}

void WriteFileBytes(const fs::path& p, const Buffer& b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

class ArrowJs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(fs::path(kNodeModules) / "apache-arrow") || std::system("node --version >/dev/null 2>&1") != 0) {
      GTEST_SKIP() << "node or apache-arrow not installed";
    }
    dir_ = fs::temp_directory_path() / ("lancet_ipc_js_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // Runs `script` with node in dir_; returns false (and logs) on failure.
  bool RunNode(const std::string& script) {
    fs::path js = dir_ / "script.js";
    std::ofstream(js) << script;
    std::string cmd = "cd '" + dir_.string() + "' && NODE_PATH=" + kNodeModules + " node script.js > node.log 2>&1";
    int rc = std::system(cmd.c_str());
    if (rc != 0) {
      std::ifstream log(dir_ / "node.log");
      std::stringstream ss;
      ss << log.rdbuf();
      ADD_FAILURE() << "node failed:\n" << ss.str();
    }
    return rc == 0;
  }

  fs::path dir_;
};

// Arrow JS builds the data, we read it.
TEST_F(ArrowJs, WeReadJsFilesAndStreams) {
  const char* script = R"JS(
const a = require('apache-arrow');
const fs = require('fs');
const F = (n, t, nullable = true) => new a.Field(n, t, nullable);
const dict = new a.Dictionary(new a.Utf8(), new a.Int32());
const cols = {
  i32: a.vectorFromArray([1, null, 3], new a.Int32()),
  u64: a.vectorFromArray([1n, 2n, null], new a.Uint64()),
  f64: a.vectorFromArray([1.5, null, -2], new a.Float64()),
  s: a.vectorFromArray(['a', null, 'héllo'], new a.Utf8()),
  ls: a.vectorFromArray(['x', 'yy', null], new a.LargeUtf8()),
  b: a.vectorFromArray([true, null, false], new a.Bool()),
  ts: a.vectorFromArray([1, 2, null], new a.Timestamp(a.TimeUnit.MICROSECOND, 'UTC')),
  l: a.vectorFromArray([[1, null], null, []], new a.List(F('item', new a.Int32()))),
  st: a.vectorFromArray([{x: 1, y: 'p'}, null, {x: null, y: 'q'}], new a.Struct([F('x', new a.Int32()), F('y', new a.Utf8())])),
  d: a.vectorFromArray(['red', 'blue', 'red'], dict),
};
const t = new a.Table(cols);
t.schema.metadata.set('origin', 'arrow-js');
fs.writeFileSync('js.arrow', a.tableToIPC(t, 'file'));
fs.writeFileSync('js.stream', a.tableToIPC(t, 'stream'));
// Two batches whose dictionary grows: the second dictionary chunk goes out as a delta.
const values = a.vectorFromArray(['a', 'b'], new a.Utf8()).concat(a.vectorFromArray(['c'], new a.Utf8()));
const dt = new a.Dictionary(new a.Utf8(), new a.Int32(), 7);
const idx = a.makeData({type: dt, length: 3, nullCount: 0, data: new Int32Array([0, 2, 1]), dictionary: values});
const dtab = new a.Table({d: a.makeVector(idx)});
fs.writeFileSync('delta.stream', a.tableToIPC(dtab, 'stream'));
)JS";
  ASSERT_TRUE(RunNode(script));
  ASSERT_OK_AND_ASSIGN(IpcData file, ReadIpcFileData(ReadFileBytes(dir_ / "js.arrow")));
  ASSERT_OK_AND_ASSIGN(IpcData stream, ReadIpcStreamData(ReadFileBytes(dir_ / "js.stream")));
  ASSERT_EQ(file.batches.size(), 1u);
  ASSERT_EQ(stream.batches.size(), 1u);
  EXPECT_EQ(file.schema.metadata.at("origin"), "arrow-js");
  const RecordBatch& b = file.batches[0];
  ASSERT_EQ(b.num_rows, 3);
  for (size_t c = 0; c < b.columns.size(); ++c) {
    EXPECT_TRUE(ArraysEqual(b.columns[c], stream.batches[0].columns[c])) << b.schema.fields[c].name;
    EXPECT_TRUE(b.columns[c].Validate().ok());
  }
  auto col = [&](const char* name) { return b.columns[b.schema.FieldIndex(name)]; };
  EXPECT_TRUE(ArraysEqual(col("i32"), Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 0, 3}, {true, false, true}))));
  EXPECT_TRUE(ArraysEqual(col("u64"), Must(ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), {1, 2, 0}, {true, true, false}))));
  EXPECT_TRUE(ArraysEqual(col("s"), Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"a", std::nullopt, "héllo"}))));
  EXPECT_TRUE(ArraysEqual(col("ls"), Must(MakeBinaryArray(MakeType(TypeId::kLargeUtf8), {"x", "yy", std::nullopt}))));
  EXPECT_EQ(col("ts").type, TimestampType(TimeUnit::kMicro, "UTC"));
  Array items = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 0}, {true, false}));
  EXPECT_TRUE(ArraysEqual(col("l"), Must(MakeListArray(col("l").type, {0, 2, 2, 2}, items, {true, false, true}))));
  const Array& st = col("st");
  EXPECT_EQ(st.null_count, 1);
  // Child slots under a null struct row are unspecified, so check only the valid rows.
  EXPECT_EQ(st.children[1].GetView(0), "p");
  EXPECT_EQ(st.children[1].GetView(2), "q");
  EXPECT_TRUE(st.children[0].IsNull(2));
  const Array& d = col("d");
  ASSERT_EQ(d.type.id, TypeId::kDictionary);
  ASSERT_TRUE(d.dictionary);
  std::vector<std::string> decoded;
  for (int64_t i = 0; i < d.length; ++i) decoded.emplace_back(d.dictionary->GetView(d.values<int32_t>()[i]));
  EXPECT_EQ(decoded, (std::vector<std::string>{"red", "blue", "red"}));

  ASSERT_OK_AND_ASSIGN(IpcData delta, ReadIpcStreamData(ReadFileBytes(dir_ / "delta.stream")));
  ASSERT_EQ(delta.batches.size(), 1u);
  const Array& dd = delta.batches[0].columns[0];
  ASSERT_EQ(dd.dictionary->length, 3);
  EXPECT_EQ(dd.dictionary->GetView(dd.values<int32_t>()[1]), "c");
}

// Everything Arrow JS models (it has no large_list): we write, JS reads and
// writes it again, and we read JS's bytes back.
RecordBatch JsCompatibleBatch() {
  const std::vector<bool> v = {true, false, true, true};
  std::vector<std::string> names;
  std::vector<Array> cols;
  auto add = [&](std::string n, Array a) {
    names.push_back(std::move(n));
    cols.push_back(std::move(a));
  };
  Array null_col;
  null_col.type = MakeType(TypeId::kNull);
  null_col.length = 4;
  null_col.null_count = 4;
  add("null", null_col);
  add("bool", Must(ArrayFromVector<bool>(MakeType(TypeId::kBool), {true, false, false, true}, v)));
  add("i8", Must(ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {1, -2, 3, -128}, v)));
  add("i16", Must(ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {1, -2, 3, 4})));
  add("i64", Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {1, -2, 3, INT64_MIN}, v)));
  add("u32", Must(ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), {1, 2, 3, 4000000000u}, v)));
  add("f16", Must(ArrayFromVector<uint16_t>(MakeType(TypeId::kFloat16), {0x3c00, 0x4000, 0, 0xbc00}, v)));
  add("f32", Must(ArrayFromVector<float>(MakeType(TypeId::kFloat32), {1.5f, 2, 3, -4}, v)));
  add("utf8", Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"a", std::nullopt, "", "héllo"})));
  add("large_utf8", Must(MakeBinaryArray(MakeType(TypeId::kLargeUtf8), {"a", std::nullopt, "", "bb"})));
  add("binary", Must(MakeBinaryArray(MakeType(TypeId::kBinary), {std::string("\0\1", 2), "", std::nullopt, "z"})));
  add("large_binary", Must(MakeBinaryArray(MakeType(TypeId::kLargeBinary), {"q", "", std::nullopt, "z"})));
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 2;
  add("fsb", Must(MakeFixedWidthArray(fsb, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("abcdefgh"), 8), 4, v)));
  add("date32", Must(ArrayFromVector<int32_t>(MakeType(TypeId::kDate32), {1, 2, 3, 4}, v)));
  add("date64", Must(ArrayFromVector<int64_t>(MakeType(TypeId::kDate64), {86400000, 0, 2 * 86400000LL, 0}, v)));
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kMilli;
  add("time32", Must(ArrayFromVector<int32_t>(t32, {1, 2, 3, 4}, v)));
  DataType t64 = MakeType(TypeId::kTime64);
  t64.unit = TimeUnit::kNano;
  add("time64", Must(ArrayFromVector<int64_t>(t64, {1, 2, 3, 4}, v)));
  add("ts", Must(ArrayFromVector<int64_t>(TimestampType(TimeUnit::kMilli, "Europe/Paris"), {1, 2, 3, 4}, v)));
  DataType dur = MakeType(TypeId::kDuration);
  dur.unit = TimeUnit::kSecond;
  add("duration", Must(ArrayFromVector<int64_t>(dur, {1, 2, 3, 4}, v)));
  DataType dec = MakeType(TypeId::kDecimal128);
  dec.precision = 12;
  dec.scale = 3;
  std::vector<uint8_t> dec_bytes(4 * 16);
  for (size_t i = 0; i < dec_bytes.size(); ++i) dec_bytes[i] = static_cast<uint8_t>(i % 16 == 0 ? i : 0);
  add("dec", Must(MakeFixedWidthArray(dec, dec_bytes, 4, v)));
  Array items = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3}, {true, false, true}));
  add("list", Must(MakeListArray(ListOf(MakeField("item", MakeType(TypeId::kInt32))), {0, 2, 2, 3, 3}, items, v)));
  Array fitems = Must(ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {1, 2, 3, 4, 5, 6, 7, 8}, {true, true, false, true, true, true, true, true}));
  add("fsl", Must(MakeFixedSizeListArray(FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt16)), 2), 4, fitems, v)));
  Array sa = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3, 4}, {false, true, true, true}));
  Array sb = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"w", "x", std::nullopt, "z"}));
  Field fa = MakeField("a", sa.type);
  fa.metadata["unit"] = "m";
  add("struct", Must(MakeStructArray(StructOf({fa, MakeField("b", sb.type)}), 4, {sa, sb}, {true, true, false, true})));
  DataType entries = StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt64))});
  DataType mt = MakeType(TypeId::kMap);
  mt.children.push_back(MakeField("entries", entries, false));
  Array keys = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"k1", "k2", "k3"}));
  Array vals = Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {10, 20, 30}, {true, false, true}));
  add("map", Must(MakeListArray(mt, {0, 2, 2, 2, 3}, Must(MakeStructArray(entries, 3, {keys, vals})), v)));
  Array dv = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"red", "green", "blue"}));
  add("dict", Must(MakeDictionaryArray(Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {2, 0, 1, 1}, v)), dv)));
  RecordBatch batch = MakeRecordBatch(names, cols).MoveValue();
  batch.schema.fields[2].metadata["k"] = "v";
  batch.schema.metadata["lancet"] = "yes";
  return batch;
}

TEST_F(ArrowJs, JsReadsWhatWeWrite) {
  RecordBatch batch = JsCompatibleBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(batch.schema, {batch, batch}));
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(batch.schema, {batch}));
  WriteFileBytes(dir_ / "ours.arrow", *file);
  WriteFileBytes(dir_ / "ours.stream", *stream);
  const char* script = R"JS(
const a = require('apache-arrow');
const fs = require('fs');
const out = [];
for (const [inp, kind] of [['ours.arrow', 'file'], ['ours.stream', 'stream']]) {
  const t = a.tableFromIPC(fs.readFileSync(inp));
  out.push(`${inp}: rows=${t.numRows} cols=${t.numCols}`);
  out.push(`utf8=${JSON.stringify(t.getChild('utf8').toArray())}`);
  out.push(`dict=${JSON.stringify(t.getChild('dict').toArray())}`);
  out.push(`struct.b=${JSON.stringify(t.getChild('struct').toArray().map(x => x && x.b))}`);
  out.push(`meta=${t.schema.metadata.get('lancet')} fieldmeta=${t.schema.fields[2].metadata.get('k')}`);
  fs.writeFileSync('js_' + inp, a.tableToIPC(t, kind));
}
fs.writeFileSync('summary.txt', out.join('\n') + '\n');
)JS";
  ASSERT_TRUE(RunNode(script));
  std::stringstream summary;
  summary << std::ifstream(dir_ / "summary.txt").rdbuf();
  EXPECT_EQ(summary.str(),
            "ours.arrow: rows=8 cols=25\n"
            "utf8=[\"a\",null,\"\",\"héllo\",\"a\",null,\"\",\"héllo\"]\n"
            "dict=[\"blue\",null,\"green\",\"green\",\"blue\",null,\"green\",\"green\"]\n"
            "struct.b=[\"w\",\"x\",null,\"z\",\"w\",\"x\",null,\"z\"]\n"
            "meta=yes fieldmeta=v\n"
            "ours.stream: rows=4 cols=25\n"
            "utf8=[\"a\",null,\"\",\"héllo\"]\n"
            "dict=[\"blue\",null,\"green\",\"green\"]\n"
            "struct.b=[\"w\",\"x\",null,\"z\"]\n"
            "meta=yes fieldmeta=v\n");
  ASSERT_OK_AND_ASSIGN(IpcData back_file, ReadIpcFileData(ReadFileBytes(dir_ / "js_ours.arrow")));
  ASSERT_OK_AND_ASSIGN(IpcData back_stream, ReadIpcStreamData(ReadFileBytes(dir_ / "js_ours.stream")));
  EXPECT_EQ(back_file.schema.metadata, batch.schema.metadata);
  for (const IpcData* back : {&back_file, &back_stream}) {
    ASSERT_GE(back->batches.size(), 1u);
    int64_t rows = 0;
    for (const RecordBatch& b : back->batches) rows += b.num_rows;
    EXPECT_EQ(rows, back == &back_file ? 8 : 4);
    const RecordBatch& got = back->batches[0];
    ASSERT_EQ(got.columns.size(), batch.columns.size());
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      EXPECT_EQ(got.schema.fields[c], batch.schema.fields[c]) << got.schema.fields[c].ToString();
      ASSERT_OK_AND_ASSIGN(Array first, TakeRows(got.columns[c], {0, 1, 2, 3}));
      EXPECT_TRUE(ArraysEqual(first, batch.columns[c])) << batch.schema.fields[c].name;
    }
  }
}

// Real Lance deletion files: Arrow IPC files of one uint32 `row_id` column,
// written by arrow-rs with ZSTD bodies and 64-byte alignment.
TEST(LanceDeletionFiles, ReadAll) {
  const std::string kCorpus = CorpusRoot();
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".arrow") continue;
    ++files;
    BufferPtr bytes = ReadFileBytes(entry.path());
    ASSERT_OK_AND_ASSIGN(IpcData data, ReadIpcFileData(bytes));
    ASSERT_EQ(data.schema.fields.size(), 1u) << entry.path();
    EXPECT_EQ(data.schema.fields[0].name, "row_id");
    EXPECT_EQ(data.schema.fields[0].type.id, TypeId::kUInt32);
    int64_t rows = 0;
    for (const RecordBatch& b : data.batches) {
      ASSERT_TRUE(b.columns[0].Validate().ok());
      EXPECT_EQ(b.columns[0].null_count, 0);
      // Deleted row ids are distinct offsets within one fragment.
      for (int64_t i = 1; i < b.num_rows; ++i) {
        EXPECT_NE(b.columns[0].values<uint32_t>()[i], b.columns[0].values<uint32_t>()[i - 1]);
      }
      rows += b.num_rows;
    }
    EXPECT_GT(rows, 0) << entry.path();
    // Our own ZSTD output of the same data reads back identically.
    IpcWriteOptions opts;
    opts.compression = IpcCompression::kZstd;
    ASSERT_OK_AND_ASSIGN(BufferPtr again, WriteIpcFile(data.schema, data.batches, opts));
    ASSERT_OK_AND_ASSIGN(IpcData reread, ReadIpcFileData(again));
    ASSERT_EQ(reread.batches.size(), data.batches.size());
    for (size_t i = 0; i < data.batches.size(); ++i) {
      EXPECT_TRUE(ArraysEqual(reread.batches[i].columns[0], data.batches[i].columns[0]));
    }
    // Truncating a real file anywhere must fail cleanly.
    for (uint64_t n = 0; n < bytes->size(); n += 7) {
      EXPECT_FALSE(ReadIpcFileData(Buffer::Copy(bytes->span().subspan(0, n))).ok());
    }
  }
  if (files == 0) GTEST_SKIP() << "no .arrow files under " << kCorpus;
}

}  // namespace
}  // namespace lancet::format
