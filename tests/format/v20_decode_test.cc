// Lance 2.0 page decoders and the 2.0 FileReader on hand-built pages and files.
#include <google/protobuf/any.pb.h>
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "encoding/bitpacking.h"
#include "format/format_test_util.h"
#include "format/v20_decode.h"
#include "lance_proto/file.pb.h"
#include "lance_proto/file2.pb.h"
#include "util/test_macros.h"

namespace lancet::format::internal {
namespace {

using encoding::DataBlock;

template <typename T>
BufferPtr Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return Buffer::FromVector(std::move(b));
}

pb20::ArrayEncoding Flat(uint64_t bits, uint32_t buffer) {
  pb20::ArrayEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  e.mutable_flat()->mutable_buffer()->set_buffer_index(buffer);
  return e;
}

pb20::ArrayEncoding SomeNulls(pb20::ArrayEncoding validity, pb20::ArrayEncoding values) {
  pb20::ArrayEncoding e;
  *e.mutable_nullable()->mutable_some_nulls()->mutable_validity() = std::move(validity);
  *e.mutable_nullable()->mutable_some_nulls()->mutable_values() = std::move(values);
  return e;
}

pb20::ArrayEncoding NoNulls(pb20::ArrayEncoding values) {
  pb20::ArrayEncoding e;
  *e.mutable_nullable()->mutable_no_nulls()->mutable_values() = std::move(values);
  return e;
}

pb20::ArrayEncoding BinaryEnc(uint64_t null_adjustment) {
  pb20::ArrayEncoding e;
  *e.mutable_binary()->mutable_indices() = NoNulls(Flat(64, 0));
  *e.mutable_binary()->mutable_bytes() = Flat(8, 1);
  e.mutable_binary()->set_null_adjustment(null_adjustment);
  return e;
}

std::vector<std::string> Strings(const DataBlock& b) {
  std::vector<std::string> out;
  for (uint64_t i = 0; i < b.num_values; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(b.data->data()) + b.OffsetAt(i), b.OffsetAt(i + 1) - b.OffsetAt(i));
  }
  return out;
}

TEST(V20Decode, NullableFlat) {
  V20Buffers bufs;
  bufs.page = {Bytes<uint8_t>({0b1101}), Bytes<int32_t>({7, 0, 9, 10})};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(SomeNulls(Flat(1, 0), Flat(32, 1)), bufs, 4));
  EXPECT_EQ(a.values.bits_per_value, 32u);
  EXPECT_EQ(a.valid, (std::vector<uint8_t>{1, 0, 1, 1}));
  EXPECT_EQ(a.values.data->data_as<int32_t>()[3], 10);

  ASSERT_OK_AND_ASSIGN(V20Array none, DecodeV20Array(NoNulls(Flat(32, 1)), bufs, 4));
  EXPECT_TRUE(none.valid.empty());

  pb20::ArrayEncoding all;
  all.mutable_nullable()->mutable_all_nulls();
  ASSERT_OK_AND_ASSIGN(V20Array nulls, DecodeV20Array(all, bufs, 3));
  EXPECT_EQ(nulls.values.kind, DataBlock::Kind::kEmpty);
  EXPECT_EQ(nulls.valid, (std::vector<uint8_t>{0, 0, 0}));
}

TEST(V20Decode, BinaryWithNullAdjustment) {
  // ["ab", null, "", "cde"]: ends 2, 2+6, 2, 5 with null_adjustment 6.
  V20Buffers bufs;
  bufs.page = {Bytes<uint64_t>({2, 8, 2, 5}), Buffer::Copy(std::string_view("abcde"))};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(BinaryEnc(6), bufs, 4));
  EXPECT_EQ(Strings(a.values), (std::vector<std::string>{"ab", "", "", "cde"}));
  EXPECT_EQ(a.valid, (std::vector<uint8_t>{1, 0, 1, 1}));

  bufs.page[0] = Bytes<uint64_t>({3, 2, 2, 5});  // goes backwards
  EXPECT_TRUE(DecodeV20Array(BinaryEnc(6), bufs, 4).status().IsCorruption());
  bufs.page[0] = Bytes<uint64_t>({2, 2, 2, 50});  // past the bytes
  EXPECT_TRUE(DecodeV20Array(BinaryEnc(60), bufs, 4).status().IsCorruption());
}

TEST(V20Decode, Dictionary) {
  pb20::ArrayEncoding e;
  auto* d = e.mutable_dictionary();
  *d->mutable_indices() = NoNulls(Flat(8, 2));
  *d->mutable_items() = BinaryEnc(100);
  d->set_num_dictionary_items(2);
  V20Buffers bufs;
  bufs.page = {Bytes<uint64_t>({1, 3}), Buffer::Copy(std::string_view("xyz")), Bytes<uint8_t>({2, 0, 1, 2})};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(e, bufs, 4));
  EXPECT_EQ(Strings(a.values), (std::vector<std::string>{"yz", "", "x", "yz"}));
  EXPECT_EQ(a.valid, (std::vector<uint8_t>{1, 0, 1, 1}));
  bufs.page[2] = Bytes<uint8_t>({3, 0, 0, 0});
  EXPECT_TRUE(DecodeV20Array(e, bufs, 4).status().IsCorruption());
}

TEST(V20Decode, FixedSizeListWithItemNulls) {
  pb20::ArrayEncoding e;
  e.mutable_fixed_size_list()->set_dimension(2);
  *e.mutable_fixed_size_list()->mutable_items() = SomeNulls(Flat(1, 0), Flat(16, 1));
  V20Buffers bufs;
  bufs.page = {Bytes<uint8_t>({0b1011}), Bytes<int16_t>({1, 2, 3, 4})};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(e, bufs, 2));
  ASSERT_EQ(a.values.kind, DataBlock::Kind::kFixedSizeList);
  EXPECT_EQ(a.values.dimension, 2u);
  EXPECT_EQ(a.values.children[0].num_values, 4u);
  EXPECT_EQ(a.values.item_validity->data()[0] & 0xF, 0b1011);
  e.mutable_fixed_size_list()->set_dimension(0);
  EXPECT_TRUE(DecodeV20Array(e, bufs, 2).status().IsCorruption());
}

TEST(V20Decode, BitpackedSigned) {
  // 3-bit signed values -1, 2, -4, 3: 0b111, 0b010, 0b100, 0b011, LSB first.
  const uint16_t packed = 0b011'100'010'111;
  pb20::ArrayEncoding e;
  auto* bp = e.mutable_bitpacked();
  bp->set_compressed_bits_per_value(3);
  bp->set_uncompressed_bits_per_value(32);
  bp->set_signed_(true);
  V20Buffers bufs;
  bufs.page = {Bytes<uint16_t>({packed})};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(e, bufs, 4));
  const int32_t* v = a.values.data->data_as<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(v, v + 4), (std::vector<int32_t>{-1, 2, -4, 3}));
  EXPECT_TRUE(DecodeV20Array(e, bufs, 6).status().IsCorruption());  // 18 bits in 16
}

TEST(V20Decode, BitpackedForNonNegRoundTrip) {
  std::vector<uint32_t> values(1500);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i % 100);
  std::vector<uint32_t> padded(2048, 0);
  std::copy(values.begin(), values.end(), padded.begin());
  const uint32_t width = 7;
  std::vector<uint32_t> packed(2 * encoding::FastLanesWords<uint32_t>(width));
  for (int c = 0; c < 2; ++c) {
    encoding::FastLanesPack<uint32_t>(std::span<const uint32_t>(padded).subspan(c * 1024, 1024), width,
                                      std::span<uint32_t>(packed).subspan(c * packed.size() / 2, packed.size() / 2));
  }
  pb20::ArrayEncoding e;
  e.mutable_bitpacked_for_non_neg()->set_compressed_bits_per_value(width);
  e.mutable_bitpacked_for_non_neg()->set_uncompressed_bits_per_value(32);
  V20Buffers bufs;
  bufs.page = {Bytes(packed)};
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(e, bufs, values.size()));
  const uint32_t* v = a.values.data->data_as<uint32_t>();
  EXPECT_EQ(std::vector<uint32_t>(v, v + values.size()), values);
  bufs.page = {Bytes(std::vector<uint32_t>(packed.begin(), packed.begin() + packed.size() / 2))};
  EXPECT_TRUE(DecodeV20Array(e, bufs, values.size()).status().IsCorruption());
}

TEST(V20Decode, ConstantFixedSizeBinaryPackedStruct) {
  pb20::ArrayEncoding c;
  c.mutable_constant()->set_value(std::string("\x2a\0\0\0", 4));
  ASSERT_OK_AND_ASSIGN(V20Array a, DecodeV20Array(c, {}, 3));
  EXPECT_EQ(a.values.data->data_as<int32_t>()[2], 42);

  pb20::ArrayEncoding f;
  f.mutable_fixed_size_binary()->set_byte_width(2);
  *f.mutable_fixed_size_binary()->mutable_bytes() = Flat(8, 0);
  V20Buffers bufs;
  bufs.page = {Buffer::Copy(std::string_view("abcd"))};
  ASSERT_OK_AND_ASSIGN(V20Array b, DecodeV20Array(f, bufs, 2));
  EXPECT_EQ(Strings(b.values), (std::vector<std::string>{"ab", "cd"}));
  EXPECT_TRUE(DecodeV20Array(f, bufs, 3).status().IsCorruption());

  pb20::ArrayEncoding p;
  *p.mutable_packed_struct()->add_inner() = Flat(8, 0);
  *p.mutable_packed_struct()->add_inner() = Flat(16, 0);
  ASSERT_OK_AND_ASSIGN(V20Array s, DecodeV20Array(p, bufs, 1));
  ASSERT_EQ(s.values.children.size(), 2u);
  EXPECT_EQ(s.values.children[1].data->data()[1], 'c');
}

TEST(V20Decode, ListOffsets) {
  // [[A, B], null, [], [C, D, E]] with null_offset_adjustment 7 (the proto's example).
  pb20::List list;
  *list.mutable_offsets() = NoNulls(Flat(64, 0));
  list.set_null_offset_adjustment(7);
  list.set_num_items(5);
  V20Buffers bufs;
  bufs.page = {Bytes<uint64_t>({2, 9, 2, 5})};
  ASSERT_OK_AND_ASSIGN(V20ListPage lp, DecodeV20List(list, bufs, 4));
  EXPECT_EQ(lp.offsets, (std::vector<uint64_t>{0, 2, 2, 2, 5}));
  EXPECT_EQ(lp.valid, (std::vector<uint8_t>{1, 0, 1, 1}));
  list.set_num_items(4);
  EXPECT_TRUE(DecodeV20List(list, bufs, 4).status().IsCorruption());
}

TEST(V20Decode, CorruptAndUnsupported) {
  V20Buffers bufs;
  bufs.page = {Bytes<int32_t>({1, 2})};
  EXPECT_TRUE(DecodeV20Array(Flat(32, 0), bufs, 3).status().IsCorruption());      // short
  EXPECT_TRUE(DecodeV20Array(Flat(32, 5), bufs, 1).status().IsCorruption());      // no buffer 5
  EXPECT_TRUE(DecodeV20Array(Flat(32, 0), bufs, uint64_t{1} << 62).status().IsCorruption());  // overflow
  EXPECT_TRUE(DecodeV20Array(pb20::ArrayEncoding(), bufs, 1).status().IsCorruption());
  pb20::ArrayEncoding all;
  all.mutable_nullable()->mutable_all_nulls();
  EXPECT_TRUE(DecodeV20Array(all, bufs, uint64_t{1} << 40).status().IsCorruption());
  pb20::ArrayEncoding rle;
  rle.mutable_rle()->set_bits_per_value(32);
  Status st = DecodeV20Array(rle, bufs, 1).status();
  EXPECT_TRUE(st.IsNotSupported());
  EXPECT_NE(st.message().find("Rle"), std::string::npos) << st.ToString();
  pb20::ArrayEncoding zstd = Flat(32, 0);
  zstd.mutable_flat()->mutable_compression()->set_scheme("zstd");
  EXPECT_TRUE(DecodeV20Array(zstd, bufs, 1).status().IsNotSupported());
}

// ---- Whole 2.0 files

std::string AnyOf(const std::string& url, const std::string& value) {
  google::protobuf::Any any;
  any.set_type_url(url);
  any.set_value(value);
  return any.SerializeAsString();
}

void PutU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

struct V20Page {
  pb20::ArrayEncoding encoding;
  std::vector<std::string> buffers;
  uint64_t rows;
};

// A 2.0 container: pages, then the schema, column metadata, offset tables, footer 0.3.
std::string BuildV20File(const std::vector<::lance::file::Field>& fields,
                         const std::vector<std::vector<V20Page>>& columns, uint64_t num_rows) {
  std::string out;
  std::vector<std::string> metas;
  for (const auto& pages : columns) {
    ::lance::file::v2::ColumnMetadata cm;
    pb20::ColumnEncoding ce;
    ce.mutable_values();
    cm.mutable_encoding()->mutable_direct()->set_encoding(AnyOf("/lance.encodings.ColumnEncoding", ce.SerializeAsString()));
    for (const auto& page : pages) {
      auto* p = cm.add_pages();
      for (const auto& b : page.buffers) {
        while (out.size() % 64) out.push_back('H');
        p->add_buffer_offsets(out.size());
        p->add_buffer_sizes(b.size());
        out += b;
      }
      p->set_length(page.rows);
      p->mutable_encoding()->mutable_direct()->set_encoding(
          AnyOf("/lance.encodings.ArrayEncoding", page.encoding.SerializeAsString()));
    }
    metas.push_back(cm.SerializeAsString());
  }
  ::lance::file::FileDescriptor fd;
  for (const auto& f : fields) *fd.mutable_schema()->add_fields() = f;
  fd.set_length(num_rows);
  const uint64_t gb0 = out.size();
  const std::string gb0_bytes = fd.SerializeAsString();
  out += gb0_bytes;
  const uint64_t meta_start = out.size();
  std::vector<std::pair<uint64_t, uint64_t>> cmo;
  for (const auto& m : metas) {
    cmo.emplace_back(out.size(), m.size());
    out += m;
  }
  const uint64_t cmo_pos = out.size();
  for (auto [p, s] : cmo) {
    PutU64(&out, p);
    PutU64(&out, s);
  }
  const uint64_t gbo_pos = out.size();
  PutU64(&out, gb0);
  PutU64(&out, gb0_bytes.size());
  PutU64(&out, meta_start);
  PutU64(&out, cmo_pos);
  PutU64(&out, gbo_pos);
  const uint32_t num_global = 1, num_columns = static_cast<uint32_t>(columns.size());
  const uint16_t major = 0, minor = 3;
  out.append(reinterpret_cast<const char*>(&num_global), 4);
  out.append(reinterpret_cast<const char*>(&num_columns), 4);
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  return out;
}

::lance::file::Field LanceField(const std::string& name, int id, int parent, const std::string& type) {
  ::lance::file::Field f;
  f.set_name(name);
  f.set_id(id);
  f.set_parent_id(parent);
  f.set_logical_type(type);
  f.set_nullable(true);
  return f;
}

template <typename T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Column 0: list<int32> ("l", two pages: [[1,2], null] and [[], [3]]); column 1 its
// items (one page of 3); column 2: struct "s" with column 3, int32 "x" (no nulls).
std::string ListStructFile(uint64_t second_page_items = 1) {
  std::vector<::lance::file::Field> fields = {LanceField("l", 0, -1, "list"), LanceField("item", 1, 0, "int32"),
                                              LanceField("s", 2, -1, "struct"), LanceField("x", 3, 2, "int32")};
  auto list_page = [](std::vector<uint64_t> ends, uint64_t adj, uint64_t items) {
    V20Page p;
    *p.encoding.mutable_list()->mutable_offsets() = NoNulls(Flat(64, 0));
    p.encoding.mutable_list()->set_null_offset_adjustment(adj);
    p.encoding.mutable_list()->set_num_items(items);
    p.buffers = {Raw(ends)};
    p.rows = ends.size();
    return p;
  };
  V20Page items{NoNulls(Flat(32, 0)), {Raw<int32_t>({1, 2, 3})}, 3};
  V20Page st;
  st.encoding.mutable_struct_();
  st.rows = 4;
  V20Page x{NoNulls(Flat(32, 0)), {Raw<int32_t>({10, 11, 12, 13})}, 4};
  return BuildV20File(fields,
                      {{list_page({2, 5}, 3, 2), list_page({0, 1}, 2, second_page_items)}, {items}, {st}, {x}}, 4);
}

TEST(V20File, ListsAndStructsAcrossPages) {
  ASSERT_OK_AND_ASSIGN(auto f, testing::OpenBytes(ListStructFile()));
  const FileReader& r = *f.reader;
  EXPECT_EQ(r.version().major, 0);
  EXPECT_EQ(r.version().minor, 3);
  EXPECT_EQ(r.num_columns(), 4u);
  const Field& l = r.file_schema().fields[0];
  const Field& s = r.file_schema().fields[1];
  const int l_leaves[] = {1};
  ASSERT_OK_AND_ASSIGN(Array all, r.ReadRange(l, l_leaves, 0, 4));
  ASSERT_EQ(all.length, 4);
  EXPECT_TRUE(all.IsNull(1));
  EXPECT_EQ(all.ListRange(0), std::make_pair(int64_t{0}, int64_t{2}));
  EXPECT_EQ(all.ListRange(2), std::make_pair(int64_t{2}, int64_t{2}));
  EXPECT_EQ(all.ListRange(3), std::make_pair(int64_t{2}, int64_t{3}));
  EXPECT_EQ(all.children[0].values<int32_t>()[2], 3);

  const uint64_t rows[] = {3, 0, 3};
  ASSERT_OK_AND_ASSIGN(Array taken, r.Take(l, l_leaves, rows));
  ASSERT_EQ(taken.length, 3);
  EXPECT_EQ(taken.children[0].length, 4);
  EXPECT_EQ(taken.children[0].values<int32_t>()[0], 3);
  EXPECT_EQ(taken.children[0].values<int32_t>()[1], 1);

  const int s_leaves[] = {3};
  ASSERT_OK_AND_ASSIGN(Array sa, r.ReadRange(s, s_leaves, 1, 3));
  ASSERT_EQ(sa.children.size(), 1u);
  EXPECT_EQ(sa.children[0].values<int32_t>()[1], 12);
  ASSERT_OK_AND_ASSIGN(std::string desc, r.DescribeColumn(0));
  EXPECT_NE(desc.find("List("), std::string::npos) << desc;
}

TEST(V20File, CorruptRowChains) {
  // The list pages reference 4 items but the items column has 3.
  auto f = testing::OpenBytes(ListStructFile(2), "mem/bad.lance");
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(f.status().IsCorruption()) << f.status().ToString();
  EXPECT_NE(f.status().message().find("mem/bad.lance"), std::string::npos) << f.status().ToString();
}

TEST(V20File, TruncatedAndGarbage) {
  const std::string good = ListStructFile();
  // Corrupting any byte must not crash; most fail cleanly at open or read.
  for (size_t i = 0; i + 40 < good.size(); i += 7) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    auto f = testing::OpenBytes(bad, "mem/bad.lance");
    if (!f.ok()) continue;
    const int leaves[] = {1};
    if (f->reader->file_schema().fields.empty()) continue;
    (void)f->reader->ReadRange(f->reader->file_schema().fields[0], leaves, 0, f->reader->num_rows());
  }
}

}  // namespace
}  // namespace lancet::format::internal
