#include <lz4.h>
#include <zstd.h>

#include "encoding_test_util.h"

namespace lancet::encoding {
namespace {

using namespace testing;  // NOLINT

pb::CompressiveEncoding GeneralEnc(pb::CompressionScheme scheme, pb::CompressiveEncoding inner) {
  pb::CompressiveEncoding e;
  e.mutable_general()->mutable_compression()->set_scheme(scheme);
  *e.mutable_general()->mutable_values() = std::move(inner);
  return e;
}

std::vector<uint8_t> Lz4Frame(const std::vector<uint8_t>& raw) {
  std::vector<uint8_t> out;
  Put<uint32_t>(&out, static_cast<uint32_t>(raw.size()));
  std::vector<char> tmp(LZ4_compressBound(static_cast<int>(raw.size())));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(raw.data()), tmp.data(), static_cast<int>(raw.size()),
                               static_cast<int>(tmp.size()));
  out.insert(out.end(), tmp.begin(), tmp.begin() + n);
  return out;
}

std::vector<uint8_t> ZstdFrame(const std::vector<uint8_t>& raw, bool prefix) {
  std::vector<uint8_t> out;
  if (prefix) Put<uint64_t>(&out, raw.size());
  std::vector<uint8_t> tmp(ZSTD_compressBound(raw.size()));
  size_t n = ZSTD_compress(tmp.data(), tmp.size(), raw.data(), raw.size(), 3);
  out.insert(out.end(), tmp.begin(), tmp.begin() + n);
  return out;
}

std::vector<uint8_t> SampleInts(size_t n) {
  std::vector<uint8_t> raw;
  for (size_t i = 0; i < n; ++i) Put<int64_t>(&raw, static_cast<int64_t>(i % 17) - 8);
  return raw;
}

TEST(GeneralTest, Lz4Block) {
  auto raw = SampleInts(1000);
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(GeneralEnc(pb::COMPRESSION_ALGORITHM_LZ4, FlatEnc(64)),
                                                Bytes(Lz4Frame(raw)), 1000));
  auto v = Values<int64_t>(b);
  EXPECT_EQ(v[0], -8);
  EXPECT_EQ(v[999], static_cast<int64_t>(999 % 17) - 8);
}

TEST(GeneralTest, ZstdPrefixedAndBare) {
  auto raw = SampleInts(5000);
  auto enc = GeneralEnc(pb::COMPRESSION_ALGORITHM_ZSTD, FlatEnc(64));
  ASSERT_OK_AND_ASSIGN(DataBlock a, DecodeBlock(enc, Bytes(ZstdFrame(raw, true)), 5000));
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeBlock(enc, Bytes(ZstdFrame(raw, false)), 5000));
  EXPECT_EQ(Values<int64_t>(a), Values<int64_t>(b));
  EXPECT_EQ(Values<int64_t>(a)[4999], static_cast<int64_t>(4999 % 17) - 8);
}

TEST(GeneralTest, MiniBlockCompressesOnlyTheFirstBuffer) {
  auto chunk = VariableChunk({"alpha", "beta", std::string(3000, 'g')});
  std::vector<BufferPtr> bufs = {Bytes(Lz4Frame(chunk))};
  ASSERT_OK_AND_ASSIGN(DataBlock b,
                       DecodeMiniBlockChunk(GeneralEnc(pb::COMPRESSION_ALGORITHM_LZ4, VariableEnc()), bufs, 3));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{"alpha", "beta", std::string(3000, 'g')}));
}

TEST(GeneralTest, FullZipPerValue) {
  std::vector<uint8_t> big(40000, 'q');
  auto z0 = ZstdFrame(big, true);
  std::vector<uint8_t> small = {'h', 'i'};
  auto z2 = ZstdFrame(small, true);
  std::vector<std::span<const uint8_t>> values = {z0, {}, z2};
  ASSERT_OK_AND_ASSIGN(DataBlock b, DecodeFullZipVariable(GeneralEnc(pb::COMPRESSION_ALGORITHM_ZSTD, VariableEnc()),
                                                          values, nullptr));
  EXPECT_EQ(Strings(b), (std::vector<std::string>{std::string(40000, 'q'), "", "hi"}));
}

TEST(GeneralTest, Corrupt) {
  auto raw = SampleInts(100);
  auto lz = Lz4Frame(raw);
  auto lz_enc = GeneralEnc(pb::COMPRESSION_ALGORITHM_LZ4, FlatEnc(64));
  for (size_t cut : {size_t{0}, size_t{3}, size_t{10}, lz.size() - 1}) {
    EXPECT_CORRUPT(DecodeBlock(lz_enc, Bytes(std::vector<uint8_t>(lz.begin(), lz.begin() + cut)), 100));
  }
  auto lying = lz;
  lying[0] = 0xFF;
  lying[1] = 0xFF;
  lying[2] = 0xFF;
  lying[3] = 0x7F;  // claims ~2 GiB
  EXPECT_CORRUPT(DecodeBlock(lz_enc, Bytes(lying), 100));
  std::vector<uint8_t> garbage(64, 0xAB);
  EXPECT_CORRUPT(DecodeBlock(lz_enc, Bytes(garbage), 100));

  auto z = ZstdFrame(raw, true);
  auto z_enc = GeneralEnc(pb::COMPRESSION_ALGORITHM_ZSTD, FlatEnc(64));
  EXPECT_CORRUPT(DecodeBlock(z_enc, Bytes(std::vector<uint8_t>(z.begin(), z.end() - 3)), 100));
  auto z_lying = z;
  z_lying[7] = 0x10;  // size prefix far beyond what the frame could hold
  EXPECT_CORRUPT(DecodeBlock(z_enc, Bytes(z_lying), 100));
  EXPECT_CORRUPT(DecodeBlock(z_enc, Bytes(garbage), 100));
  // Decompressed fine, but too short for the values asked for.
  EXPECT_CORRUPT(DecodeBlock(z_enc, Bytes(z), 101));
  EXPECT_NOT_SUPPORTED(DecodeBlock(GeneralEnc(pb::COMPRESSION_ALGORITHM_UNSPECIFIED, FlatEnc(64)), Bytes(z), 100));
  pb::CompressiveEncoding no_inner;
  no_inner.mutable_general()->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_LZ4);
  EXPECT_CORRUPT(DecodeBlock(no_inner, Bytes(lz), 100));
}

}  // namespace
}  // namespace lancet::encoding
