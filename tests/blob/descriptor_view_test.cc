// The descriptor view for engines without nullable structs or unsigned types.
#include "lancet/blob/descriptor_view.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "blob/blob_test_util.h"
#include "lancet/table/dataset.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::blob {
namespace {

using table::Dataset;
using testing::json;
using testing::U64;

Field DescriptorField(const std::string& name) {
  Field f = MakeField(name, StructOf({
                                MakeField("kind", MakeType(TypeId::kUInt8), false),
                                MakeField("position", MakeType(TypeId::kUInt64), false),
                                MakeField("size", MakeType(TypeId::kUInt64), false),
                                MakeField("blob_id", MakeType(TypeId::kUInt32), false),
                                MakeField("blob_uri", MakeType(TypeId::kUtf8), false),
                            }));
  f.metadata = {{"lance-encoding:blob", "true"}, {"lance-encoding:packed", "true"}};
  f.id = 7;
  return f;
}

// Descriptors (kind, position, size, blob_id, uri); validity false = null row.
Array Descriptors(const std::vector<uint8_t>& kinds, const std::vector<uint64_t>& positions,
                  const std::vector<uint64_t>& sizes, const std::vector<uint32_t>& ids,
                  const std::vector<std::optional<std::string>>& uris, const std::vector<bool>& validity) {
  Field f = DescriptorField("d");
  std::vector<Array> children = {
      *ArrayFromVector(MakeType(TypeId::kUInt8), kinds), *ArrayFromVector(MakeType(TypeId::kUInt64), positions),
      *ArrayFromVector(MakeType(TypeId::kUInt64), sizes), *ArrayFromVector(MakeType(TypeId::kUInt32), ids),
      *MakeBinaryArray(MakeType(TypeId::kUtf8), uris)};
  auto a = MakeStructArray(f.type, static_cast<int64_t>(kinds.size()), std::move(children), validity);
  EXPECT_TRUE(a.ok());
  return *a;
}

template <typename T>
T At(const Array& child, int64_t row) {
  return child.values<T>()[row];
}

TEST(DescriptorView, NullsBecomeTheZeroSentinel) {
  Array d = Descriptors({1, 9, 3}, {10, 11, 12}, {5, 6, 7}, {2, 9, 0}, {"", "junk", "file:///x"}, {true, false, true});
  ASSERT_OK_AND_ASSIGN(Array v, DescriptorView(d));
  ASSERT_OK(v.Validate());
  EXPECT_EQ(v.null_count, 0);
  EXPECT_TRUE(v.IsValid(1));
  for (const Array& c : v.children) EXPECT_EQ(c.null_count, 0);
  EXPECT_EQ(At<uint8_t>(v.children[0], 0), 1);
  EXPECT_EQ(At<uint8_t>(v.children[0], 1), 0);
  EXPECT_EQ(At<uint64_t>(v.children[1], 1), 0u);
  EXPECT_EQ(At<uint64_t>(v.children[2], 1), 0u);
  EXPECT_EQ(At<uint32_t>(v.children[3], 1), 0u);
  EXPECT_EQ(v.children[4].GetView(1), "");
  EXPECT_EQ(At<uint64_t>(v.children[1], 2), 12u);
  EXPECT_EQ(v.children[4].GetView(2), "file:///x");
  EXPECT_EQ(v.type.children[0].type.id, TypeId::kUInt8);

  DescriptorViewOptions keep;
  keep.null_as_sentinel = false;
  ASSERT_OK_AND_ASSIGN(Array kept, DescriptorView(d, keep));
  EXPECT_EQ(kept.null_count, 1);
  EXPECT_TRUE(kept.IsNull(1));
  EXPECT_EQ(At<uint64_t>(kept.children[2], 2), 7u);

  Field f = DescriptorField("video");
  ASSERT_OK_AND_ASSIGN(Field vf, DescriptorViewField(f));
  EXPECT_FALSE(vf.nullable);
  EXPECT_EQ(vf.name, "video");
  EXPECT_EQ(vf.id, 7);
  EXPECT_EQ(vf.metadata, f.metadata);
  EXPECT_EQ(vf.type, v.type);
  ASSERT_OK_AND_ASSIGN(Field kf, DescriptorViewField(f, keep));
  EXPECT_TRUE(kf.nullable);
}

TEST(DescriptorView, WidensTypesAndValues) {
  const uint64_t max = std::numeric_limits<int64_t>::max();
  Array d = Descriptors({3, 255}, {max, 1}, {0, max - 1}, {0xFFFFFFFFu, 1}, {"/a", ""}, {});
  DescriptorViewOptions widen;
  widen.widen_unsigned = true;
  ASSERT_OK_AND_ASSIGN(Array v, DescriptorView(d, widen));
  ASSERT_OK(v.Validate());
  EXPECT_EQ(v.type.children[0].type.id, TypeId::kInt16);
  EXPECT_EQ(v.type.children[1].type.id, TypeId::kInt64);
  EXPECT_EQ(v.type.children[2].type.id, TypeId::kInt64);
  EXPECT_EQ(v.type.children[3].type.id, TypeId::kInt64);
  EXPECT_EQ(v.type.children[4].type.id, TypeId::kUtf8);
  EXPECT_EQ(At<int16_t>(v.children[0], 1), 255);
  EXPECT_EQ(At<int64_t>(v.children[1], 0), static_cast<int64_t>(max));
  EXPECT_EQ(At<int64_t>(v.children[2], 1), static_cast<int64_t>(max - 1));
  EXPECT_EQ(At<int64_t>(v.children[3], 0), 0xFFFFFFFFll);
  ASSERT_OK_AND_ASSIGN(Field vf, DescriptorViewField(DescriptorField("b"), widen));
  EXPECT_EQ(vf.type, v.type);

  Array too_big = Descriptors({1, 1}, {0, max + 1}, {1, 1}, {1, 1}, {"", ""}, {});
  auto r = DescriptorView(too_big, widen);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("row 1"), std::string::npos) << r.status().ToString();
  // Without widening the value is representable.
  EXPECT_OK(DescriptorView(too_big).status());
}

TEST(DescriptorView, RespectsArrayOffsets) {
  Array d = Descriptors({1, 2, 3}, {10, 20, 30}, {1, 2, 3}, {4, 5, 6}, {"a", "b", "c"}, {true, false, true});
  Array sliced = d;
  sliced.offset = 1;
  sliced.length = 2;
  sliced.null_count = 1;
  ASSERT_OK_AND_ASSIGN(Array v, DescriptorView(sliced));
  ASSERT_EQ(v.length, 2);
  EXPECT_EQ(At<uint64_t>(v.children[1], 0), 0u);  // the null row
  EXPECT_EQ(At<uint64_t>(v.children[1], 1), 30u);
  EXPECT_EQ(v.children[4].GetView(1), "c");
}

TEST(DescriptorView, RejectsOtherShapes) {
  Field wrong = MakeField("x", StructOf({MakeField("kind", MakeType(TypeId::kUInt8))}));
  auto f = DescriptorViewField(wrong);
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(f.status().IsInvalidArgument());
  EXPECT_NE(f.status().message().find("'x'"), std::string::npos) << f.status().ToString();
  Array ints = *ArrayFromVector(MakeType(TypeId::kInt32), std::vector<int32_t>{1});
  EXPECT_TRUE(DescriptorView(ints).status().IsInvalidArgument());

  // A blob-marked struct of another shape in a batch names its column.
  wrong.metadata = {{"lance-encoding:blob", "true"}};
  Array child = *ArrayFromVector(MakeType(TypeId::kUInt8), std::vector<uint8_t>{1});
  RecordBatch batch;
  batch.schema.fields = {wrong};
  batch.num_rows = 1;
  batch.columns = {*MakeStructArray(wrong.type, 1, {child})};
  auto r = DescriptorViewOfBatch(batch);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'x'"), std::string::npos) << r.status().ToString();
}

// A scanned corpus batch: the view of every row equals the expected descriptors.
TEST(DescriptorView, ScannedCorpusBatch) {
  if (!testing::HasCorpusDataset("blobs")) GTEST_SKIP() << "corpus absent";
  json expected = testing::LoadExpected("blobs");
  const json& rows = expected["snapshots"].back()["rows"];
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::DatasetPath("blobs")));
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan());
  for (bool widen : {false, true}) {
    SCOPED_TRACE(widen ? "widen" : "plain");
    DescriptorViewOptions options;
    options.widen_unsigned = widen;
    size_t row = 0, nulls = 0;
    for (const RecordBatch& b : batches) {
      ASSERT_OK_AND_ASSIGN(RecordBatch v, DescriptorViewOfBatch(b, options));
      int video = v.schema.FieldIndex("video");
      ASSERT_GE(video, 0);
      EXPECT_FALSE(v.schema.fields[video].nullable);
      EXPECT_EQ(v.columns[video].type, v.schema.fields[video].type);
      // Other columns pass through untouched.
      int id = v.schema.FieldIndex("id");
      EXPECT_TRUE(ArraysEqual(v.columns[id], b.columns[id]));
      const Array& a = v.columns[video];
      for (int64_t i = 0; i < v.num_rows; ++i, ++row) {
        const json& d = rows[row]["video"];
        ASSERT_TRUE(a.IsValid(i));
        uint64_t kind = d.is_null() ? 0 : d["descriptor"]["kind"].get<uint64_t>();
        uint64_t pos = d.is_null() ? 0 : U64(d["descriptor"]["position"]);
        uint64_t size = d.is_null() ? 0 : U64(d["descriptor"]["size"]);
        uint64_t blob_id = d.is_null() ? 0 : d["descriptor"]["blob_id"].get<uint64_t>();
        nulls += d.is_null();
        if (widen) {
          EXPECT_EQ(At<int16_t>(a.children[0], i), static_cast<int16_t>(kind));
          EXPECT_EQ(At<int64_t>(a.children[1], i), static_cast<int64_t>(pos));
          EXPECT_EQ(At<int64_t>(a.children[2], i), static_cast<int64_t>(size));
          EXPECT_EQ(At<int64_t>(a.children[3], i), static_cast<int64_t>(blob_id));
        } else {
          EXPECT_EQ(At<uint8_t>(a.children[0], i), kind);
          EXPECT_EQ(At<uint64_t>(a.children[1], i), pos);
          EXPECT_EQ(At<uint64_t>(a.children[2], i), size);
          EXPECT_EQ(At<uint32_t>(a.children[3], i), blob_id);
        }
        EXPECT_EQ(a.children[4].GetView(i), d.is_null() ? "" : d["descriptor"]["blob_uri"].get<std::string>());
      }
    }
    EXPECT_EQ(row, rows.size());
    EXPECT_GT(nulls, 0u);
  }
}

// nested_blob: a blob inside a struct (s.img) and a top-level one (thumb).
TEST(DescriptorView, NestedBlob) {
  if (!testing::HasCorpusDataset("nested_blob")) GTEST_SKIP() << "corpus absent";
  json expected = testing::LoadExpected("nested_blob");
  const json& rows = expected["snapshots"].back()["rows"];
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::DatasetPath("nested_blob")));
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan());
  DescriptorViewOptions options;
  options.widen_unsigned = true;
  size_t row = 0, null_parents = 0, null_imgs = 0;
  for (const RecordBatch& b : batches) {
    ASSERT_OK_AND_ASSIGN(RecordBatch v, DescriptorViewOfBatch(b, options));
    int s = v.schema.FieldIndex("s");
    int thumb = v.schema.FieldIndex("thumb");
    ASSERT_GE(s, 0);
    ASSERT_GE(thumb, 0);
    const Field& s_field = v.schema.fields[s];
    EXPECT_TRUE(s_field.nullable);  // only descriptors change
    int img_idx = -1;
    for (size_t c = 0; c < s_field.type.children.size(); ++c) {
      if (s_field.type.children[c].name == "img") img_idx = static_cast<int>(c);
    }
    ASSERT_GE(img_idx, 0);
    EXPECT_FALSE(s_field.type.children[img_idx].nullable);
    EXPECT_EQ(s_field.type.children[img_idx].type.children[1].type.id, TypeId::kInt64);
    EXPECT_EQ(v.columns[s].type, s_field.type);
    ASSERT_OK(v.columns[s].Validate());
    const Array& s_arr = v.columns[s];
    const Array& img = s_arr.children[img_idx];
    const Array& th = v.columns[thumb];
    for (int64_t i = 0; i < v.num_rows; ++i, ++row) {
      const json& r = rows[row];
      EXPECT_EQ(s_arr.IsNull(i), r["s"].is_null()) << row;
      null_parents += r["s"].is_null();
      int64_t k = i + s_arr.offset;
      ASSERT_TRUE(img.IsValid(k));
      json want = testing::BlobValue(r, "s.img");
      null_imgs += want.is_null() && !r["s"].is_null();
      EXPECT_EQ(At<int64_t>(img.children[1], k),
                want.is_null() ? 0 : static_cast<int64_t>(U64(want["descriptor"]["position"])))
          << row;
      EXPECT_EQ(At<int64_t>(img.children[2], k),
                want.is_null() ? 0 : static_cast<int64_t>(U64(want["descriptor"]["size"])))
          << row;
      json want_thumb = testing::BlobValue(r, "thumb");
      ASSERT_TRUE(th.IsValid(i));
      EXPECT_EQ(At<int64_t>(th.children[2], i),
                want_thumb.is_null() ? 0 : static_cast<int64_t>(U64(want_thumb["descriptor"]["size"])))
          << row;
    }
  }
  EXPECT_EQ(row, rows.size());
  EXPECT_GT(null_parents, 0u);
  EXPECT_GT(null_imgs, 0u);
}

}  // namespace
}  // namespace lancet::blob
