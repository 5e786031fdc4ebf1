// The Parquet reader's building blocks on hand-made bytes: Thrift compact decoding,
// decompression, value and level decoders, and their failures on hostile input.
#include <gtest/gtest.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>

#include "format/parquet_decode.h"
#include "format/parquet_decompress.h"
#include "format/parquet_read_util.h"
#include "util/test_macros.h"

namespace lancet::format::parquet {
namespace {

using testing::CompactWriter;

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

ValueBuffer OfWidth(int32_t width) {
  ValueBuffer v;
  v.width = width;
  return v;
}

std::vector<int64_t> Ints(const ValueBuffer& v) {
  std::vector<int64_t> out;
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (v.width == 4) {
      int32_t x;
      std::memcpy(&x, v.data.data() + i * 4, 4);
      out.push_back(x);
    } else {
      int64_t x;
      std::memcpy(&x, v.data.data() + i * 8, 8);
      out.push_back(x);
    }
  }
  return out;
}

std::vector<std::string> Strings(const ValueBuffer& v) {
  std::vector<std::string> out;
  for (uint64_t i = 0; i < v.size(); ++i) {
    out.emplace_back(reinterpret_cast<const char*>(v.data.data()) + v.offsets[i], v.offsets[i + 1] - v.offsets[i]);
  }
  return out;
}

std::string Footer() {
  testing::Element root{.name = "schema", .repetition = -1, .num_children = 1};
  testing::Element a{
      .name = "a", .type = 1, .repetition = 1, .field_id = 7, .logical = 10, .logical_a = 16, .logical_b = 0};
  testing::Chunk chunk{.path = {"a"}, .type = PhysicalType::kInt32, .num_values = 0, .pages = ""};
  std::string file = testing::BuildFile({root, a}, {{0, {chunk}}}, {{"k", "v"}});
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  return file.substr(file.size() - 8 - len, len);
}

TEST(ParquetThrift, DecodesFileMetaData) {
  ASSERT_OK_AND_ASSIGN(FileMetaData meta, DecodeFileMetaData(Bytes(Footer())));
  ASSERT_EQ(meta.schema.size(), 2u);
  EXPECT_EQ(meta.schema[0].num_children, 1);
  EXPECT_EQ(meta.schema[1].name, "a");
  EXPECT_EQ(meta.schema[1].type, PhysicalType::kInt32);
  EXPECT_EQ(meta.schema[1].field_id, 7);
  EXPECT_EQ(meta.schema[1].logical_type.kind, LogicalType::Kind::kInteger);
  EXPECT_EQ(meta.schema[1].logical_type.bit_width, 16);
  EXPECT_FALSE(meta.schema[1].logical_type.is_signed);
  ASSERT_EQ(meta.row_groups.size(), 1u);
  ASSERT_EQ(meta.row_groups[0].columns.size(), 1u);
  EXPECT_EQ(meta.row_groups[0].columns[0].meta_data->path_in_schema, std::vector<std::string>{"a"});
  ASSERT_EQ(meta.key_value_metadata.size(), 1u);
  EXPECT_EQ(meta.key_value_metadata[0].value, "v");
}

TEST(ParquetThrift, SkipsUnknownFields) {
  CompactWriter w;
  w.I32(1, 2);
  w.BeginStruct(40);
  w.Binary(1, "x");
  w.BeginList(2, 5, 3);
  w.ListI32(1);
  w.ListI32(2);
  w.ListI32(3);
  w.EndStruct();
  w.I64(3, 42);
  w.Bool(50, true);
  ASSERT_OK_AND_ASSIGN(FileMetaData meta, DecodeFileMetaData(Bytes(w.Finish())));
  EXPECT_EQ(meta.num_rows, 42);
}

TEST(ParquetThrift, TruncationIsCorruption) {
  const std::string footer = Footer();
  for (size_t n = 0; n < footer.size(); ++n) {
    auto r = DecodeFileMetaData(Bytes(footer.substr(0, n)));
    EXPECT_TRUE(r.status().IsCorruption()) << n;
  }
}

TEST(ParquetThrift, DeepNestingAndHugeListsAreCorruption) {
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep.push_back(static_cast<char>(0x1c));  // field +1, struct
  EXPECT_TRUE(DecodeFileMetaData(Bytes(deep)).status().IsCorruption());
  CompactWriter w;
  w.BeginList(2, 12, 1u << 30);
  EXPECT_TRUE(DecodeFileMetaData(Bytes(w.Finish())).status().IsCorruption());
}

TEST(ParquetThrift, DecodesPageHeaders) {
  std::string h = testing::DataPageV1Header(100, 10, Encoding::kRleDictionary);
  size_t consumed = 0;
  ASSERT_OK_AND_ASSIGN(PageHeader ph, DecodePageHeader(Bytes(h + "trailing"), &consumed));
  EXPECT_EQ(consumed, h.size());
  EXPECT_EQ(ph.type, PageType::kDataPage);
  EXPECT_EQ(ph.compressed_page_size, 100);
  ASSERT_TRUE(ph.data_page_header);
  EXPECT_EQ(ph.data_page_header->num_values, 10);
  EXPECT_EQ(ph.data_page_header->encoding, Encoding::kRleDictionary);
  h = testing::DataPageV2Header(50, 9, 2, 4, Encoding::kDeltaBinaryPacked, 3, 5);
  ASSERT_OK_AND_ASSIGN(ph, DecodePageHeader(Bytes(h), &consumed));
  ASSERT_TRUE(ph.data_page_header_v2);
  EXPECT_EQ(ph.data_page_header_v2->num_nulls, 2);
  EXPECT_EQ(ph.data_page_header_v2->num_rows, 4);
  EXPECT_EQ(ph.data_page_header_v2->definition_levels_byte_length, 3);
  EXPECT_EQ(ph.data_page_header_v2->repetition_levels_byte_length, 5);
  EXPECT_FALSE(ph.data_page_header_v2->is_compressed);
}

TEST(ParquetDecode, RleAndBitPackedRuns) {
  // RLE run of 3 x value 5 (width 3), then one bit-packed group of 8 values 0..7.
  std::string data = {0x06, 0x05, 0x03};
  data += std::string("\x88\xc6\xfa", 3);  // 0..7 packed at 3 bits, LSB first
  RleBitPackedDecoder d(Bytes(data), 3);
  uint32_t out[11];
  ASSERT_OK(d.Get(out, 11));
  std::vector<uint32_t> got(out, out + 11);
  EXPECT_EQ(got, (std::vector<uint32_t>{5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(d.Get(out, 1).IsCorruption());
  RleBitPackedDecoder wide(Bytes(data), 40);
  EXPECT_TRUE(wide.Get(out, 1).IsCorruption());
}

TEST(ParquetDecode, BitPackedLevelsAreMsbFirst) {
  const std::string data = {static_cast<char>(0b00011011)};
  uint32_t out[4];
  ASSERT_OK(DecodeBitPackedLevels(Bytes(data), 2, 4, out));
  EXPECT_EQ(std::vector<uint32_t>(out, out + 4), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(DecodeBitPackedLevels(Bytes(data), 2, 5, out).IsCorruption());
}

// DELTA_BINARY_PACKED of 7 5 3 1 2 3 4 5: block 128 in 4 miniblocks, min delta -2, the
// first miniblock at 2 bits (deltas 0 0 0 3 3 3 3).
std::string DeltaExample() {
  std::string d = {static_cast<char>(0x80), 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00};
  std::string mini(8, '\0');
  mini[0] = static_cast<char>(0xc0);
  mini[1] = 0x3f;
  return d + mini;
}

TEST(ParquetDecode, DeltaBinaryPacked) {
  std::vector<int64_t> out;
  const std::string d = DeltaExample();
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeDeltaBinaryPacked(Bytes(d), 8, &out));
  EXPECT_EQ(used, d.size());
  EXPECT_EQ(out, (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  ValueBuffer v = OfWidth(4);
  ASSERT_OK(DecodeValues(Encoding::kDeltaBinaryPacked, PhysicalType::kInt32, Bytes(d), 8, nullptr, 1 << 20, &v));
  EXPECT_EQ(Ints(v), (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  out.clear();
  EXPECT_TRUE(DecodeDeltaBinaryPacked(Bytes(d), 7, &out).status().IsCorruption());
  for (size_t n = 0; n < d.size() - 7; ++n) {
    out.clear();
    EXPECT_FALSE(DecodeDeltaBinaryPacked(Bytes(d.substr(0, n)), 8, &out).ok()) << n;
  }
}

// DELTA_BINARY_PACKED of constant-delta values: header only plus a zero-width block.
std::string DeltaConstant(int64_t first, int64_t delta, uint8_t count) {
  auto zz = [](int64_t v) { return static_cast<char>((v << 1) ^ (v >> 63)); };
  std::string d = {static_cast<char>(0x80), 0x01, 0x04, static_cast<char>(count), zz(first)};
  if (count > 1) d += std::string{zz(delta), 0, 0, 0, 0};
  return d;
}

TEST(ParquetDecode, DeltaLengthAndDeltaByteArray) {
  ValueBuffer v;
  std::string dlba = DeltaConstant(2, 0, 3) + "abcdef";
  ASSERT_OK(
      DecodeValues(Encoding::kDeltaLengthByteArray, PhysicalType::kByteArray, Bytes(dlba), 3, nullptr, 1 << 20, &v));
  EXPECT_EQ(Strings(v), (std::vector<std::string>{"ab", "cd", "ef"}));
  // "apple", "applet", "apply": prefixes 0 5 4, suffixes "apple" "t" "y".
  const std::string prefixes = testing::DeltaBinaryPacked({0, 5, 4});
  const std::string suffix_lengths = testing::DeltaBinaryPacked({5, 1, 1});
  ValueBuffer s;
  std::string dba = prefixes + suffix_lengths + "applety";
  ASSERT_OK(DecodeValues(Encoding::kDeltaByteArray, PhysicalType::kByteArray, Bytes(dba), 3, nullptr, 1 << 20, &s));
  EXPECT_EQ(Strings(s), (std::vector<std::string>{"apple", "applet", "apply"}));
  // A prefix longer than the previous value is corrupt.
  std::string bad = DeltaConstant(1, 0, 1) + DeltaConstant(1, 0, 1) + "x";
  ValueBuffer b;
  EXPECT_TRUE(DecodeValues(Encoding::kDeltaByteArray, PhysicalType::kByteArray, Bytes(bad), 1, nullptr, 1 << 20, &b)
                  .IsCorruption());
}

TEST(ParquetDecode, ByteStreamSplit) {
  float in[3] = {1.5f, -2.0f, 3.25f};
  std::string streams(12, '\0');
  for (int i = 0; i < 3; ++i) {
    for (int b = 0; b < 4; ++b) streams[b * 3 + i] = reinterpret_cast<const char*>(&in[i])[b];
  }
  ValueBuffer v = OfWidth(4);
  ASSERT_OK(DecodeValues(Encoding::kByteStreamSplit, PhysicalType::kFloat, Bytes(streams), 3, nullptr, 1 << 20, &v));
  ASSERT_EQ(v.data.size(), 12u);
  EXPECT_EQ(std::memcmp(v.data.data(), in, 12), 0);
  ValueBuffer w = OfWidth(4);
  EXPECT_TRUE(DecodeValues(Encoding::kByteStreamSplit, PhysicalType::kFloat, Bytes(streams), 4, nullptr, 1 << 20, &w)
                  .IsCorruption());
}

TEST(ParquetDecode, PlainAndDictionary) {
  ValueBuffer dict;
  ASSERT_OK(DecodeValues(Encoding::kPlain, PhysicalType::kByteArray, Bytes(testing::PlainStrings({"x", "yz"})), 2,
                         nullptr, 1 << 20, &dict));
  // Bit width 1, one RLE run of 2 x index 1, one of 1 x index 0.
  const std::string idx = {0x01, 0x04, 0x01, 0x02, 0x00};
  ValueBuffer v;
  ASSERT_OK(DecodeValues(Encoding::kRleDictionary, PhysicalType::kByteArray, Bytes(idx), 3, &dict, 1 << 20, &v));
  EXPECT_EQ(Strings(v), (std::vector<std::string>{"yz", "yz", "x"}));
  const std::string out_of_range = {0x02, 0x02, 0x03};
  EXPECT_TRUE(
      DecodeValues(Encoding::kRleDictionary, PhysicalType::kByteArray, Bytes(out_of_range), 1, &dict, 1 << 20, &v)
          .IsCorruption());
  EXPECT_TRUE(DecodeValues(Encoding::kRleDictionary, PhysicalType::kByteArray, Bytes(idx), 1, nullptr, 1 << 20, &v)
                  .IsCorruption());
  ValueBuffer b = OfWidth(1);
  const std::string bits = {0b00000101};
  ASSERT_OK(DecodeValues(Encoding::kPlain, PhysicalType::kBoolean, Bytes(bits), 3, nullptr, 1 << 20, &b));
  EXPECT_EQ(b.data, (std::vector<uint8_t>{1, 0, 1}));
  ValueBuffer s;
  std::string truncated = testing::PlainStrings({"hello"});
  truncated.pop_back();
  EXPECT_TRUE(DecodeValues(Encoding::kPlain, PhysicalType::kByteArray, Bytes(truncated), 1, nullptr, 1 << 20, &s)
                  .IsCorruption());
  ValueBuffer limited;
  EXPECT_TRUE(DecodeValues(Encoding::kPlain, PhysicalType::kByteArray, Bytes(testing::PlainStrings({"hello"})), 1,
                           nullptr, 3, &limited)
                  .IsCorruption());
}

class ParquetDecompress : public ::testing::TestWithParam<bool> {};

// Every codec, on a page of text and on an empty page (an all-null v2 page's values).
TEST_P(ParquetDecompress, EveryCodecRoundTrips) {
  std::string raw;
  for (int i = 0; GetParam() && i < 5000; ++i) raw += std::to_string(i % 97);
  std::string snappy_out;
  snappy::Compress(raw.data(), raw.size(), &snappy_out);
  std::string zstd_out(ZSTD_compressBound(raw.size()), '\0');
  zstd_out.resize(ZSTD_compress(zstd_out.data(), zstd_out.size(), raw.data(), raw.size(), 3));
  std::string lz4_out(LZ4_compressBound(static_cast<int>(raw.size())), '\0');
  lz4_out.resize(
      LZ4_compress_default(raw.data(), lz4_out.data(), static_cast<int>(raw.size()), static_cast<int>(lz4_out.size())));
  uLongf gz_len = compressBound(raw.size());
  std::string gz_out(gz_len, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(gz_out.data()), &gz_len, reinterpret_cast<const Bytef*>(raw.data()),
                     raw.size()),
            Z_OK);
  gz_out.resize(gz_len);
  // Hadoop framing: big-endian raw and compressed lengths before the block.
  auto be = [](uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
  };
  std::string hadoop = be(static_cast<uint32_t>(raw.size())) + be(static_cast<uint32_t>(lz4_out.size())) + lz4_out;
  const std::pair<Codec, std::string> cases[] = {
      {Codec::kSnappy, snappy_out}, {Codec::kZstd, zstd_out}, {Codec::kLz4Raw, lz4_out},  {Codec::kGzip, gz_out},
      {Codec::kLz4, hadoop},        {Codec::kLz4, lz4_out},   {Codec::kUncompressed, raw}};
  for (const auto& [codec, bytes] : cases) {
    ASSERT_OK_AND_ASSIGN(BufferPtr out, DecompressPage(codec, Bytes(bytes), raw.size()));
    EXPECT_EQ(out->view(), raw) << static_cast<int>(codec);
    EXPECT_FALSE(DecompressPage(codec, Bytes(bytes), raw.size() + 1).ok()) << static_cast<int>(codec);
    if (raw.empty()) continue;
    EXPECT_FALSE(DecompressPage(codec, Bytes(bytes.substr(0, bytes.size() / 2)), raw.size()).ok())
        << static_cast<int>(codec);
  }
  EXPECT_TRUE(DecompressPage(Codec::kBrotli, Bytes(raw), raw.size()).status().IsNotSupported());
}

INSTANTIATE_TEST_SUITE_P(TextAndEmpty, ParquetDecompress, ::testing::Bool());

}  // namespace
}  // namespace lancet::format::parquet
