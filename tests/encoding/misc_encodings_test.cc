// Dictionary lookup, ByteStreamSplit, Constant, levels, descriptions and dispatch errors.
#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

DataBlock U8Block(std::vector<uint8_t> v) {
  uint64_t n = v.size();
  return DataBlock::Fixed(8, n, Buffer::FromVector(std::move(v)));
}

TEST(DictionaryTest, VariableItemsWithNullSlot) {
  // The null slot's placeholder ("") is an ordinary dictionary item.
  std::vector<uint8_t> block;
  Put<uint32_t>(&block, 32);
  Put<uint32_t>(&block, 8 + 16);
  for (uint32_t o : {0, 3, 3, 8}) Put<uint32_t>(&block, o);
  for (char c : std::string("catzebra")) block.push_back(static_cast<uint8_t>(c));
  ASSERT_OK_AND_ASSIGN(DataBlock items, DecodeBlock(VariableEnc(), Bytes(block), 3));
  ASSERT_OK_AND_ASSIGN(DataBlock out, ApplyDictionary(U8Block({2, 0, 1, 2, 0}), items));
  EXPECT_EQ(Strings(out), (std::vector<std::string>{"zebra", "cat", "", "zebra", "cat"}));
}

TEST(DictionaryTest, FixedItems) {
  std::vector<uint8_t> raw;
  for (int64_t v : {-5, 10, 99}) Put<int64_t>(&raw, v);
  DataBlock items = DataBlock::Fixed(64, 3, Bytes(raw));
  std::vector<uint8_t> idx;
  for (uint32_t i : {1, 1, 2, 0}) Put<uint32_t>(&idx, i);
  ASSERT_OK_AND_ASSIGN(DataBlock out, ApplyDictionary(DataBlock::Fixed(32, 4, Bytes(idx)), items));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{10, 10, 99, -5}));
  ASSERT_OK_AND_ASSIGN(DataBlock empty, ApplyDictionary(DataBlock::Fixed(32, 0, Buffer::Empty()), items));
  EXPECT_EQ(empty.num_values, 0u);
}

TEST(DictionaryTest, IndexOutOfRange) {
  DataBlock items = DataBlock::Fixed(64, 1, Bytes(std::vector<uint8_t>(8, 0)));
  EXPECT_CORRUPT(ApplyDictionary(U8Block({0, 1}), items));
  EXPECT_CORRUPT(ApplyDictionary(DataBlock::Fixed(12, 1, Bytes(std::vector<uint8_t>(2, 0))), items));
  EXPECT_CORRUPT(ApplyDictionary(DataBlock::Fixed(32, 10, Bytes(std::vector<uint8_t>(4, 0))), items));
}

// A take gathers a few values of a decoded chunk: every block kind keeps its shape.
TEST(GatherTest, EveryKind) {
  ASSERT_OK_AND_ASSIGN(DataBlock bits,
                       GatherValues(DataBlock::Fixed(1, 10, Bytes(std::vector<uint8_t>{0b10100101, 0b10})),
                                    std::vector<uint64_t>{0, 1, 2, 9, 9}));
  EXPECT_EQ(bits.num_values, 5u);
  EXPECT_EQ(bits.data->data()[0], 0b11101);  // bits 0, 1, 2, 9, 9 = 1, 0, 1, 1, 1
  std::vector<uint8_t> fsl_items;
  for (int32_t v = 0; v < 6; ++v) Put<int32_t>(&fsl_items, v);
  DataBlock fsl;
  fsl.kind = DataBlock::Kind::kFixedSizeList;
  fsl.num_values = 3;
  fsl.dimension = 2;
  fsl.children.push_back(DataBlock::Fixed(32, 6, Bytes(fsl_items)));
  fsl.item_validity = Bytes(std::vector<uint8_t>{0b011101});  // item 1 and 5 null
  ASSERT_OK_AND_ASSIGN(DataBlock g, GatherValues(fsl, std::vector<uint64_t>{2, 0}));
  ASSERT_EQ(g.kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(g.num_values, 2u);
  EXPECT_EQ(Values<int32_t>(g.children[0]), (std::vector<int32_t>{4, 5, 0, 1}));
  EXPECT_EQ(g.item_validity->data()[0], 0b0101);  // items 4, 5, 0, 1
  DataBlock st;
  st.kind = DataBlock::Kind::kStruct;
  st.num_values = 3;
  st.children.push_back(U8Block({7, 8, 9}));
  ASSERT_OK_AND_ASSIGN(DataBlock gs, GatherValues(st, std::vector<uint64_t>{1}));
  EXPECT_EQ(Values<uint8_t>(gs.children[0]), (std::vector<uint8_t>{8}));
  DataBlock empty;
  empty.num_values = 4;
  ASSERT_OK_AND_ASSIGN(DataBlock ge, GatherValues(empty, std::vector<uint64_t>{3, 1}));
  EXPECT_EQ(ge.num_values, 2u);
  EXPECT_CORRUPT(GatherValues(U8Block({1, 2}), std::vector<uint64_t>{2}));
}

TEST(ByteStreamSplitTest, Planes) {
  pb::CompressiveEncoding e;
  *e.mutable_byte_stream_split()->mutable_values() = FlatEnc(32);
  // Values 0x04030201 and 0x08070605 stored plane by plane.
  std::vector<BufferPtr> bufs = {Bytes(std::vector<uint8_t>{1, 5, 2, 6, 3, 7, 4, 8})};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(e, bufs, 2));
  EXPECT_EQ(Values<uint32_t>(b), (std::vector<uint32_t>{0x04030201, 0x08070605}));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(e, bufs, 3));
}

TEST(ConstantTest, ValueAndNull) {
  pb::CompressiveEncoding e;
  e.mutable_constant()->set_value(std::string("\x2a\x00\x00\x00", 4));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(e, nullptr, 3));
  EXPECT_EQ(Values<int32_t>(b), (std::vector<int32_t>{42, 42, 42}));
  pb::CompressiveEncoding null_enc;
  null_enc.mutable_constant();
  ASSERT_OK_AND_ASSIGN(DataBlock n, DecodeBlock(null_enc, nullptr, 5));
  EXPECT_EQ(n.kind, DataBlock::Kind::kEmpty);
  EXPECT_EQ(n.num_values, 5u);
  EXPECT_CORRUPT(DecodeBlock(e, nullptr, uint64_t{1} << 62));
}

TEST(LevelsTest, Widths) {
  ASSERT_OK_AND_ASSIGN(auto l8, ToLevels(U8Block({0, 1, 2}), 3));
  EXPECT_EQ(l8, (std::vector<uint16_t>{0, 1, 2}));
  std::vector<uint8_t> raw;
  Put<uint32_t>(&raw, 3);
  Put<uint32_t>(&raw, 70000);
  EXPECT_CORRUPT(ToLevels(DataBlock::Fixed(32, 2, Bytes(raw)), 2));
  EXPECT_CORRUPT(ToLevels(U8Block({0, 1}), 3));
  EXPECT_CORRUPT(ToLevels(DataBlock::Fixed(1, 8, Bytes(std::vector<uint8_t>{0xFF})), 8));
}

TEST(DescribeTest, Trees) {
  pb::CompressiveEncoding inl;
  inl.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(32);
  EXPECT_EQ(DescribeEncoding(inl), "InlineBitpacking(32)");
  pb::CompressiveEncoding gen;
  gen.mutable_general()->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
  *gen.mutable_general()->mutable_values() = VariableEnc();
  EXPECT_EQ(DescribeEncoding(gen), "General(zstd, Variable(Flat(32)))");
}

TEST(DispatchTest, UnknownOneofIsNotSupported) {
  // Field 14 (Range in newer writers) is unknown to this proto: it lands in unknown fields.
  pb::CompressiveEncoding range;
  ASSERT_TRUE(range.ParseFromString(std::string("\x72\x00", 2)));
  std::vector<BufferPtr> bufs = {Buffer::Empty()};
  auto r = DecodeMiniBlockChunk(range, bufs, 1);
  EXPECT_NOT_SUPPORTED(r);
  EXPECT_NE(r.status().message().find("Range"), std::string::npos) << r.status().ToString();
  EXPECT_NOT_SUPPORTED(DecodeBlock(range, nullptr, 1));
  EXPECT_NOT_SUPPORTED(DecodeFullZipFixed(range, nullptr, 1));
  EXPECT_NOT_SUPPORTED(DecodeFullZipVariable(range, {}, nullptr));
  EXPECT_EQ(DescribeEncoding(range), "Range(14)");
  pb::CompressiveEncoding empty;
  EXPECT_NOT_SUPPORTED(DecodeBlock(empty, nullptr, 0));
  // Known encodings in a context they cannot appear in.
  pb::CompressiveEncoding vps;
  vps.mutable_variable_packed_struct();
  EXPECT_NOT_SUPPORTED(DecodeMiniBlockChunk(vps, bufs, 1));
  pb::CompressiveEncoding dict;
  dict.mutable_dictionary();
  EXPECT_NOT_SUPPORTED(DecodeBlock(dict, nullptr, 1));
}

}  // namespace
}  // namespace lancet::encoding
