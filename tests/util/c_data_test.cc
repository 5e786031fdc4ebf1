#include "lancet/c_data.h"

#include <gtest/gtest.h>

#include <cstring>

#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/array_test_util.h"
#include "util/test_macros.h"

namespace lancet {
namespace {

using testing::SampleArrays;
using testing::Slice;

// Counts release calls by interposing on the producer's release callback. Only
// the top-level struct is wrapped: the spec makes it responsible for the rest.
int g_release_calls = 0;
void (*g_original_release)(ArrowArray*) = nullptr;

void CountingRelease(ArrowArray* a) {
  ++g_release_calls;
  a->release = g_original_release;
  a->release(a);
  EXPECT_EQ(a->release, nullptr) << "release must mark the struct released";
}

void InstallCountingRelease(ArrowArray* a) {
  g_release_calls = 0;
  g_original_release = a->release;
  a->release = &CountingRelease;
}

TEST(CDataTest, RoundTripEveryType) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    Field field = MakeField(name, a.type);
    field.metadata = {{"origin", "test"}};
    ArrowSchema c_schema;
    ASSERT_OK(ExportField(field, &c_schema));
    ASSERT_OK_AND_ASSIGN(Field imported_field, ImportField(&c_schema));
    EXPECT_EQ(c_schema.release, nullptr);
    EXPECT_EQ(imported_field, field) << imported_field.ToString() << " vs " << field.ToString();

    for (const Array& arr : {a, Slice(a, 1, a.length - 2)}) {
      ArrowArray c_array;
      ASSERT_OK(ExportArray(arr, &c_array));
      EXPECT_EQ(c_array.offset, arr.offset);
      InstallCountingRelease(&c_array);
      {
        ASSERT_OK_AND_ASSIGN(Array imported, ImportArray(&c_array, imported_field.type));
        EXPECT_EQ(c_array.release, nullptr) << "import moves the struct";
        ASSERT_OK(imported.Validate());
        EXPECT_TRUE(ArraysEqual(imported, arr));
        EXPECT_EQ(imported.null_count, arr.null_count);
        EXPECT_EQ(imported.offset, arr.offset);
        EXPECT_LE(g_release_calls, 1);
      }
      EXPECT_EQ(g_release_calls, 1);
    }
  }
}

TEST(CDataTest, ImportedDataOutlivesProducer) {
  ArrowArray c_array;
  {
    Array producer = StringArray({"kept", std::nullopt, "alive"});
    ASSERT_OK(ExportArray(producer, &c_array));
  }  // the exported struct alone keeps the buffers alive now
  InstallCountingRelease(&c_array);
  Array imported;
  {
    ASSERT_OK_AND_ASSIGN(imported, ImportArray(&c_array, MakeType(TypeId::kUtf8)));
  }
  Array copy = imported;  // shares buffers
  imported = Array();
  EXPECT_EQ(copy.GetView(0), "kept");
  EXPECT_EQ(copy.GetView(2), "alive");
  copy = Array();
  EXPECT_EQ(g_release_calls, 1);
}

TEST(CDataTest, FormatStrings) {
  struct Case {
    DataType type;
    const char* format;
  };
  DataType fsb = MakeType(TypeId::kFixedSizeBinary);
  fsb.byte_width = 16;
  DataType d128 = MakeType(TypeId::kDecimal128);
  d128.precision = 10;
  d128.scale = 2;
  DataType d256 = MakeType(TypeId::kDecimal256);
  d256.precision = 40;
  d256.scale = 5;
  DataType t32 = MakeType(TypeId::kTime32);
  t32.unit = TimeUnit::kMilli;
  DataType dur = MakeType(TypeId::kDuration);
  dur.unit = TimeUnit::kNano;
  std::vector<Case> cases = {
      {MakeType(TypeId::kNull), "n"},         {MakeType(TypeId::kBool), "b"},
      {MakeType(TypeId::kInt8), "c"},         {MakeType(TypeId::kUInt64), "L"},
      {MakeType(TypeId::kFloat16), "e"},      {MakeType(TypeId::kLargeUtf8), "U"},
      {MakeType(TypeId::kBinary), "z"},       {fsb, "w:16"},
      {d128, "d:10,2"},                       {d256, "d:40,5,256"},
      {MakeType(TypeId::kDate32), "tdD"},     {MakeType(TypeId::kDate64), "tdm"},
      {t32, "ttm"},                           {dur, "tDn"},
      {TimestampType(TimeUnit::kMicro, "UTC"), "tsu:UTC"},
      {TimestampType(TimeUnit::kSecond), "tss:"},
      {ListOf(MakeField("item", MakeType(TypeId::kInt32))), "+l"},
      {LargeListOf(MakeField("item", MakeType(TypeId::kInt32))), "+L"},
      {FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32)), 128), "+w:128"},
      {StructOf({MakeField("a", MakeType(TypeId::kInt32))}), "+s"},
  };
  for (const Case& c : cases) {
    ArrowSchema s;
    ASSERT_OK(ExportType(c.type, &s));
    EXPECT_STREQ(s.format, c.format);
    ASSERT_OK_AND_ASSIGN(DataType back, ImportType(&s));
    EXPECT_EQ(back, c.type) << c.format;
  }
}

TEST(CDataTest, MapDictionaryAndFlags) {
  DataType entries = StructOf({MakeField("key", MakeType(TypeId::kUtf8), false), MakeField("value", MakeType(TypeId::kInt32))});
  DataType map = MakeType(TypeId::kMap);
  map.keys_sorted = true;
  map.children.push_back(MakeField("entries", entries, false));
  ArrowSchema s;
  ASSERT_OK(ExportField(MakeField("m", map, false), &s));
  EXPECT_STREQ(s.format, "+m");
  EXPECT_EQ(s.flags, ARROW_FLAG_MAP_KEYS_SORTED);  // not nullable
  ASSERT_EQ(s.n_children, 1);
  EXPECT_EQ(s.children[0]->flags, 0);
  EXPECT_EQ(s.children[0]->children[1]->flags, ARROW_FLAG_NULLABLE);
  ASSERT_OK_AND_ASSIGN(Field f, ImportField(&s));
  EXPECT_TRUE(f.type.keys_sorted);
  EXPECT_FALSE(f.nullable);
  EXPECT_EQ(f.type, map);

  DataType dict = MakeType(TypeId::kDictionary);
  dict.index_type = std::make_shared<DataType>(MakeType(TypeId::kInt16));
  dict.value_type = std::make_shared<DataType>(MakeType(TypeId::kUtf8));
  ASSERT_OK(ExportType(dict, &s));
  EXPECT_STREQ(s.format, "s");
  ASSERT_NE(s.dictionary, nullptr);
  EXPECT_STREQ(s.dictionary->format, "u");
  ASSERT_OK_AND_ASSIGN(DataType back, ImportType(&s));
  EXPECT_EQ(back, dict);
}

TEST(CDataTest, MetadataEncoding) {
  Field f = MakeField("x", MakeType(TypeId::kInt32));
  f.metadata = {{"a", "1"}, {"bb", std::string("x\0y", 3)}};
  ArrowSchema s;
  ASSERT_OK(ExportField(f, &s));
  ASSERT_NE(s.metadata, nullptr);
  auto read_i32 = [](const char* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  const char* p = s.metadata;
  EXPECT_EQ(read_i32(p), 2);
  EXPECT_EQ(read_i32(p + 4), 1);
  EXPECT_EQ(std::string(p + 8, 1), "a");
  EXPECT_EQ(read_i32(p + 9), 1);
  EXPECT_EQ(std::string(p + 13, 1), "1");
  EXPECT_EQ(read_i32(p + 14), 2);
  EXPECT_EQ(std::string(p + 18, 2), "bb");
  EXPECT_EQ(read_i32(p + 20), 3);
  EXPECT_EQ(std::string(p + 24, 3), std::string("x\0y", 3));
  ASSERT_OK_AND_ASSIGN(Field back, ImportField(&s));
  EXPECT_EQ(back.metadata, f.metadata);

  ASSERT_OK(ExportField(MakeField("y", MakeType(TypeId::kInt8)), &s));
  EXPECT_EQ(s.metadata, nullptr);  // no metadata is encoded as NULL
  s.release(&s);
}

// A hand-written producer, so import is tested against something other than our export.
struct ForeignInt32 {
  int32_t values[6] = {10, 11, 12, 13, 14, 15};
  uint8_t validity[1] = {0b111011};  // row 2 null
  const void* buffers[2] = {validity, values};
  static void Release(ArrowArray* a) {
    ++*static_cast<int*>(a->private_data);
    a->release = nullptr;
  }
};

TEST(CDataTest, ImportForeignArrayWithOffset) {
  ForeignInt32 foreign;
  int releases = 0;
  auto make = [&]() {
    ArrowArray c{};
    c.length = 4;
    c.offset = 1;
    c.null_count = -1;  // unknown: the importer counts
    c.n_buffers = 2;
    c.buffers = foreign.buffers;
    c.release = &ForeignInt32::Release;
    c.private_data = &releases;
    return c;
  };
  ArrowArray c = make();
  {
    ASSERT_OK_AND_ASSIGN(Array a, ImportArray(&c, MakeType(TypeId::kInt32)));
    ASSERT_OK_AND_ASSIGN(Array expected, ArrayFromJson(MakeType(TypeId::kInt32), "[11, null, 13, 14]"));
    EXPECT_EQ(a.null_count, 1);
    EXPECT_TRUE(ArraysEqual(a, expected));
  }
  EXPECT_EQ(releases, 1);

  // Malformed input is refused, and still released exactly once.
  ArrowArray bad = make();
  bad.n_buffers = 3;
  releases = 0;
  EXPECT_TRUE(ImportArray(&bad, MakeType(TypeId::kInt32)).status().IsInvalidArgument());
  EXPECT_EQ(releases, 1);
  EXPECT_EQ(bad.release, nullptr);
  EXPECT_TRUE(ImportArray(&bad, MakeType(TypeId::kInt32)).status().IsInvalidArgument()) << "already released";

  ArrowArray wrong_count = make();
  wrong_count.null_count = 3;
  releases = 0;
  EXPECT_FALSE(ImportArray(&wrong_count, MakeType(TypeId::kInt32)).ok());
  EXPECT_EQ(releases, 1);

  ArrowArray too_long = make();
  too_long.length = int64_t{1} << 62;
  releases = 0;
  EXPECT_FALSE(ImportArray(&too_long, MakeType(TypeId::kInt32)).ok());
  EXPECT_EQ(releases, 1);
}

TEST(CDataTest, ImportRejectsDecreasingOffsets) {
  int32_t offsets[3] = {0, 3, 1};
  const char data[] = "abc";
  const void* buffers[3] = {nullptr, offsets, data};
  int releases = 0;
  ArrowArray c{};
  c.length = 2;
  c.n_buffers = 3;
  c.buffers = buffers;
  c.release = &ForeignInt32::Release;
  c.private_data = &releases;
  EXPECT_FALSE(ImportArray(&c, MakeType(TypeId::kUtf8)).ok());
  EXPECT_EQ(releases, 1);
}

TEST(CDataTest, UnsupportedFormatIsReleased) {
  Field f = MakeField("u", MakeType(TypeId::kInt32));
  ArrowSchema s;
  ASSERT_OK(ExportField(f, &s));
  s.format = "+ud:0,1";  // a union: no Lancet type
  EXPECT_TRUE(ImportField(&s).status().IsNotSupported());
  EXPECT_EQ(s.release, nullptr);
  EXPECT_TRUE(ImportField(&s).status().IsInvalidArgument());
}

RecordBatch SampleBatch(int64_t seed) {
  auto ints = ArrayFromJson(MakeType(TypeId::kInt64), "[" + std::to_string(seed) + ", null, 3]").MoveValue();
  auto strs = StringArray({"a", "b" + std::to_string(seed), std::nullopt});
  auto lists = ArrayFromJson(ListOf(MakeField("item", MakeType(TypeId::kInt8))), "[[1], null, [2, 3]]").MoveValue();
  auto batch = MakeRecordBatch({"i", "s", "l"}, {ints, strs, lists}).MoveValue();
  batch.schema.metadata = {{"k", "v"}};
  return batch;
}

bool BatchesEqual(const RecordBatch& a, const RecordBatch& b) {
  if (a.num_rows != b.num_rows || a.columns.size() != b.columns.size() || !(a.schema.fields == b.schema.fields)) {
    return false;
  }
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (!ArraysEqual(a.columns[i], b.columns[i])) return false;
  }
  return true;
}

TEST(CDataTest, RecordBatchRoundTrip) {
  RecordBatch batch = SampleBatch(1);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_OK(ExportRecordBatch(batch, &c_array, &c_schema));
  EXPECT_STREQ(c_schema.format, "+s");
  EXPECT_EQ(c_array.n_children, 3);
  ASSERT_OK_AND_ASSIGN(RecordBatch back, ImportRecordBatch(&c_array, &c_schema));
  EXPECT_TRUE(BatchesEqual(back, batch));
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_EQ(c_schema.release, nullptr);

  // A struct with an offset: columns come back sliced.
  ASSERT_OK(ExportRecordBatch(batch, &c_array));
  c_array.offset = 1;
  c_array.length = 2;
  ASSERT_OK_AND_ASSIGN(RecordBatch tail, ImportRecordBatch(&c_array, batch.schema));
  EXPECT_EQ(tail.num_rows, 2);
  EXPECT_TRUE(ArraysEqual(tail.columns[1], Slice(batch.columns[1], 1, 2)));

  RecordBatch mismatched = batch;
  mismatched.columns.pop_back();
  EXPECT_FALSE(ExportRecordBatch(mismatched, &c_array).ok());
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CDataTest, StreamRoundTrip) {
  std::vector<RecordBatch> batches = {SampleBatch(1), SampleBatch(2), SampleBatch(3)};
  ArrowArrayStream stream;
  ASSERT_OK(ExportBatchStream(batches[0].schema, batches, &stream));
  ASSERT_OK_AND_ASSIGN(auto result, ImportBatchStream(&stream));
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(result.first.fields, batches[0].schema.fields);
  EXPECT_EQ(result.first.metadata, batches[0].schema.metadata);
  ASSERT_EQ(result.second.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(BatchesEqual(result.second[i], batches[i])) << i;
}

TEST(CDataTest, StreamDrivenByHand) {
  ArrowArrayStream stream;
  ASSERT_OK(ExportBatchStream(SampleBatch(1).schema, {SampleBatch(7)}, &stream));
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  ArrowArray a;
  ASSERT_EQ(stream.get_next(&stream, &a), 0);
  ASSERT_NE(a.release, nullptr);
  EXPECT_EQ(a.length, 3);
  stream.release(&stream);  // the batch outlives the stream
  EXPECT_EQ(stream.release, nullptr);
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportRecordBatch(&a, SampleBatch(7).schema));
  EXPECT_TRUE(BatchesEqual(b, SampleBatch(7)));

  ASSERT_OK(ExportBatchStream(SampleBatch(1).schema, {}, &stream));
  ASSERT_EQ(stream.get_next(&stream, &a), 0);
  EXPECT_EQ(a.release, nullptr);  // end of stream
  stream.release(&stream);
}

TEST(CDataTest, EmptyAndAllNullArrays) {
  for (const auto& [name, a] : SampleArrays()) {
    SCOPED_TRACE(name);
    for (int64_t n : {0, 3}) {
      ASSERT_OK_AND_ASSIGN(Array nulls, MakeNullArray(a.type, n));
      ArrowArray c;
      ASSERT_OK(ExportArray(nulls, &c));
      if (n == 0) {
        for (int64_t i = 1; i < c.n_buffers; ++i) EXPECT_NE(c.buffers[i], nullptr) << "slot " << i;
      }
      ASSERT_OK_AND_ASSIGN(Array back, ImportArray(&c, a.type));
      EXPECT_TRUE(ArraysEqual(back, nulls));
    }
  }
}

}  // namespace
}  // namespace lancet
