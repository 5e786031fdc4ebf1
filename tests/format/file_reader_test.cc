// FileReader on small files built in memory, and on damaged files.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "format_test_util.h"
#include "lancet/format/file_reader.h"

namespace lancet::format {
namespace {

namespace pb = ::lance::encodings21;
using testing::Bytes;
using testing::FileBuilder;
using testing::FlatEncoding;
using testing::MiniBlockPage;
using testing::OpenBytes;
using testing::ValueToJson;
using testing::VariableEncoding;
using nlohmann::json;

json Column(const Array& a) {
  json out = json::array();
  for (int64_t i = 0; i < a.length; ++i) out.push_back(ValueToJson(a, i));
  return out;
}

// A file with: i (int32, 5 rows), n (nullable int32), l (list<int32>), s (utf8).
std::string SampleFile() {
  FileBuilder b(5);
  b.AddField("i", 0, -1, "int32", false);
  b.AddField("n", 1, -1, "int32", true);
  b.AddField("l", 2, -1, "list", true);
  b.AddField("item", 3, 2, "int32", false);
  b.AddField("s", 4, -1, "string", true);
  b.AddColumn({MiniBlockPage(FlatEncoding(32), Bytes(std::vector<int32_t>{10, 11, 12, 13, 14}), 5, 5, {}, {},
                             {pb::REPDEF_ALL_VALID_ITEM})});
  b.AddColumn({MiniBlockPage(FlatEncoding(32), Bytes(std::vector<int32_t>{1, 0, 3, 4, 0}), 5, 5, {},
                             {0, 1, 0, 0, 1}, {pb::REPDEF_NULLABLE_ITEM})});
  // Rows: [1, 2], null, [], [3], [4, 5]: null = def 1, empty = def 2 (NULL_AND_EMPTY_LIST).
  b.AddColumn({MiniBlockPage(FlatEncoding(32), Bytes(std::vector<int32_t>{1, 2, 3, 4, 5}), 5, 5,
                             {1, 0, 1, 1, 1, 1, 0}, {0, 0, 1, 2, 0, 0, 0},
                             {pb::REPDEF_ALL_VALID_ITEM, pb::REPDEF_NULL_AND_EMPTY_LIST})});
  // Variable chunk: 6 offsets starting at (n+1)*4 = 24, then the bytes, padded to 4.
  std::string var = Bytes(std::vector<uint32_t>{24, 25, 27, 27, 27, 30}) + "abcxyz";
  while (var.size() % 4) var.push_back('H');
  b.AddColumn({MiniBlockPage(VariableEncoding(), var, 5, 5, {}, {0, 0, 0, 1, 0}, {pb::REPDEF_NULLABLE_ITEM})});
  return b.Finish();
}

Schema SampleSchema(const FileReader& r) { return r.file_schema(); }

TEST(FileReader, ReadsHandMadeMiniBlockFile) {
  auto f = OpenBytes(SampleFile());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto& r = *f->reader;
  EXPECT_EQ(r.num_rows(), 5u);
  EXPECT_EQ(r.num_columns(), 4u);
  EXPECT_EQ(r.version().ToString(), "2.2");
  const Schema schema = SampleSchema(r);
  ASSERT_EQ(schema.fields.size(), 4u);
  std::vector<json> expected = {
      json::parse("[10, 11, 12, 13, 14]"),
      json::parse("[1, null, 3, 4, null]"),
      json::parse("[[1, 2], null, [], [3], [4, 5]]"),
      json::parse(R"(["a", "bc", "", null, "xyz"])"),
  };
  for (int c = 0; c < 4; ++c) {
    std::vector<int> cols = {c};
    auto a = r.ReadRange(schema.fields[c], cols, 0, 5);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_TRUE(a->Validate().ok()) << a->Validate().ToString();
    EXPECT_EQ(Column(*a), expected[c]) << schema.fields[c].name;
    std::vector<uint64_t> rows = {4, 0, 2, 2, 3};
    auto t = r.Take(schema.fields[c], cols, rows);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    for (size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(ValueToJson(*t, k), expected[c][rows[k]]);
    auto part = r.ReadRange(schema.fields[c], cols, 1, 4);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    for (int k = 0; k < 3; ++k) EXPECT_EQ(ValueToJson(*part, k), expected[c][k + 1]);
  }
  // A leaf the file lacks reads as nulls.
  std::vector<int> missing = {-1};
  auto nulls = r.ReadRange(schema.fields[0], missing, 0, 5);
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ(nulls->null_count, 5);
  // Wrong leaf count is the caller's error.
  std::vector<int> two = {0, 1};
  EXPECT_TRUE(r.ReadRange(schema.fields[0], two, 0, 5).status().IsInvalidArgument());
  EXPECT_TRUE(r.ReadRange(schema.fields[0], missing, 0, 6).status().IsInvalidArgument());
  auto desc = r.DescribeColumn(2);
  ASSERT_TRUE(desc.ok());
  EXPECT_NE(desc->find("NULL_AND_EMPTY_LIST"), std::string::npos) << *desc;
}

std::string FullZipAndConstantFile() {
  FileBuilder b(3);
  b.AddField("s", 0, -1, "string", true);
  b.AddField("k", 1, -1, "int32", false);
  b.AddField("z", 2, -1, "int32", true);
  // Full-zip variable: rows "hello", null, "" with a 1-byte control word (def).
  FileBuilder::Page fz;
  fz.rows = 3;
  auto* l = fz.layout.mutable_full_zip_layout();
  l->set_bits_def(1);
  l->set_bits_per_offset(32);
  l->set_num_items(3);
  l->set_num_visible_items(3);
  *l->mutable_value_compression() = VariableEncoding();
  l->add_layers(pb::REPDEF_NULLABLE_ITEM);
  std::string data;
  data += '\0';
  data += Bytes(std::vector<uint32_t>{5}) + "hello";
  data += '\1';
  data += '\0';
  data += Bytes(std::vector<uint32_t>{0});
  fz.buffers = {data, Bytes(std::vector<uint8_t>{0, 10, 11, 16})};
  b.AddColumn({fz});
  FileBuilder::Page k;
  k.rows = 3;
  k.layout.mutable_constant_layout()->set_inline_value(Bytes(std::vector<int32_t>{42}));
  k.layout.mutable_constant_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  b.AddColumn({k});
  FileBuilder::Page z;
  z.rows = 3;
  z.layout.mutable_constant_layout()->add_layers(pb::REPDEF_NULLABLE_ITEM);
  b.AddColumn({z});
  return b.Finish();
}

TEST(FileReader, ReadsFullZipAndConstantPages) {
  auto f = OpenBytes(FullZipAndConstantFile());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto& r = *f->reader;
  const Schema schema = r.file_schema();
  std::vector<json> expected = {json::parse(R"(["hello", null, ""])"), json::parse("[42, 42, 42]"),
                                json::parse("[null, null, null]")};
  for (int c = 0; c < 3; ++c) {
    std::vector<int> cols = {c};
    auto a = r.ReadRange(schema.fields[c], cols, 0, 3);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(Column(*a), expected[c]);
  }
  // One variable-width full-zip value: the index entries, then the value.
  std::vector<int> cols = {0};
  std::vector<uint64_t> rows = {2};
  auto before = f->store->stats().Snapshot();
  auto t = r.Take(schema.fields[0], cols, rows);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(ValueToJson(*t, 0), "");
  EXPECT_EQ(f->store->stats().Snapshot().read_requests - before.read_requests, 2u);
}

void ExpectCorrupt(const std::string& bytes, const std::string& what) {
  auto f = OpenBytes(bytes, "mem/bad.lance");
  ASSERT_FALSE(f.ok()) << what;
  EXPECT_TRUE(f.status().IsCorruption()) << what << ": " << f.status().ToString();
  EXPECT_NE(f.status().message().find("mem/bad.lance"), std::string::npos) << f.status().ToString();
}

void PutU64At(std::string* s, size_t pos, uint64_t v) { std::memcpy(s->data() + pos, &v, 8); }
uint64_t U64At(const std::string& s, size_t pos) {
  uint64_t v;
  std::memcpy(&v, s.data() + pos, 8);
  return v;
}

TEST(FileReader, RejectsDamagedFiles) {
  const std::string good = SampleFile();
  const size_t footer = good.size() - 40;
  ExpectCorrupt(good.substr(0, good.size() - 1), "truncated by one byte");
  ExpectCorrupt(good.substr(0, 10), "ten bytes");
  ExpectCorrupt("", "empty");
  {
    std::string s = good;
    s[s.size() - 1] = 'X';
    ExpectCorrupt(s, "wrong magic");
  }
  {
    std::string s = good;
    PutU64At(&s, footer + 8, good.size() + 100);  // column offset table past the end
    ExpectCorrupt(s, "cmo table past end");
  }
  {
    std::string s = good;
    uint64_t cmo = U64At(good, footer + 8);
    PutU64At(&s, cmo + 8, 1ULL << 40);  // column 0 metadata claims a terabyte
    ExpectCorrupt(s, "column metadata terabyte");
  }
  {
    std::string s = good;
    uint64_t cmo = U64At(good, footer + 8);
    uint64_t pos = U64At(good, cmo), size = U64At(good, cmo + 8);
    for (uint64_t i = 0; i < size; ++i) s[pos + i] = static_cast<char>(0xFF);
    ExpectCorrupt(s, "garbage column metadata");
  }
  {
    std::string s = good;
    uint64_t gbo = U64At(good, footer + 16);
    uint64_t pos = U64At(good, gbo), size = U64At(good, gbo + 8);
    for (uint64_t i = 0; i < size; ++i) s[pos + i] = static_cast<char>(0xFF);
    ExpectCorrupt(s, "garbage schema");
  }
  {
    std::string s = good;
    uint32_t huge = 0xFFFFFFFF;
    std::memcpy(s.data() + footer + 28, &huge, 4);  // 4 billion columns
    ExpectCorrupt(s, "column count");
  }
  {
    // A page buffer claiming terabytes.
    FileBuilder b(2);
    b.AddField("i", 0, -1, "int32", false);
    auto page = MiniBlockPage(FlatEncoding(32), Bytes(std::vector<int32_t>{1, 2}), 2, 2, {}, {},
                              {pb::REPDEF_ALL_VALID_ITEM});
    b.AddColumn({page});
    std::string s = b.Finish();
    // The chunk-metadata word says the chunk is 2^28*8 bytes long: found when reading.
    auto f = OpenBytes(s, "mem/bad.lance");
    ASSERT_TRUE(f.ok());
    std::string chunk_meta(4, '\0');
    uint32_t word = 0xFFFFFFF0;
    std::memcpy(chunk_meta.data(), &word, 4);
    FileBuilder b2(2);
    b2.AddField("i", 0, -1, "int32", false);
    page.buffers[0] = chunk_meta;
    b2.AddColumn({page});
    auto f2 = OpenBytes(b2.Finish(), "mem/bad.lance");
    ASSERT_TRUE(f2.ok());
    std::vector<int> cols = {0};
    auto a = f2->reader->ReadRange(f2->reader->file_schema().fields[0], cols, 0, 2);
    ASSERT_FALSE(a.ok());
    EXPECT_TRUE(a.status().IsCorruption()) << a.status().ToString();
    EXPECT_NE(a.status().message().find("mem/bad.lance"), std::string::npos) << a.status().ToString();
  }
}

TEST(FileReader, OldVersionsAreNotSupported) {
  const std::string good = SampleFile();
  for (auto [major, minor] : std::vector<std::pair<uint16_t, uint16_t>>{{0, 3}, {0, 2}, {0, 1}, {3, 0}}) {
    std::string s = good;
    std::memcpy(s.data() + s.size() - 8, &major, 2);
    std::memcpy(s.data() + s.size() - 6, &minor, 2);
    auto f = OpenBytes(s);
    ASSERT_FALSE(f.ok());
    EXPECT_TRUE(f.status().IsNotSupported()) << f.status().ToString();
  }
  std::string s = good;
  uint16_t one = 1;
  std::memcpy(s.data() + s.size() - 6, &one, 2);
  EXPECT_TRUE(OpenBytes(s).ok()) << "2.1 footers are accepted";
}

// Random damage must give an error or values, never a crash or a hang.
void Mutate(const std::string& good, int iterations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int it = 0; it < iterations; ++it) {
    std::string s = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      size_t pos = rng() % s.size();
      s[pos] = static_cast<char>(rng() % 3 == 0 ? 0xFF : rng() % 256);
    }
    if (rng() % 10 == 0) s.resize(rng() % s.size());
    auto f = OpenBytes(s);
    if (!f.ok()) continue;
    const Schema schema = f->reader->file_schema();
    auto columns = testing::LeafColumnsByField(schema);
    size_t total = 0;
    for (const auto& c : columns) total += c.size();
    if (total != f->reader->num_columns()) continue;
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      uint64_t n = std::min<uint64_t>(f->reader->num_rows(), 1 << 16);
      (void)f->reader->ReadRange(schema.fields[i], columns[i], 0, n);
      std::vector<uint64_t> rows = {0};
      if (n > 0) (void)f->reader->Take(schema.fields[i], columns[i], rows);
    }
  }
}

TEST(FileReader, SurvivesRandomDamage) {
  Mutate(SampleFile(), 3000, 1);
  Mutate(FullZipAndConstantFile(), 2000, 2);
  for (const auto& path : testing::CorpusDataFiles("versions")) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Mutate(bytes, 500, 3);
  }
}

}  // namespace
}  // namespace lancet::format
