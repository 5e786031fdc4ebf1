// Round trips through our Arrow IPC writer and reader, and hostile inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "format/flatbuf_builder.h"
#include "format/flatbuf_reader.h"
#include "format/ipc_internal.h"
#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/array.h"
#include "util/array_builder.h"

namespace lancet::format {
namespace {

#define ASSERT_OK(expr)                                  \
  do {                                                   \
    ::lancet::Status _s = ::lancet::ToStatus(expr);      \
    ASSERT_TRUE(_s.ok()) << _s.ToString();               \
  } while (0)

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr)                                     \
  auto LANCET_CONCAT(_r_, __LINE__) = (rexpr);                               \
  ASSERT_TRUE(LANCET_CONCAT(_r_, __LINE__).ok()) << LANCET_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(LANCET_CONCAT(_r_, __LINE__)).value()

using Opt = std::optional<std::string>;

Array Must(Result<Array> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r.MoveValue() : Array{};
}

DataType TypeWithUnit(TypeId id, TimeUnit unit) {
  DataType t = MakeType(id);
  t.unit = unit;
  return t;
}

DataType DecimalType(TypeId id, int32_t precision, int32_t scale) {
  DataType t = MakeType(id);
  t.precision = precision;
  t.scale = scale;
  return t;
}

DataType MapType() {
  DataType entries = StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt64))});
  DataType t = MakeType(TypeId::kMap);
  t.children.push_back(MakeField("entries", entries, false));
  return t;
}

// Five rows of every supported type, with nulls at every nesting depth.
RecordBatch AllTypesBatch(int seed = 0) {
  const std::vector<bool> v = {true, false, true, true, false};
  std::vector<std::string> names;
  std::vector<Array> cols;
  auto add = [&](std::string name, Array a) {
    names.push_back(std::move(name));
    cols.push_back(std::move(a));
  };
  Array null_col;
  null_col.type = MakeType(TypeId::kNull);
  null_col.length = 5;
  null_col.null_count = 5;
  add("null", null_col);
  add("bool", Must(ArrayFromVector<bool>(MakeType(TypeId::kBool), {true, false, false, true, true}, v)));
  add("i8", Must(ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {1, -2, 3, -128, 127}, v)));
  add("i16", Must(ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {1, -2, 3, 4, 5})));
  add("i32", Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {seed, -2, 3, 4, 5}, v)));
  add("i64", Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {1, -2, 3, INT64_MIN, INT64_MAX}, v)));
  add("u8", Must(ArrayFromVector<uint8_t>(MakeType(TypeId::kUInt8), {1, 2, 3, 255, 0}, v)));
  add("u16", Must(ArrayFromVector<uint16_t>(MakeType(TypeId::kUInt16), {1, 2, 3, 65535, 0}, v)));
  add("u32", Must(ArrayFromVector<uint32_t>(MakeType(TypeId::kUInt32), {1, 2, 3, 4, 5}, v)));
  add("u64", Must(ArrayFromVector<uint64_t>(MakeType(TypeId::kUInt64), {1, 2, 3, UINT64_MAX, 5}, v)));
  add("f16", Must(ArrayFromVector<uint16_t>(MakeType(TypeId::kFloat16), {0x3c00, 0x4000, 0, 0xbc00, 1}, v)));
  add("f32", Must(ArrayFromVector<float>(MakeType(TypeId::kFloat32), {1.5f, 2, 3, -4, 5}, v)));
  add("f64", Must(ArrayFromVector<double>(MakeType(TypeId::kFloat64), {1.5, 2, 3, -4e100, 5}, v)));
  add("utf8", Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"a", std::nullopt, "", "héllo", Opt("x")})));
  add("large_utf8", Must(MakeBinaryArray(MakeType(TypeId::kLargeUtf8), {"a", std::nullopt, "", "bb", "x"})));
  add("binary", Must(MakeBinaryArray(MakeType(TypeId::kBinary), {std::string("\0\1", 2), "", std::nullopt, "z", "y"})));
  add("large_binary", Must(MakeBinaryArray(MakeType(TypeId::kLargeBinary), {"q", "", std::nullopt, "z", "y"})));
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 3;
  add("fsb", Must(MakeFixedWidthArray(fsb, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("abcdefghijklmno"), 15), 5, v)));
  add("date32", Must(ArrayFromVector<int32_t>(MakeType(TypeId::kDate32), {1, 2, 3, 4, 5}, v)));
  add("date64", Must(ArrayFromVector<int64_t>(MakeType(TypeId::kDate64), {86400000, 2, 3, 4, 5}, v)));
  add("time32", Must(ArrayFromVector<int32_t>(TypeWithUnit(TypeId::kTime32, TimeUnit::kMilli), {1, 2, 3, 4, 5}, v)));
  add("time32s", Must(ArrayFromVector<int32_t>(TypeWithUnit(TypeId::kTime32, TimeUnit::kSecond), {1, 2, 3, 4, 5})));
  add("time64", Must(ArrayFromVector<int64_t>(TypeWithUnit(TypeId::kTime64, TimeUnit::kNano), {1, 2, 3, 4, 5}, v)));
  add("ts_utc", Must(ArrayFromVector<int64_t>(TimestampType(TimeUnit::kMicro, "UTC"), {1, 2, 3, 4, 5}, v)));
  add("ts", Must(ArrayFromVector<int64_t>(TimestampType(TimeUnit::kSecond), {1, 2, 3, 4, 5}, v)));
  add("duration", Must(ArrayFromVector<int64_t>(TypeWithUnit(TypeId::kDuration, TimeUnit::kMilli), {1, 2, 3, 4, 5}, v)));
  std::vector<uint8_t> dec128(5 * 16), dec256(5 * 32);
  for (size_t i = 0; i < dec128.size(); ++i) dec128[i] = static_cast<uint8_t>(i * 7);
  for (size_t i = 0; i < dec256.size(); ++i) dec256[i] = static_cast<uint8_t>(i * 3);
  add("dec128", Must(MakeFixedWidthArray(DecimalType(TypeId::kDecimal128, 10, 2), dec128, 5, v)));
  add("dec256", Must(MakeFixedWidthArray(DecimalType(TypeId::kDecimal256, 40, 5), dec256, 5, v)));

  Array items = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3, 4, 5, 6}, {true, false, true, true, true, true}));
  add("list", Must(MakeListArray(ListOf(MakeField("item", MakeType(TypeId::kInt32))), {0, 2, 2, 3, 6, 6}, items, v)));
  Array litems = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"a", std::nullopt, "c"}));
  add("large_list", Must(MakeListArray(LargeListOf(MakeField("item", MakeType(TypeId::kUtf8))), {0, 1, 1, 3, 3, 3}, litems, v)));
  Array fitems = Must(ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {true, true, false, true, true, true, true, true, true, false}));
  add("fsl", Must(MakeFixedSizeListArray(FixedSizeListOf(MakeField("item", MakeType(TypeId::kInt16)), 2), 5, fitems, v)));

  Array sa = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3, 4, 5}, {false, true, true, true, true}));
  Array sb_items = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"x", "y", std::nullopt}));
  Array sb = Must(MakeListArray(ListOf(MakeField("item", MakeType(TypeId::kUtf8))), {0, 1, 1, 3, 3, 3}, sb_items, {true, false, true, true, true}));
  Field fa = MakeField("a", sa.type);
  fa.metadata["unit"] = "m";
  DataType st = StructOf({fa, MakeField("b", sb.type)});
  add("struct", Must(MakeStructArray(st, 5, {sa, sb}, {true, true, false, true, true})));

  Array keys = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"k1", "k2", "k3"}));
  Array values = Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), {10, 20, 30}, {true, false, true}));
  DataType mt = MapType();
  Array entries = Must(MakeStructArray(mt.children[0].type, 3, {keys, values}));
  add("map", Must(MakeListArray(mt, {0, 2, 2, 2, 3, 3}, entries, v)));

  Array dict_values = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"red", "green", "blue"}));
  Array idx = Must(ArrayFromVector<int16_t>(MakeType(TypeId::kInt16), {2, 0, 1, 1, 0}, v));
  add("dict", Must(MakeDictionaryArray(idx, dict_values)));
  Array inner_idx = Must(ArrayFromVector<int8_t>(MakeType(TypeId::kInt8), {0, 1, 0}, {true, true, false}));
  Array inner = Must(MakeDictionaryArray(inner_idx, Must(MakeBinaryArray(MakeType(TypeId::kUtf8), {"p", "q"}))));
  add("list_of_dict", Must(MakeListArray(ListOf(MakeField("item", inner.type)), {0, 1, 1, 3, 3, 3}, inner, v)));

  RecordBatch batch = MakeRecordBatch(names, cols).MoveValue();
  batch.schema.fields[4].metadata["comment"] = std::string("bytes\0here", 10);
  batch.schema.fields[5].nullable = false;
  batch.schema.metadata["lance:version"] = "2.1";
  batch.schema.metadata["empty"] = "";
  return batch;
}

void ExpectSameBatches(const std::vector<RecordBatch>& want, const std::vector<RecordBatch>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t b = 0; b < want.size(); ++b) {
    ASSERT_EQ(want[b].num_rows, got[b].num_rows);
    ASSERT_EQ(want[b].columns.size(), got[b].columns.size());
    for (size_t c = 0; c < want[b].columns.size(); ++c) {
      EXPECT_EQ(want[b].schema.fields[c], got[b].schema.fields[c]) << want[b].schema.fields[c].ToString();
      EXPECT_TRUE(ArraysEqual(want[b].columns[c], got[b].columns[c]))
          << "batch " << b << " column " << want[b].schema.fields[c].name;
      EXPECT_TRUE(got[b].columns[c].Validate().ok());
    }
    EXPECT_EQ(want[b].schema.metadata, got[b].schema.metadata);
  }
}

struct Mode {
  bool file;
  IpcCompression compression;
};

class IpcRoundTrip : public ::testing::TestWithParam<Mode> {
 protected:
  Result<BufferPtr> Write(const Schema& schema, const std::vector<RecordBatch>& batches) {
    IpcWriteOptions opts;
    opts.compression = GetParam().compression;
    return GetParam().file ? WriteIpcFile(schema, batches, opts) : WriteIpcStream(schema, batches, opts);
  }
  Result<IpcData> Read(BufferPtr bytes) {
    return GetParam().file ? ReadIpcFileData(std::move(bytes)) : ReadIpcStreamData(std::move(bytes));
  }
};

TEST_P(IpcRoundTrip, AllTypes) {
  std::vector<RecordBatch> batches = {AllTypesBatch(0), AllTypesBatch(1)};
  // Share dictionaries across batches, as the file format requires.
  for (size_t c = 0; c < batches[0].columns.size(); ++c) {
    if (batches[0].columns[c].type.id == TypeId::kDictionary) {
      batches[1].columns[c].dictionary = batches[0].columns[c].dictionary;
    }
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(batches[0].schema, batches));
  EXPECT_EQ(bytes->size() % 8, GetParam().file ? 2u : 0u);
  ASSERT_OK_AND_ASSIGN(IpcData data, Read(bytes));
  EXPECT_EQ(data.schema.ToString(), batches[0].schema.ToString());
  EXPECT_EQ(data.schema.metadata, batches[0].schema.metadata);
  ExpectSameBatches(batches, data.batches);
  ASSERT_OK_AND_ASSIGN(Schema schema, GetParam().file ? ReadIpcFileSchema(bytes) : ReadIpcStreamSchema(bytes));
  EXPECT_EQ(schema.fields.size(), batches[0].schema.fields.size());
}

TEST_P(IpcRoundTrip, ZeroBatchesKeepsSchema) {
  RecordBatch proto = AllTypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(proto.schema, {}));
  ASSERT_OK_AND_ASSIGN(IpcData data, Read(bytes));
  EXPECT_TRUE(data.batches.empty());
  ASSERT_EQ(data.schema.fields.size(), proto.schema.fields.size());
  for (size_t i = 0; i < proto.schema.fields.size(); ++i) EXPECT_EQ(data.schema.fields[i], proto.schema.fields[i]);
  EXPECT_EQ(data.schema.metadata, proto.schema.metadata);
}

TEST_P(IpcRoundTrip, EmptyBatch) {
  RecordBatch full = AllTypesBatch();
  RecordBatch empty;
  empty.schema = full.schema;
  for (const Array& c : full.columns) {
    ASSERT_OK_AND_ASSIGN(Array e, TakeRows(c, {}));
    empty.columns.push_back(std::move(e));
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(full.schema, {empty}));
  ASSERT_OK_AND_ASSIGN(IpcData data, Read(bytes));
  ExpectSameBatches({empty}, data.batches);
}

TEST_P(IpcRoundTrip, LargeCompressibleColumn) {
  std::vector<int64_t> values(100000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i % 10);
  ASSERT_OK_AND_ASSIGN(RecordBatch batch,
                       MakeRecordBatch({"x"}, {Must(ArrayFromVector<int64_t>(MakeType(TypeId::kInt64), values))}));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(batch.schema, {batch, batch}));
  if (GetParam().compression != IpcCompression::kNone) {
    EXPECT_LT(bytes->size(), values.size() * 8 / 4);
  }
  ASSERT_OK_AND_ASSIGN(IpcData data, Read(bytes));
  ExpectSameBatches({batch, batch}, data.batches);
}

TEST_P(IpcRoundTrip, TruncationNeverCrashes) {
  RecordBatch batch = AllTypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(batch.schema, {batch}));
  for (uint64_t n = 0; n < bytes->size(); ++n) {
    Result<IpcData> r = Read(Buffer::Copy(bytes->span().subspan(0, n)));
    // A stream cut at a message boundary is a valid shorter stream; a cut file never is.
    if (GetParam().file || !r.ok()) {
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_TRUE(r.status().IsCorruption()) << n << ": " << r.status().ToString();
    }
  }
}

TEST_P(IpcRoundTrip, ByteMutationsNeverCrash) {
  RecordBatch batch = AllTypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write(batch.schema, {batch}));
  std::mt19937 rng(42);
  for (uint64_t i = 0; i < bytes->size(); ++i) {
    for (uint8_t x : {uint8_t{0xff}, static_cast<uint8_t>(rng() | 1)}) {
      std::vector<uint8_t> copy(bytes->data(), bytes->data() + bytes->size());
      copy[i] ^= x;
      Result<IpcData> r = Read(Buffer::FromVector(std::move(copy)));
      if (r.ok()) {
        for (const RecordBatch& b : r->batches)
          for (const Array& a : b.columns) ASSERT_TRUE(a.Validate().ok());
      } else {
        EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported())
            << i << ": " << r.status().ToString();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, IpcRoundTrip,
                         ::testing::Values(Mode{true, IpcCompression::kNone}, Mode{true, IpcCompression::kZstd},
                                           Mode{true, IpcCompression::kLz4Frame}, Mode{false, IpcCompression::kNone},
                                           Mode{false, IpcCompression::kZstd},
                                           Mode{false, IpcCompression::kLz4Frame}),
                         [](const auto& info) {
                           std::string s = info.param.file ? "File" : "Stream";
                           switch (info.param.compression) {
                             case IpcCompression::kNone: return s + "Plain";
                             case IpcCompression::kZstd: return s + "Zstd";
                             case IpcCompression::kLz4Frame: return s + "Lz4";
                           }
                           return s;
                         });

RecordBatch DictBatch(std::vector<std::optional<std::string>> dict, std::vector<int32_t> idx) {
  Array values = Must(MakeBinaryArray(MakeType(TypeId::kUtf8), dict));
  Array indices = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), idx));
  return MakeRecordBatch({"d"}, {Must(MakeDictionaryArray(indices, values))}).MoveValue();
}

TEST(IpcDictionary, StreamReplacesDictionaries) {
  std::vector<RecordBatch> batches = {DictBatch({"a", "b"}, {0, 1, 1}), DictBatch({"c"}, {0, 0})};
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcStream(batches[0].schema, batches));
  ASSERT_OK_AND_ASSIGN(IpcData data, ReadIpcStreamData(bytes));
  ExpectSameBatches(batches, data.batches);
  EXPECT_EQ(data.batches[1].columns[0].dictionary->length, 1);
}

TEST(IpcDictionary, FileRejectsReplacementButAcceptsEqualDictionaries) {
  std::vector<RecordBatch> differ = {DictBatch({"a", "b"}, {0, 1}), DictBatch({"c"}, {0})};
  EXPECT_TRUE(WriteIpcFile(differ[0].schema, differ).status().IsNotSupported());
  std::vector<RecordBatch> equal = {DictBatch({"a", "b"}, {0, 1}), DictBatch({"a", "b"}, {1, 1})};
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcFile(equal[0].schema, equal));
  ASSERT_OK_AND_ASSIGN(IpcData data, ReadIpcFileData(bytes));
  ExpectSameBatches(equal, data.batches);
}

TEST(IpcWriter, RejectsMismatchedBatches) {
  RecordBatch batch = DictBatch({"a"}, {0});
  Schema other;
  other.fields.push_back(MakeField("d", MakeType(TypeId::kInt32)));
  EXPECT_TRUE(WriteIpcFile(other, {batch}).status().IsInvalidArgument());
  Array broken = Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2}));
  broken.length = 100;  // values buffer too small
  RecordBatch bad;
  bad.schema = other;
  bad.num_rows = 100;
  bad.columns = {broken};
  EXPECT_TRUE(WriteIpcStream(other, {bad}).status().IsInvalidArgument());
}

// ---------------------------------------------------------------------------
// Hand-built hostile messages.

using ipc::slot::kBatchBuffers;
using ipc::slot::kBatchCompression;
using ipc::slot::kBatchLength;
using ipc::slot::kBatchNodes;

std::vector<uint8_t> Frame(const std::vector<uint8_t>& meta, const std::vector<uint8_t>& body) {
  std::vector<uint8_t> out(8);
  uint32_t cont = ipc::kContinuation;
  int32_t len = static_cast<int32_t>(meta.size());
  std::memcpy(out.data(), &cont, 4);
  std::memcpy(out.data() + 4, &len, 4);
  out.insert(out.end(), meta.begin(), meta.end());
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// A stream whose schema is one int32 column and whose single record batch has
// the given node, buffer specs, compression and body.
BufferPtr HostileInt32Stream(int64_t length, int64_t null_count, std::vector<int64_t> buffer_specs,
                             std::vector<uint8_t> body, std::optional<int8_t> codec = std::nullopt) {
  Schema schema;
  schema.fields.push_back(MakeField("x", MakeType(TypeId::kInt32)));
  BufferPtr good = WriteIpcStream(schema, {}).MoveValue();
  std::vector<uint8_t> out(good->data(), good->data() + good->size() - 8);  // drop end marker

  FbBuilder fb;
  int64_t node[2] = {length, null_count};
  auto nodes = fb.CreateVectorOfStructs(node, 16, 1, 8);
  auto buffers = fb.CreateVectorOfStructs(buffer_specs.data(), 16, buffer_specs.size() / 2, 8);
  std::optional<FbBuilder::Ref> comp;
  if (codec) {
    fb.StartTable();
    fb.AddScalar<int8_t>(0, *codec);
    comp = fb.EndTable();
  }
  fb.StartTable();
  fb.AddScalar<int64_t>(kBatchLength, length);
  fb.AddRef(kBatchNodes, nodes);
  fb.AddRef(kBatchBuffers, buffers);
  if (comp) fb.AddRef(kBatchCompression, *comp);
  auto header = fb.EndTable();
  fb.StartTable();
  fb.AddScalar<int16_t>(0, ipc::kMetadataV5);
  fb.AddScalar<uint8_t>(1, 3);
  fb.AddRef(2, header);
  fb.AddScalar<int64_t>(3, static_cast<int64_t>(body.size()));
  auto meta = fb.Finish(fb.EndTable());
  auto msg = Frame(meta, body);
  out.insert(out.end(), msg.begin(), msg.end());
  return Buffer::FromVector(std::move(out));
}

void ExpectCorruption(BufferPtr bytes, const std::string& what) {
  Result<IpcData> r = ReadIpcStreamData(std::move(bytes));
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_TRUE(r.status().IsCorruption()) << what << ": " << r.status().ToString();
}

TEST(IpcHostile, HandBuiltValidStreamReads) {
  std::vector<uint8_t> body(16, 0);
  int32_t vals[2] = {7, 9};
  std::memcpy(body.data(), vals, 8);
  ASSERT_OK_AND_ASSIGN(IpcData data, ReadIpcStreamData(HostileInt32Stream(2, 0, {0, 0, 0, 8}, body)));
  ASSERT_EQ(data.batches.size(), 1u);
  EXPECT_EQ(data.batches[0].columns[0].values<int32_t>()[1], 9);
}

TEST(IpcHostile, BufferOffsetsAndLengths) {
  std::vector<uint8_t> body(16, 0);
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, int64_t{1} << 40, 8}, body), "offset past body");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 8, 9}, body), "length past body");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, -8, 8}, body), "negative offset");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, INT64_MAX}, body), "huge length");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0}, body), "too few buffers");
  ExpectCorruption(HostileInt32Stream(4, 0, {0, 0, 0, 8}, body), "values buffer too short");
  ExpectCorruption(HostileInt32Stream(2, 1, {0, 0, 0, 8}, body), "nulls without bitmap");
  ExpectCorruption(HostileInt32Stream(2, 3, {0, 1, 0, 8}, body), "null count > length");
  ExpectCorruption(HostileInt32Stream(INT64_MAX, 0, {0, 0, 0, 8}, body), "huge length");
  ExpectCorruption(HostileInt32Stream(-1, 0, {0, 0, 0, 8}, body), "negative length");
}

TEST(IpcHostile, CompressionLengths) {
  // Uncompressed length prefix claims 1 TiB.
  std::vector<uint8_t> body(16, 0);
  int64_t huge = int64_t{1} << 40;
  std::memcpy(body.data(), &huge, 8);
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, 16}, body, 1),
                   "huge zstd claim");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, 16}, body, 0), "huge lz4 claim");
  int64_t small = 8;
  std::memcpy(body.data(), &small, 8);
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, 16}, body, 1), "garbage zstd");
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, 4}, body, 1), "shorter than prefix");
  int64_t negative = -5;
  std::memcpy(body.data(), &negative, 8);
  ExpectCorruption(HostileInt32Stream(2, 0, {0, 0, 0, 16}, body, 1), "negative prefix");
  // -1 means stored raw: this one is valid.
  int64_t raw = -1;
  std::memcpy(body.data(), &raw, 8);
  ASSERT_OK(ReadIpcStreamData(HostileInt32Stream(2, 0, {0, 0, 0, 16}, body, 1)).status());
  // A real zstd frame whose content is longer than the declared length.
  std::vector<uint8_t> eight(8, 1);
  auto packed = ipc::Compress(ipc::Codec::kZstd, eight, 1).MoveValue();
  std::vector<uint8_t> body2(8);
  int64_t claim = 4;
  std::memcpy(body2.data(), &claim, 8);
  body2.insert(body2.end(), packed.begin(), packed.end());
  body2.resize(ipc::PaddedTo8(body2.size()));
  ExpectCorruption(HostileInt32Stream(1, 0, {0, 0, 0, static_cast<int64_t>(8 + packed.size())}, body2, 1),
                   "zstd longer than declared");
  claim = 16;
  std::memcpy(body2.data(), &claim, 8);
  ExpectCorruption(HostileInt32Stream(1, 0, {0, 0, 0, static_cast<int64_t>(8 + packed.size())}, body2, 1),
                   "zstd shorter than declared");
}

TEST(IpcHostile, DecompressionBudget) {
  std::vector<int32_t> zeros(1 << 20);
  ASSERT_OK_AND_ASSIGN(RecordBatch batch,
                       MakeRecordBatch({"x"}, {Must(ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), zeros))}));
  IpcWriteOptions wopts;
  wopts.compression = IpcCompression::kZstd;
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcStream(batch.schema, {batch}, wopts));
  IpcReadOptions ropts;
  ropts.max_decompressed_bytes = 1 << 20;
  EXPECT_TRUE(ReadIpcStreamData(bytes, ropts).status().IsCorruption());
  ropts.max_decompressed_bytes = 4 << 20;
  ASSERT_OK(ReadIpcStreamData(bytes, ropts).status());
}

TEST(IpcHostile, FileFraming) {
  RecordBatch batch = DictBatch({"a", "b"}, {0, 1});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcFile(batch.schema, {batch}));
  auto mutate = [&](size_t pos, const void* p, size_t n) {
    std::vector<uint8_t> copy(bytes->data(), bytes->data() + bytes->size());
    std::memcpy(copy.data() + pos, p, n);
    return Buffer::FromVector(std::move(copy));
  };
  auto expect_corrupt = [](BufferPtr b, const char* what) {
    Result<IpcData> r = ReadIpcFileData(b);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_TRUE(r.status().IsCorruption()) << what << ": " << r.status().ToString();
  };
  expect_corrupt(mutate(0, "ARROW2", 6), "leading magic");
  expect_corrupt(mutate(bytes->size() - 6, "XRROW1", 6), "trailing magic");
  for (int32_t len : {0, -1, INT32_MAX, static_cast<int32_t>(bytes->size())}) {
    expect_corrupt(mutate(bytes->size() - 10, &len, 4), "footer length");
  }
  // Root offset of the footer flatbuffer pointing far away.
  int32_t footer_len;
  std::memcpy(&footer_len, bytes->data() + bytes->size() - 10, 4);
  size_t footer_start = bytes->size() - 10 - footer_len;
  for (uint32_t root : {0xFFFFFFF0u, static_cast<uint32_t>(footer_len), 2u}) {
    expect_corrupt(mutate(footer_start, &root, 4), "footer root offset");
  }
  expect_corrupt(Buffer::Copy(std::string_view("ARROW1")), "tiny");
  expect_corrupt(Buffer::Copy(std::string_view("ARROW1\0\0\0\0\0\0ARROW1", 18)), "empty footer");
}

TEST(IpcHostile, StreamFraming) {
  ExpectCorruption(Buffer::Copy(std::string_view("")), "empty stream");
  ExpectCorruption(Buffer::Copy(std::string_view("\xff\xff\xff\xff\x10\x00\x00\x00", 8)), "metadata past end");
  ExpectCorruption(Buffer::Copy(std::string_view("\xff\xff\xff\xff\xf0\xff\xff\xff", 8)), "negative metadata");
  ExpectCorruption(Buffer::Copy(std::string_view("\xff\xff\xff\xff\x08\x00\x00\x00\x40\x00\x00\x00\x00\x00\x00\x00", 16)),
                   "root out of range");
  ExpectCorruption(Buffer::Copy(std::string_view("\xff\xff", 2)), "short");
}

// Flatbuffer tables whose vtables or fields point outside the buffer.
TEST(FlatbufReader, BoundsChecks) {
  std::vector<uint8_t> buf(16, 0);
  uint32_t root = 4;
  std::memcpy(buf.data(), &root, 4);
  int32_t soff = -100;  // vtable after the buffer
  std::memcpy(buf.data() + 4, &soff, 4);
  EXPECT_TRUE(FbTable::Root(buf).status().IsCorruption());
  soff = 100;  // vtable before the buffer
  std::memcpy(buf.data() + 4, &soff, 4);
  EXPECT_TRUE(FbTable::Root(buf).status().IsCorruption());
  // vtable at 8 with a field at offset 200 in a table claiming size 4.
  soff = -4;
  std::memcpy(buf.data() + 4, &soff, 4);
  uint16_t vt[4] = {8, 4, 200, 0};
  std::memcpy(buf.data() + 8, vt, 8);
  ASSERT_OK_AND_ASSIGN(FbTable t, FbTable::Root(buf));
  EXPECT_TRUE(t.Scalar<int64_t>(0, 0).status().IsCorruption());
  EXPECT_TRUE(t.Table(0).status().IsCorruption());
  EXPECT_TRUE(t.String(0).status().IsCorruption());
  EXPECT_EQ(t.Scalar<int32_t>(1, 5).MoveValue(), 5);  // absent field → default
}

TEST(FlatbufBuilder, RoundTripsThroughReader) {
  FbBuilder fb;
  auto s = fb.CreateString("hello");
  std::vector<int64_t> longs = {1, 2, 3};
  auto v = fb.CreateVectorOfScalars<int64_t>(longs);
  fb.StartTable();
  fb.AddScalar<int8_t>(0, 7);
  fb.AddRef(1, s);
  fb.AddRef(3, v);
  fb.AddScalar<int64_t>(2, -9);
  auto bytes = fb.Finish(fb.EndTable());
  EXPECT_EQ(bytes.size() % 8, 0u);
  ASSERT_OK_AND_ASSIGN(FbTable t, FbTable::Root(bytes));
  EXPECT_EQ(t.Scalar<int8_t>(0, 0).MoveValue(), 7);
  EXPECT_EQ(t.Scalar<int64_t>(2, 0).MoveValue(), -9);
  EXPECT_EQ(*t.String(1).MoveValue(), "hello");
  auto vec = FbVector::Get(t, 3, 8).MoveValue();
  ASSERT_TRUE(vec.has_value());
  ASSERT_EQ(vec->size(), 3u);
  EXPECT_EQ(vec->ScalarAt<int64_t>(2), 3);
  EXPECT_EQ((vec->StructAt(0) - bytes.data()) % 8, 0);
  EXPECT_FALSE(t.HasField(4));
}

}  // namespace
}  // namespace lancet::format
