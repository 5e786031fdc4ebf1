// Avro container files: zigzag varints, round trips of every modelled type, both codecs,
// the verbatim schema and header keys, and hostile input.
#include "lancet/format/avro.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace lancet::format::avro {
namespace {

constexpr const char* kEntrySchema = R"({"type":"record","name":"entry","fields":[
  {"name":"id","type":"long","field-id":1},
  {"name":"small","type":"int","field-id":2},
  {"name":"flag","type":"boolean","field-id":3},
  {"name":"name","type":["null","string"],"default":null,"field-id":4},
  {"name":"f","type":"float","field-id":5},
  {"name":"d","type":"double","field-id":6},
  {"name":"raw","type":"bytes","field-id":7},
  {"name":"uuid","type":{"type":"fixed","name":"u16","size":16},"field-id":8},
  {"name":"tags","type":{"type":"array","items":"string","element-id":10},"field-id":9},
  {"name":"props","type":{"type":"map","values":"long"},"field-id":11},
  {"name":"kv","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k12_v13",
     "fields":[{"name":"key","type":"int","field-id":12},{"name":"value","type":"bytes","field-id":13}]}}],
   "default":null,"field-id":14},
  {"name":"again","type":["null","u16"],"default":null,"field-id":15}
]})";

std::span<const uint8_t> AsSpan(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

Result<std::string> WriteAll(const std::string& schema, const std::vector<Value>& rows, WriteOptions options = {},
                             std::vector<std::pair<std::string, std::string>> meta = {}) {
  std::string out;
  ASSIGN_OR_RETURN(auto w, Writer::Open(
                               [&out](std::span<const uint8_t> b) {
                                 out.append(reinterpret_cast<const char*>(b.data()), b.size());
                                 return Status::OK();
                               },
                               schema, std::move(meta), options));
  for (const Value& v : rows) RETURN_IF_ERROR(w->Append(v));
  RETURN_IF_ERROR(w->Finish());
  if (w->bytes_written() != out.size()) return Status::Internal("bytes_written differs from the bytes");
  return out;
}

Value Row(int64_t i) {
  Record r;
  r.fields = {
      {"id", Value(i * 1000003 - 7)},
      {"small", Value(static_cast<int32_t>(-i))},
      {"flag", Value(i % 2 == 0)},
      {"name", i % 3 == 0 ? Value() : Value("row" + std::to_string(i))},
      {"f", Value(static_cast<float>(i) / 4)},
      {"d", Value(static_cast<double>(i) * 1e-3)},
      {"raw", Value(Bytes{std::string("\0\xff", 2) + std::to_string(i)})},
      {"uuid", Value(Bytes{std::string(16, static_cast<char>(i))})},
      {"tags", Value(Array{Value("a"), Value(std::to_string(i))})},
      {"props", Value(MapEntries{{"x", Value(i)}, {"y", Value(int64_t{-1})}})},
      {"kv", i % 2 ? Value() : Value(Array{Value(Record{{{"key", Value(int32_t{3})}, {"value", Value(Bytes{"v"})}}})})},
      {"again", i % 4 ? Value() : Value(Bytes{std::string(16, 'z')})}};
  return Value(std::move(r));
}

TEST(AvroVarint, ZigzagEdgeValuesRoundTripWithSpecBytes) {
  // The spec's table: 0→00, -1→01, 1→02, -2→03, 2→04, -64→7f, 64→80 01.
  const std::vector<std::pair<int64_t, std::string>> known = {{0, "\x00"}, {-1, "\x01"},  {1, "\x02"},     {-2, "\x03"},
                                                              {2, "\x04"}, {-64, "\x7f"}, {64, "\x80\x01"}};
  for (const auto& [v, bytes] : known) {
    std::string out;
    AppendLong(&out, v);
    EXPECT_EQ(out, std::string(bytes.data(), bytes.empty() ? 1 : bytes.size())) << v;
  }
  const int64_t edges[] = {std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max(),
                           std::numeric_limits<int32_t>::min(),
                           std::numeric_limits<int32_t>::max(),
                           int64_t{1} << 53,
                           -(int64_t{1} << 53) - 1,
                           63,
                           -65,
                           8191,
                           -8193};
  for (int64_t v : edges) {
    std::string out;
    AppendLong(&out, v);
    size_t pos = 0;
    auto back = ReadLong(AsSpan(out), &pos);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, v);
    EXPECT_EQ(pos, out.size());
  }
  std::string max_bytes;
  AppendLong(&max_bytes, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(max_bytes.size(), 10u);
}

TEST(AvroVarint, MalformedVarintsAreCorruption) {
  size_t pos = 0;
  std::string truncated = "\x80\x80";
  EXPECT_TRUE(ReadLong(AsSpan(truncated), &pos).status().IsCorruption());
  pos = 0;
  std::string too_long(11, '\xff');
  EXPECT_TRUE(ReadLong(AsSpan(too_long), &pos).status().IsCorruption());
  pos = 0;
  std::string overflow = std::string(9, '\xff') + "\x7f";
  EXPECT_TRUE(ReadLong(AsSpan(overflow), &pos).status().IsCorruption());
}

TEST(AvroFile, RoundTripsEveryTypeWithBothCodecs) {
  std::vector<Value> rows;
  for (int64_t i = 0; i < 500; ++i) rows.push_back(Row(i));
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    WriteOptions opts;
    opts.codec = codec;
    opts.block_bytes = 4096;  // many blocks
    auto bytes = WriteAll(kEntrySchema, rows, opts, {{"format-version", "2"}, {"content", "data"}});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto file = ReadFile(AsSpan(*bytes));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ(file->schema_json, kEntrySchema);  // verbatim: field-id and element-id survive
    EXPECT_EQ(file->metadata.at("avro.codec"), codec == Codec::kDeflate ? "deflate" : "null");
    EXPECT_EQ(file->metadata.at("format-version"), "2");
    EXPECT_EQ(file->metadata.at("content"), "data");
    ASSERT_EQ(file->records.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) EXPECT_TRUE(file->records[i] == rows[i]) << i;
  }
}

TEST(AvroFile, DeflateShrinksRepetitiveBlocks) {
  std::vector<Value> rows(2000, Row(6));
  auto plain = WriteAll(kEntrySchema, rows);
  WriteOptions opts;
  opts.codec = Codec::kDeflate;
  auto packed = WriteAll(kEntrySchema, rows, opts);
  ASSERT_TRUE(plain.ok() && packed.ok());
  EXPECT_LT(packed->size() * 10, plain->size());
}

TEST(AvroFile, EmptyFileHasHeaderOnly) {
  auto bytes = WriteAll(kEntrySchema, {});
  ASSERT_TRUE(bytes.ok());
  auto file = ReadFile(AsSpan(*bytes));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE(file->records.empty());
  EXPECT_EQ(bytes->substr(0, 4), std::string("Obj\x01", 4));
}

TEST(AvroWriter, RefusesValuesThatDoNotFitAndKeepsTheBlockWhole) {
  std::string out;
  auto w = Writer::Open(
      [&out](std::span<const uint8_t> b) {
        out.append(reinterpret_cast<const char*>(b.data()), b.size());
        return Status::OK();
      },
      kEntrySchema, {});
  ASSERT_TRUE(w.ok());
  Value bad = Row(1);
  std::get<Record>(bad.v).fields[0].second = Value("not a long");
  Status st = (*w)->Append(bad);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("id"), std::string::npos) << st.message();
  Value missing(Record{{{"id", Value(int64_t{1})}}});  // small is required
  EXPECT_TRUE((*w)->Append(missing).IsInvalidArgument());
  Value short_fixed = Row(2);
  std::get<Record>(short_fixed.v).fields[7].second = Value(Bytes{"abc"});
  EXPECT_TRUE((*w)->Append(short_fixed).IsInvalidArgument());
  ASSERT_TRUE((*w)->Append(Row(3)).ok());
  ASSERT_TRUE((*w)->Finish().ok());
  auto file = ReadFile(AsSpan(out));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->records.size(), 1u);
  EXPECT_TRUE(file->records[0] == Row(3));
}

TEST(AvroWriter, RefusesReservedKeysAndBadSchemas) {
  auto sink = [](std::span<const uint8_t>) { return Status::OK(); };
  EXPECT_TRUE(Writer::Open(sink, kEntrySchema, {{"avro.codec", "x"}}).status().IsInvalidArgument());
  EXPECT_TRUE(Writer::Open(sink, "{", {}).status().IsInvalidArgument());
  EXPECT_TRUE(Writer::Open(sink, R"({"type":"record","name":"r","fields":[{"name":"a","type":"nope"}]})", {})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(Writer::Open(sink, R"({"type":"enum","name":"e","symbols":["A"]})", {}).status().IsNotSupported());
}

TEST(AvroReader, HostileInputIsCorruptionNeverACrash) {
  std::vector<Value> rows;
  for (int64_t i = 0; i < 50; ++i) rows.push_back(Row(i));
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    WriteOptions opts;
    opts.codec = codec;
    opts.block_bytes = 512;
    auto good = WriteAll(kEntrySchema, rows, opts);
    ASSERT_TRUE(good.ok());
    // Every truncation fails cleanly (except at block boundaries, where a shorter file
    // is still a valid file with fewer records).
    for (size_t n = 0; n < good->size(); n += 7) {
      auto r = ReadFile(AsSpan(good->substr(0, n)));
      if (r.ok()) {
        EXPECT_LT(r->records.size(), rows.size());
      } else {
        EXPECT_TRUE(r.status().IsCorruption()) << n << ": " << r.status().ToString();
      }
    }
    // Flipped bytes: any outcome but a crash; errors are Corruption.
    for (size_t i = 0; i < good->size(); i += 3) {
      std::string bad = *good;
      bad[i] = static_cast<char>(bad[i] ^ 0x5a);
      auto r = ReadFile(AsSpan(bad));
      if (!r.ok()) {
        EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << r.status().ToString();
      }
    }
  }
  EXPECT_TRUE(ReadFile(AsSpan(std::string("PAR1"))).status().IsCorruption());
}

TEST(AvroReader, BoundsHugeCountsAndDepth) {
  // A header claiming 2^62 metadata entries.
  std::string h = "Obj\x01";
  AppendLong(&h, int64_t{1} << 62);
  EXPECT_TRUE(ReadFile(AsSpan(h)).status().IsCorruption());
  // An array of nulls claiming 2^40 items in a tiny block.
  const std::string schema = R"({"type":"array","items":"null"})";
  auto header = WriteAll(schema, {});
  ASSERT_TRUE(header.ok());
  auto parsed = ReadFile(AsSpan(*header));
  ASSERT_TRUE(parsed.ok());
  std::string body;
  AppendLong(&body, int64_t{1} << 40);
  AppendLong(&body, 0);
  std::string forged = *header;
  AppendLong(&forged, 1);
  AppendLong(&forged, static_cast<int64_t>(body.size()));
  forged += body + std::string(reinterpret_cast<const char*>(parsed->sync.data()), 16);
  auto r = ReadFile(AsSpan(forged));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  // A recursive schema nested past the depth limit.
  const std::string list = R"({"type":"record","name":"node","fields":[{"name":"next","type":["null","node"]}]})";
  Value v;
  for (int i = 0; i < 100; ++i) v = Value(Record{{{"next", v}}});
  auto deep = WriteAll(list, {v});
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_TRUE(ReadFile(AsSpan(*deep)).status().IsCorruption());
  ReadOptions loose;
  loose.max_depth = 1000;
  auto ok = ReadFile(AsSpan(*deep), loose);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ok->records[0] == v);
}

TEST(AvroReader, RefusesUnknownCodecAndMissingSync) {
  auto bytes = WriteAll(kEntrySchema, {Row(1)});
  ASSERT_TRUE(bytes.ok());
  std::string wrong_sync = *bytes;
  wrong_sync[wrong_sync.size() - 1] ^= 1;
  EXPECT_TRUE(ReadFile(AsSpan(wrong_sync)).status().IsCorruption());
  std::string snappy = *bytes;
  size_t at = snappy.find("null", snappy.find("avro.codec"));
  ASSERT_NE(at, std::string::npos);
  snappy.replace(at, 4, "zstd");
  EXPECT_TRUE(ReadFile(AsSpan(snappy)).status().IsNotSupported());
}

}  // namespace
}  // namespace lancet::format::avro
