#include "table/manifest.h"

#include <gtest/gtest.h>

#include <cstring>

#include "table/table_test_util.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

using testing::EncodeManifestFile;
using testing::MinimalManifest;

TEST(ManifestNames, V2AndV1) {
  EXPECT_EQ(ManifestFileNameV2(1), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileNameV2(6), "18446744073709551609.manifest");
  EXPECT_EQ(ManifestFileNameV1(12), "12.manifest");
  EXPECT_EQ(ParseManifestFileName("18446744073709551614.manifest"), 1u);
  EXPECT_EQ(ParseManifestFileName("18446744073709551609.manifest"), 6u);
  EXPECT_EQ(ParseManifestFileName("1.manifest"), 1u);
  EXPECT_EQ(ParseManifestFileName("42.manifest"), 42u);
  // u64::MAX - 0 would be version 0, which does not exist.
  EXPECT_EQ(ParseManifestFileName("18446744073709551615.manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("0.manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("d9223372036854775809.manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("latest_version_hint.json"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName(".manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("1.manifest-tmp"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("+1.manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName("99999999999999999999999.manifest"), std::nullopt);
  EXPECT_EQ(ParseManifestFileName(ManifestFileNameV2(123456789)), 123456789u);
}

TEST(JoinPath, Basics) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "/b"), "a/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(JoinPath("a", ""), "a");
}

TEST(ListManifests, SkipsOtherFilesAndSorts) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(testing::PutManifest(*store, "ds", MinimalManifest(3)));
  ASSERT_OK(testing::PutManifest(*store, "ds", MinimalManifest(1)));
  ASSERT_OK(testing::PutManifest(*store, "ds", MinimalManifest(2), /*v2_naming=*/false));
  std::vector<uint8_t> junk = {1, 2, 3};
  ASSERT_OK(store->Put("ds/_versions/latest_version_hint.json", junk));
  ASSERT_OK(store->Put("ds/_versions/d9223372036854775809.manifest", junk));
  ASSERT_OK(store->Put("ds/_versions/3.manifest-1234.tmp", junk));
  ASSERT_OK_AND_ASSIGN(auto list, ListManifests(*store, "ds"));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].version, 1u);
  EXPECT_EQ(list[1].version, 2u);
  EXPECT_EQ(list[1].path, "ds/_versions/2.manifest");
  EXPECT_EQ(list[2].version, 3u);
  EXPECT_EQ(list[2].path, "ds/_versions/" + ManifestFileNameV2(3));
}

TEST(ListManifests, DuplicateVersionIsCorruption) {
  auto store = io::NewMemoryStore();
  ASSERT_OK(testing::PutManifest(*store, "ds", MinimalManifest(1)));
  ASSERT_OK(testing::PutManifest(*store, "ds", MinimalManifest(1), false));
  auto r = ListManifests(*store, "ds");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

TEST(ListManifests, MissingDirIsNotFound) {
  auto store = io::NewMemoryStore();
  auto r = ListManifests(*store, "nothing");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_NE(r.status().message().find("nothing/_versions"), std::string::npos) << r.status().ToString();
}

TEST(ParseManifestFile, RoundTripWithPrefix) {
  auto m = MinimalManifest(7);
  m.set_reader_feature_flags(1);
  std::vector<uint8_t> prefix(100, 0xAB);
  auto bytes = EncodeManifestFile(m, prefix);
  ASSERT_OK_AND_ASSIGN(auto parsed, ParseManifestFile(bytes, "x.manifest"));
  EXPECT_EQ(parsed.version(), 7u);
  EXPECT_EQ(parsed.fields_size(), 1);
}

TEST(ParseManifestFile, Errors) {
  auto bytes = EncodeManifestFile(MinimalManifest(1));
  const std::string path = "ds/_versions/x.manifest";
  auto expect_corrupt = [&](std::vector<uint8_t> b, const char* what) {
    auto r = ParseManifestFile(b, path);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_TRUE(r.status().IsCorruption()) << what << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().ToString();
  };
  expect_corrupt({}, "empty");
  expect_corrupt({'L', 'A', 'N', 'C'}, "tiny");
  {
    auto b = bytes;
    b.back() = 'X';
    expect_corrupt(b, "bad magic");
  }
  {
    auto b = bytes;
    b.erase(b.begin() + 10);  // truncated in the middle
    expect_corrupt(b, "truncated");
  }
  {
    auto b = bytes;
    b.erase(b.begin(), b.begin() + 2);  // cut from the front: position now wrong
    expect_corrupt(b, "front cut");
  }
  {
    auto b = bytes;
    int64_t pos = 1000000;
    std::memcpy(b.data() + b.size() - 16, &pos, 8);
    expect_corrupt(b, "position past end");
  }
  {
    auto b = bytes;
    int64_t pos = -5;
    std::memcpy(b.data() + b.size() - 16, &pos, 8);
    expect_corrupt(b, "negative position");
  }
  {
    // Garbage protobuf of the right length.
    std::vector<uint8_t> garbage(64, 0xFF);
    lance::table::Manifest empty;
    auto b = EncodeManifestFile(empty);
    std::vector<uint8_t> g = {64, 0, 0, 0};  // u32 length
    g.insert(g.end(), garbage.begin(), garbage.end());
    g.insert(g.end(), b.end() - 16, b.end());  // trailer with position 0
    expect_corrupt(g, "garbage protobuf");
  }
}

TEST(ReadManifest, LargeManifestNeedsSecondRead) {
  auto store = io::NewMemoryStore();
  auto m = MinimalManifest(1);
  // Make the manifest bigger than the 64 KiB prefetch.
  for (int i = 0; i < 3000; ++i) {
    auto* f = m.add_fragments();
    f->set_id(i);
    f->set_physical_rows(10);
    auto* df = f->add_files();
    df->set_path(std::string(40, 'a') + std::to_string(i) + ".lance");
  }
  auto bytes = EncodeManifestFile(m, std::vector<uint8_t>(5000, 1));
  ASSERT_GT(bytes.size(), 70000u);
  ASSERT_OK(store->Put("m.manifest", bytes));
  ASSERT_OK_AND_ASSIGN(auto parsed, ReadManifest(*store, "m.manifest"));
  EXPECT_EQ(parsed.fragments_size(), 3000);
}

TEST(FeatureFlags, KnownAndUnknown) {
  auto m = MinimalManifest(1);
  for (uint64_t f : {0ull, 1ull, 2ull, 4ull, 8ull, 16ull, 32ull, 128ull, 3ull}) {
    m.set_reader_feature_flags(f);
    EXPECT_OK(CheckReaderFeatureFlags(m, "p"));
  }
  m.set_reader_feature_flags(256);
  m.set_writer_feature_flags(256);
  EXPECT_OK(CheckReaderFeatureFlags(m, "p"));
  m.set_writer_feature_flags(0);
  EXPECT_TRUE(CheckReaderFeatureFlags(m, "p").IsCorruption());
  for (uint64_t f : {64ull, 512ull, 1024ull, 2048ull, 4096ull, 4097ull, 1ull << 63}) {
    m.set_reader_feature_flags(f);
    Status st = CheckReaderFeatureFlags(m, "ds/_versions/1.manifest");
    EXPECT_TRUE(st.IsNotSupported()) << f;
    EXPECT_NE(st.message().find("ds/_versions/1.manifest"), std::string::npos);
  }
  // Unknown writer bits do not stop a reader.
  m.set_reader_feature_flags(0);
  m.set_writer_feature_flags(1 << 20);
  EXPECT_OK(CheckReaderFeatureFlags(m, "p"));
}

TEST(Tags, Json) {
  ASSERT_OK_AND_ASSIGN(auto t, ParseTagJson(R"({"branch":null,"version":3,"createdAt":"2025-01-01T00:00:00Z",
      "updatedAt":"2025-01-01T00:00:00Z","manifestSize":521,"metadata":{}})", "t.json"));
  EXPECT_EQ(t.version, 3u);
  EXPECT_EQ(t.manifest_size, 521u);
  ASSERT_OK_AND_ASSIGN(t, ParseTagJson(R"({"version":4,"manifest_size":9})", "t.json"));
  EXPECT_EQ(t.version, 4u);
  EXPECT_EQ(t.manifest_size, 9u);
  ASSERT_OK_AND_ASSIGN(t, ParseTagJson(R"({"version":5})", "t.json"));
  EXPECT_FALSE(t.manifest_size.has_value());
  for (const char* bad : {"", "[]", "{", R"({"version":-1})", R"({"version":"3"})", R"({"version":0})",
                          R"({"manifestSize":3})", R"({"version":1.5})", R"({"version":2,"manifestSize":"x"})"}) {
    auto r = ParseTagJson(bad, "ds/_refs/tags/x.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad;
    EXPECT_NE(r.status().message().find("ds/_refs/tags/x.json"), std::string::npos);
  }
  EXPECT_OK(ValidateTagName("first"));
  EXPECT_OK(ValidateTagName("after-update_2"));
  for (const char* bad : {"", "..", "a/b", "../x", "a\\b", "x\n"}) EXPECT_FALSE(ValidateTagName(bad).ok()) << bad;
}

}  // namespace
}  // namespace lancet::table
