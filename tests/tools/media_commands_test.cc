// The blob_info commands end to end with the chunks plugin: ingest --media, extract,
// and the errors a user meets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_test_util.h"
#include "common/payload.h"
#include "lancet/cli_common.h"
#include "lancet/media/write_blob_info.h"
#include "lancet/table/dataset.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

using lancet::testing::Payload;

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MediaCommands, IngestWithMediaThenExtract) {
  ScopedTempDir tmp;
  const std::string src = tmp.path() + "/src", ds = tmp.path() + "/ds", conf = tmp.path() + "/chunks.conf";
  fs::create_directories(src);
  const std::string small = Payload(1, 10), packed = Payload(2, 70000), big = Payload(3, 300000);
  WriteTextFile(src + "/a.bin", small);
  WriteTextFile(src + "/b.bin", packed);
  WriteTextFile(src + "/c.bin", big);
  WriteTextFile(conf, "chunk_size=1000;blob_type=5");
  const std::string plugin = std::string(LANCET_CHUNKS_PLUGIN) + ":" + conf;
  ASSERT_EQ(RunLancet({"ingest", src, ds, "--column", "video", "--media", "video=" + plugin}), 0);
  ASSERT_OK_AND_ASSIGN(auto opened, table::Dataset::Open(ds));
  EXPECT_EQ(opened->schema().fields[3].metadata.at(media::kMediaPluginKey), "chunks");
  // Rows are in path order: a (inline), b (packed), c (packed, 300 KB < 4 MiB).
  const std::string out = tmp.path() + "/part.bin";
  ASSERT_EQ(RunLancet({"extract", ds, "video", "1", "2", "--plugin", plugin, "--request", "chunks=3-4", "-o", out,
                       "--quiet"}),
            0);
  EXPECT_EQ(ReadFile(out), packed.substr(3000, 2000) + big.substr(3000, 2000));
  // take_blobs on such a row points to extract; the inline row still reads.
  EXPECT_EQ(RunLancet({"blob", "get", ds, "video", "1", "-o", tmp.path() + "/raw.bin"}), kExitFailure);
  ASSERT_EQ(RunLancet({"blob", "get", ds, "video", "0", "-o", tmp.path() + "/a.out"}), 0);
  EXPECT_EQ(ReadFile(tmp.path() + "/a.out"), small);
}

TEST(MediaCommands, ExtractErrors) {
  ScopedTempDir tmp;
  const std::string src = tmp.path() + "/src", ds = tmp.path() + "/ds", conf = tmp.path() + "/chunks.conf";
  fs::create_directories(src);
  WriteTextFile(src + "/a.bin", Payload(1, 10));
  WriteTextFile(src + "/b.bin", Payload(2, 70000));
  WriteTextFile(conf, "chunk_size=1000;blob_type=5");
  const std::string plugin = std::string(LANCET_CHUNKS_PLUGIN) + ":" + conf;
  ASSERT_EQ(RunLancet({"ingest", src, ds, "--media", "blob=" + plugin}), 0);
  // No --plugin: a usage error (the dataset never chooses what gets loaded).
  EXPECT_EQ(RunLancet({"extract", ds, "blob", "1", "--request", "chunks=0"}), kExitUsage);
  // Bad --media / --plugin specs.
  EXPECT_EQ(RunLancet({"ingest", src, tmp.path() + "/x", "--media", "no-equals"}), kExitUsage);
  EXPECT_EQ(RunLancet({"extract", ds, "blob", "1", "--plugin", plugin + ".missing", "--request", "chunks=0"}),
            kExitUsage);
  // An inline row has no blob_info; a chunk past the end is the plugin's error.
  EXPECT_EQ(RunLancet({"extract", ds, "blob", "0", "--plugin", plugin, "--request", "chunks=0"}), kExitFailure);
  EXPECT_EQ(RunLancet({"extract", ds, "blob", "1", "--plugin", plugin, "--request", "chunks=999"}), kExitFailure);
  // A bare library name is never searched for.
  EXPECT_EQ(RunLancet({"extract", ds, "blob", "1", "--plugin", "liblancet_chunks.so", "--request", "chunks=0"}),
            kExitFailure);
}

}  // namespace
}  // namespace lancet::cli
