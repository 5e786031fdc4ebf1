// FixedSizeList, PackedStruct and VariablePackedStruct values.
#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

pb::CompressiveEncoding FslEnc(uint64_t dim, bool validity, pb::CompressiveEncoding inner) {
  pb::CompressiveEncoding e;
  e.mutable_fixed_size_list()->set_items_per_value(dim);
  e.mutable_fixed_size_list()->set_has_validity(validity);
  *e.mutable_fixed_size_list()->mutable_values() = std::move(inner);
  return e;
}

TEST(FixedSizeListTest, MiniBlockPlain) {
  std::vector<uint8_t> items;
  for (float f : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f}) Put<float>(&items, f);
  std::vector<BufferPtr> bufs = {Bytes(items)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FslEnc(2, false, FlatEnc(32)), bufs, 3));
  EXPECT_EQ(b.kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(b.dimension, 2u);
  EXPECT_EQ(b.num_values, 3u);
  EXPECT_EQ(b.item_validity, nullptr);
  EXPECT_EQ(Values<float>(b.children[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(FixedSizeListTest, MiniBlockWithValidity) {
  std::vector<uint8_t> items;
  for (int32_t v : {1, 0, 3, 4}) Put<int32_t>(&items, v);
  std::vector<BufferPtr> bufs = {Bytes(std::vector<uint8_t>{0b1101}), Bytes(items)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FslEnc(2, true, FlatEnc(32)), bufs, 2));
  ASSERT_NE(b.item_validity, nullptr);
  EXPECT_EQ(b.item_validity->data()[0] & 0xF, 0b1101);
  EXPECT_EQ(Values<int32_t>(b.children[0]), (std::vector<int32_t>{1, 0, 3, 4}));
  std::vector<BufferPtr> missing = {Bytes(items)};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FslEnc(2, true, FlatEnc(32)), missing, 2));
}

TEST(FixedSizeListTest, FullZipRowsWithValidity) {
  // dim 10: each row is 2 bitmap bytes then 10 u16 items.
  std::vector<uint8_t> rows;
  for (int r = 0; r < 3; ++r) {
    uint16_t bits = r == 1 ? 0x3FF & ~(1u << 9) : 0x3FF;
    Put<uint16_t>(&rows, bits);
    for (int k = 0; k < 10; ++k) Put<uint16_t>(&rows, static_cast<uint16_t>(r * 10 + k));
  }
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipFixed(FslEnc(10, true, FlatEnc(16)), Bytes(rows), 3));
  auto items = Values<uint16_t>(b.children[0]);
  ASSERT_EQ(items.size(), 30u);
  EXPECT_EQ(items[29], 29);
  const uint8_t* v = b.item_validity->data();
  for (int i = 0; i < 30; ++i) EXPECT_EQ((v[i / 8] >> (i % 8)) & 1, i == 19 ? 0 : 1) << i;
  EXPECT_CORRUPT(DecodeFullZipFixed(FslEnc(10, true, FlatEnc(16)), Bytes(rows), 4));
}

TEST(FixedSizeListTest, NestedLists) {
  std::vector<uint8_t> items;
  for (uint8_t i = 0; i < 12; ++i) items.push_back(i);
  std::vector<BufferPtr> bufs = {Bytes(items)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(FslEnc(2, false, FslEnc(3, false, FlatEnc(8))), bufs, 2));
  EXPECT_EQ(b.dimension, 2u);
  EXPECT_EQ(b.num_values, 2u);
  ASSERT_EQ(b.children[0].kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(b.children[0].num_values, 4u);
  EXPECT_EQ(b.children[0].children[0].num_values, 12u);
}

TEST(FixedSizeListTest, Corrupt) {
  std::vector<BufferPtr> bufs = {Bytes(std::vector<uint8_t>(8, 0))};
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FslEnc(0, false, FlatEnc(32)), bufs, 1));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FslEnc(uint64_t{1} << 62, false, FlatEnc(32)), bufs, 8));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(FslEnc(4, false, FlatEnc(32)), bufs, 1));
  EXPECT_NOT_SUPPORTED(DecodeMiniBlockChunk(FslEnc(2, false, VariableEnc()), bufs, 1));
}

TEST(PackedStructTest, SplitsRows) {
  pb::CompressiveEncoding e;
  e.mutable_packed_struct()->add_bits_per_value(32);
  e.mutable_packed_struct()->add_bits_per_value(8);
  *e.mutable_packed_struct()->mutable_values() = FlatEnc(40);
  std::vector<uint8_t> rows;
  for (int r = 0; r < 3; ++r) {
    Put<int32_t>(&rows, r * 100);
    rows.push_back(static_cast<uint8_t>(r + 1));
  }
  std::vector<BufferPtr> bufs = {Bytes(rows)};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeMiniBlockChunk(e, bufs, 3));
  ASSERT_EQ(b.kind, DataBlock::Kind::kStruct);
  ASSERT_EQ(b.children.size(), 2u);
  EXPECT_EQ(Values<int32_t>(b.children[0]), (std::vector<int32_t>{0, 100, 200}));
  EXPECT_EQ(Values<uint8_t>(b.children[1]), (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_CORRUPT(DecodeMiniBlockChunk(e, bufs, 4));
  e.mutable_packed_struct()->mutable_values()->mutable_flat()->set_bits_per_value(48);
  EXPECT_CORRUPT(DecodeMiniBlockChunk(e, bufs, 1));
}

pb::CompressiveEncoding BlobDescriptorEnc() {
  pb::CompressiveEncoding e;
  auto* vps = e.mutable_variable_packed_struct();
  auto add_fixed = [&](uint64_t bits) {
    auto* f = vps->add_fields();
    *f->mutable_value() = FlatEnc(bits);
    f->set_bits_per_value(bits);
  };
  add_fixed(8);
  add_fixed(64);
  auto* v = vps->add_fields();
  *v->mutable_value() = VariableEnc();
  v->set_bits_per_length(32);
  return e;
}

TEST(VariablePackedStructTest, RowsAndNulls) {
  std::vector<uint8_t> r0 = {3};
  Put<uint64_t>(&r0, 12345);
  Put<uint32_t>(&r0, 4);
  for (char c : std::string("s3:/")) r0.push_back(static_cast<uint8_t>(c));
  std::vector<uint8_t> r2 = {0};
  Put<uint64_t>(&r2, 7);
  Put<uint32_t>(&r2, 0);
  std::vector<std::span<const uint8_t>> values = {r0, {}, r2};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipVariable(BlobDescriptorEnc(), values, nullptr));
  ASSERT_EQ(b.kind, DataBlock::Kind::kStruct);
  ASSERT_EQ(b.children.size(), 3u);
  EXPECT_EQ(Values<uint8_t>(b.children[0]), (std::vector<uint8_t>{3, 0, 0}));
  EXPECT_EQ(Values<uint64_t>(b.children[1]), (std::vector<uint64_t>{12345, 0, 7}));
  EXPECT_EQ(Strings(b.children[2]), (std::vector<std::string>{"s3:/", "", ""}));
}

TEST(VariablePackedStructTest, TruncatedRows) {
  std::vector<uint8_t> row = {3};
  Put<uint64_t>(&row, 1);
  Put<uint32_t>(&row, 10);
  row.push_back('x');
  for (size_t cut = 1; cut <= row.size(); ++cut) {
    std::vector<uint8_t> t(row.begin(), row.begin() + cut);
    std::vector<std::span<const uint8_t>> values = {t};
    EXPECT_CORRUPT(DecodeFullZipVariable(BlobDescriptorEnc(), values, nullptr));
  }
  pb::CompressiveEncoding no_fields;
  no_fields.mutable_variable_packed_struct();
  std::vector<std::span<const uint8_t>> values = {row};
  EXPECT_CORRUPT(DecodeFullZipVariable(no_fields, values, nullptr));
}

}  // namespace
}  // namespace lancet::encoding
