// The writer's data-dependent encodings (dictionary, FSST, RLE, bit-packed
// levels): each is chosen for the data it suits, skipped for data it does not,
// and reads back.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "format/repdef_writer.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

DataType T(TypeId id) { return MakeType(id); }

RecordBatch OneColumn(const Field& field, Array a) {
  RecordBatch b;
  b.schema.fields = {field};
  b.num_rows = a.length;
  b.columns = {std::move(a)};
  return b;
}

// Writes `batch`, reads every field back, compares, and returns the file's
// stats.
FileStats RoundTrip(const RecordBatch& batch, FileWriterOptions options = {}) {
  auto store = io::NewMemoryStore();
  auto writer = FileWriter::Open(store, "f.lance", batch.schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return {};
  EXPECT_TRUE((*writer)->Write(batch).ok());
  const Schema schema = (*writer)->schema();
  auto stats = (*writer)->Finish();
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  auto file = store->OpenRead("f.lance");
  EXPECT_TRUE(file.ok());
  auto reader = FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(*file)));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  auto leaves = internal::LeafColumnsOf(schema);
  EXPECT_TRUE(leaves.ok());
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    std::vector<int> cols;
    for (size_t c = 0; c < leaves->size(); ++c) {
      if ((*leaves)[c].top_level_index == static_cast<int>(f)) cols.push_back(static_cast<int>(c));
    }
    auto got = (*reader)->ReadRange(schema.fields[f], cols, 0, static_cast<uint64_t>(batch.num_rows));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (got.ok()) {
      EXPECT_TRUE(ArraysEqual(*got, batch.columns[f])) << "field " << schema.fields[f].name;
    }
    // A middle range starts inside a page, a chunk and (for RLE) a run.
    const uint64_t b = static_cast<uint64_t>(batch.num_rows) / 3 + 1, e = static_cast<uint64_t>(batch.num_rows) - 7;
    auto part = (*reader)->ReadRange(schema.fields[f], cols, b, e);
    EXPECT_TRUE(part.ok()) << part.status().ToString();
    std::vector<int64_t> idx;
    for (uint64_t i = b; i < e; ++i) idx.push_back(static_cast<int64_t>(i));
    auto want = TakeRows(batch.columns[f], idx);
    if (part.ok() && want.ok()) {
      EXPECT_TRUE(ArraysEqual(*part, *want)) << "field " << schema.fields[f].name << " part";
    }
    // A sparse take (a few rows per chunk, out of order, one repeated) decodes only the
    // values and levels it needs; it must equal the same rows of the input.
    std::vector<uint64_t> rows;
    std::vector<int64_t> rows_i;
    std::mt19937_64 rng(static_cast<uint64_t>(batch.num_rows) + f);
    for (int k = 0; k < 40 && batch.num_rows > 0; ++k) rows.push_back(rng() % static_cast<uint64_t>(batch.num_rows));
    if (!rows.empty()) rows.push_back(rows[0]);
    for (uint64_t r : rows) rows_i.push_back(static_cast<int64_t>(r));
    auto taken = (*reader)->Take(schema.fields[f], cols, rows);
    EXPECT_TRUE(taken.ok()) << taken.status().ToString();
    auto expect = TakeRows(batch.columns[f], rows_i);
    if (taken.ok() && expect.ok()) {
      EXPECT_TRUE(ArraysEqual(*taken, *expect)) << "field " << schema.fields[f].name << " take";
    }
  }
  return stats.ok() ? *stats : FileStats{};
}

bool Uses(const FileStats& stats, const std::string& what) {
  for (const auto& c : stats.columns) {
    for (const auto& e : c.encodings) {
      if (e.find(what) != std::string::npos) return true;
    }
  }
  return false;
}

Array Strings(const std::vector<std::optional<std::string>>& v) { return *MakeBinaryArray(T(TypeId::kUtf8), v); }

TEST(FileWriterEncodingsTest, LowCardinalityStringsUseADictionary) {
  const std::vector<std::string> words = {"red", "green", "blue", "", "a much longer colour name"};
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 20000; ++i) {
    if (i % 13 == 0) {
      v.push_back(std::nullopt);
    } else {
      v.push_back(words[(i * 7) % words.size()]);
    }
  }
  const FileStats stats = RoundTrip(OneColumn(MakeField("c", T(TypeId::kUtf8)), Strings(v)));
  EXPECT_TRUE(Uses(stats, "dictionary")) << stats.columns[0].encodings[0];
  FileWriterOptions off;
  off.enable_dictionary = false;
  const FileStats plain = RoundTrip(OneColumn(MakeField("c", T(TypeId::kUtf8)), Strings(v)), off);
  EXPECT_FALSE(Uses(plain, "dictionary"));
  EXPECT_LT(stats.columns[0].bytes * 3, plain.columns[0].bytes);
}

TEST(FileWriterEncodingsTest, UniqueStringsSkipTheDictionaryAndUseFsst) {
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 20000; ++i) v.push_back("user-" + std::to_string((i * 7919) % 1000003));
  const FileStats stats = RoundTrip(OneColumn(MakeField("c", T(TypeId::kUtf8), false), Strings(v)));
  EXPECT_FALSE(Uses(stats, "dictionary"));
  EXPECT_TRUE(Uses(stats, "Fsst")) << stats.columns[0].encodings[0];
  FileWriterOptions off;
  off.enable_fsst = false;
  const FileStats plain = RoundTrip(OneColumn(MakeField("c", T(TypeId::kUtf8), false), Strings(v)), off);
  EXPECT_FALSE(Uses(plain, "Fsst"));
  EXPECT_LT(stats.columns[0].bytes * 10, plain.columns[0].bytes * 7);
}

TEST(FileWriterEncodingsTest, FsstWithNullsAndFieldCompressionOverrides) {
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 8000; ++i) {
    if (i % 4 == 0) {
      v.push_back(std::nullopt);
    } else {
      v.push_back("https://example.com/item/" + std::to_string(i * 31 % 99991) + "?q=" + std::to_string(i));
    }
  }
  EXPECT_TRUE(Uses(RoundTrip(OneColumn(MakeField("c", T(TypeId::kUtf8)), Strings(v))), "Fsst"));
  for (const char* scheme : {"none", "zstd"}) {
    Field f = MakeField("c", T(TypeId::kUtf8));
    f.metadata[kCompressionKey] = scheme;
    const FileStats stats = RoundTrip(OneColumn(f, Strings(v)));
    EXPECT_FALSE(Uses(stats, "Fsst")) << scheme;
  }
}

TEST(FileWriterEncodingsTest, FieldMetadataCanForceFsst) {
  // Too little data for FSST by default, but the field asks for it.
  std::vector<std::optional<std::string>> v = {"abc", std::nullopt, "", "abcabc", "xyz"};
  for (int i = 0; i < 200; ++i) v.push_back("k" + std::to_string(i));
  Field f = MakeField("c", T(TypeId::kUtf8));
  EXPECT_FALSE(Uses(RoundTrip(OneColumn(f, Strings(v))), "Fsst"));
  f.metadata[kCompressionKey] = "fsst";
  EXPECT_TRUE(Uses(RoundTrip(OneColumn(f, Strings(v))), "Fsst"));
}

TEST(FileWriterEncodingsTest, RandomBytesStayPlain) {
  std::mt19937 rng(3);
  std::vector<std::optional<std::string>> v;
  for (int i = 0; i < 5000; ++i) {
    std::string s(8 + rng() % 30, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    v.push_back(s);
  }
  const FileStats stats =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kBinary)), *MakeBinaryArray(T(TypeId::kBinary), v)));
  EXPECT_FALSE(Uses(stats, "Fsst"));
  EXPECT_FALSE(Uses(stats, "dictionary"));
}

template <typename C>
void ExpectRle(TypeId id, bool nullable) {
  SCOPED_TRACE(T(id).ToString());
  std::vector<C> v;
  std::vector<bool> valid;
  for (int i = 0; i < 30000; ++i) {
    v.push_back(static_cast<C>((i / 300) % 97));  // runs of 300, longer than one u8 length
    valid.push_back(!nullable || i % 1000 != 999);
  }
  Array a = *ArrayFromVector(T(id), v, valid);
  const FileStats stats = RoundTrip(OneColumn(MakeField("c", T(id), nullable), a));
  EXPECT_TRUE(Uses(stats, "Rle")) << stats.columns[0].encodings[0];
}

TEST(FileWriterEncodingsTest, LongRunsUseRle) {
  ExpectRle<int8_t>(TypeId::kInt8, false);
  ExpectRle<int16_t>(TypeId::kInt16, true);
  ExpectRle<int32_t>(TypeId::kInt32, true);
  ExpectRle<int64_t>(TypeId::kInt64, false);
  ExpectRle<double>(TypeId::kFloat64, true);
}

TEST(FileWriterEncodingsTest, EqualValuesMakeConstantPages) {
  std::vector<int64_t> v(5000, -7);
  const FileStats stats =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt64), false), *ArrayFromVector(T(TypeId::kInt64), v)));
  EXPECT_TRUE(Uses(stats, "constant value"));
  EXPECT_EQ(stats.columns[0].bytes, 0u);
  // A nullable column without nulls in the page is constant too.
  EXPECT_TRUE(Uses(RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt64)), *ArrayFromVector(T(TypeId::kInt64), v))),
                   "constant value"));
  // With nulls the levels need a page with buffers: RLE then.
  std::vector<bool> valid(5000, true);
  valid[17] = false;
  const FileStats nullable =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt64)), *ArrayFromVector(T(TypeId::kInt64), v, valid)));
  EXPECT_FALSE(Uses(nullable, "constant"));
  EXPECT_TRUE(Uses(nullable, "Rle"));
}

TEST(FileWriterEncodingsTest, EqualStringsMakeConstantPages) {
  for (TypeId id : {TypeId::kUtf8, TypeId::kLargeBinary}) {
    std::vector<std::optional<std::string>> v(3000, std::string("same"));
    const FileStats stats = RoundTrip(OneColumn(MakeField("c", T(id), false), *MakeBinaryArray(T(id), v)));
    EXPECT_TRUE(Uses(stats, "constant value")) << T(id).ToString();
    EXPECT_LT(stats.columns[0].bytes, 64u);
  }
}

TEST(FileWriterEncodingsTest, LowCardinalityInt64UsesADictionary) {
  std::vector<int64_t> v;
  std::vector<bool> valid;
  for (int i = 0; i < 10000; ++i) {
    v.push_back((int64_t{(i * 7) % 23} << 45) + 11);
    valid.push_back(i % 9 != 0);
  }
  const FileStats stats =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt64)), *ArrayFromVector(T(TypeId::kInt64), v, valid)));
  EXPECT_TRUE(Uses(stats, "dictionary")) << stats.columns[0].encodings[0];
  EXPECT_LT(stats.columns[0].bytes, v.size());
  // 32-bit values never pay for u32 indices.
  std::vector<int32_t> small(10000, 0);
  for (size_t i = 0; i < small.size(); ++i) small[i] = static_cast<int32_t>((i * 7) % 23) << 20;
  const FileStats s32 =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt32)), *ArrayFromVector(T(TypeId::kInt32), small)));
  EXPECT_FALSE(Uses(s32, "dictionary"));
}

TEST(FileWriterEncodingsTest, ShortRunsDoNotUseRle) {
  std::vector<int32_t> v;
  for (int i = 0; i < 10000; ++i) v.push_back(i % 2 == 0 ? i : i - 1);  // runs of 2
  const FileStats stats =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt32)), *ArrayFromVector(T(TypeId::kInt32), v)));
  EXPECT_FALSE(Uses(stats, "Rle"));
  EXPECT_TRUE(Uses(stats, "InlineBitpacking"));
}

TEST(FileWriterEncodingsTest, DictionaryIndicesInListsAndPages) {
  // Nested strings: a dictionary under repetition levels, cut into several
  // pages.
  Field item = MakeField("item", T(TypeId::kUtf8));
  Field list = MakeField("l", ListOf(item));
  std::vector<std::optional<std::string>> items;
  std::vector<int64_t> offsets{0};
  std::vector<bool> list_valid;
  for (int r = 0; r < 30000; ++r) {
    list_valid.push_back(r % 17 != 0);
    for (int k = 0; k < r % 4 && r % 17 != 0; ++k) {
      items.push_back(k == 2 ? std::nullopt : std::optional<std::string>("tag" + std::to_string((r + k) % 9)));
    }
    offsets.push_back(static_cast<int64_t>(items.size()));
  }
  Array child = Strings(items);
  Array a = *MakeListArray(list.type, offsets, child, list_valid);
  FileWriterOptions small_pages;
  small_pages.max_page_bytes = 64 * 1024;
  const FileStats stats = RoundTrip(OneColumn(list, a), small_pages);
  EXPECT_TRUE(Uses(stats, "dictionary"));
  EXPECT_GT(stats.columns[0].num_pages, 1u);
}

TEST(FileWriterEncodingsTest, LevelsAreBitPacked) {
  // 1-bit definition levels cost about 1/16 of raw u16 levels.
  std::vector<int64_t> v(50000);
  std::vector<bool> valid(50000);
  std::mt19937 rng(5);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int64_t>(rng());
    valid[i] = rng() % 4 != 0;
  }
  const FileStats stats =
      RoundTrip(OneColumn(MakeField("c", T(TypeId::kInt64)), *ArrayFromVector(T(TypeId::kInt64), v, valid)));
  // Values are bit-packed 32-bit randoms (~4 bytes each); levels add ~0.125
  // bytes.
  EXPECT_LT(stats.columns[0].bytes, v.size() * 4 + v.size() / 4);
}

}  // namespace
}  // namespace lancet::format
