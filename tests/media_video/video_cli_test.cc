// The video commands as a user runs them: the lancet executable on videos the ffmpeg CLI
// makes (ingest --media, info, extract-frame to PNG, extract-clip to MP4), a corrupt
// file at ingest, and where the default plugin may come from.
#include <gtest/gtest.h>

#include <filesystem>

#include "tools/cli_test_util.h"
#include "lancet/column_plugin.h"
#include "lancet/media/video.h"
#include "lancet/table/dataset.h"
#include "media_video/video_test_util.h"
#include "util/test_macros.h"

namespace lancet::cli {
namespace {

namespace fs = std::filesystem;
using media::testing::ReadWholeFile;
using media::testing::Shell;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string LancetExe() {
#ifdef LANCET_LANCET_EXE
  return LANCET_LANCET_EXE;
#else
  return {};
#endif
}

// Runs the lancet executable `exe` with `args`; stdout and stderr land in files.
struct CliRun {
  int rc = -1;
  std::string out, err;
};
CliRun Lancet(const ScopedTempDir& tmp, const std::string& args, const std::string& exe = LancetExe()) {
  const std::string out = tmp.Join("stdout.txt"), err = tmp.Join("stderr.txt");
  CliRun r;
  r.rc = Shell(Quote(exe) + " " + args + " >" + Quote(out) + " 2>" + Quote(err));
  r.out = ReadWholeFile(out);
  r.err = ReadWholeFile(err);
  return r;
}

class VideoCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!media::testing::VideoToolsAvailable() || LancetExe().empty()) GTEST_SKIP() << "no video plugin or ffmpeg";
    src_ = tmp_.Join("src");
    ds_ = tmp_.Join("ds");
    fs::create_directories(src_);
    ASSERT_OK_AND_ASSIGN(std::string a, media::testing::CachedVideo({2.4, 25, 12, 2, 320, 240}));
    ASSERT_OK_AND_ASSIGN(std::string b, media::testing::CachedVideo({2.0, 30, 15, 0, 320, 240}));
    fs::copy_file(a, src_ + "/a.mp4");
    fs::copy_file(b, src_ + "/b.mp4");
    WriteTextFile(src_ + "/notes.txt", "not a video");
  }

  std::string Ingest(const std::string& dir, const std::string& extra = "") {
    return Quote(dir) + " " + Quote(ds_) + " --column video --glob '*.mp4' --media video=" +
           Quote(media::testing::VideoPluginPath()) + extra;
  }

  ScopedTempDir tmp_;
  std::string src_, ds_;
};

TEST_F(VideoCli, IngestInfoFramesAndClip) {
  CliRun r = Lancet(tmp_, "ingest " + Ingest(src_));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("ingested 2 files"), std::string::npos) << r.out;  // --glob left notes.txt out

  r = Lancet(tmp_, "info " + Quote(ds_) + " --no-encodings");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("Video rows of 'video' (2):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row 0: 2.400 s, 25.000 fps, 320x240, h264, 60 frames, 5 GOPs, B-frames"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("row 1: 2.000 s, 30.000 fps, 320x240, h264, 60 frames, 4 GOPs"), std::string::npos) << r.out;
  r = Lancet(tmp_, "info " + Quote(ds_) + " --no-encodings --video-rows 1");
  EXPECT_NE(r.out.find("2 rows, 4.400 s in total, 120 frames, 9 GOPs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("resolutions: 320x240 (2)"), std::string::npos) << r.out;

  // One frame to exactly --out, with the plugin the column was ingested with (found in
  // the build's plugin directory next to bin/).
  const std::string png = tmp_.Join("one.png");
  r = Lancet(tmp_, "extract-frame " + Quote(ds_) + " --row 0 --at 1.0 --out " + Quote(png));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("frame 25"), std::string::npos) << r.out;
  ASSERT_OK_AND_ASSIGN(auto back, media::testing::DecodeWithFfmpeg(png, "rgb24", 320 * 240 * 3));
  ASSERT_OK_AND_ASSIGN(auto original, media::testing::DecodeWithFfmpeg(src_ + "/a.mp4", "rgb24", 320 * 240 * 3));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0] == original[25]) << "PSNR " << media::testing::Psnr(back[0], original[25]);

  // A window through a pattern: one file per frame, named by frame index.
  r = Lancet(tmp_, "extract-frame " + Quote(ds_) + " --row 1 --window 0.5:1 --out " +
                       Quote(tmp_.Join("w/f%04d.png")) + " --quiet");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (int i = 15; i < 30; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "w/f%04d.png", i);
    EXPECT_TRUE(fs::exists(tmp_.Join(name))) << name;
  }
  EXPECT_FALSE(fs::exists(tmp_.Join("w/f0014.png")));
  EXPECT_FALSE(fs::exists(tmp_.Join("w/f0030.png")));
  // Keyframes in gray at half size.
  r = Lancet(tmp_, "extract-frame " + Quote(ds_) + " --row 0 --window 0:3 --keyframes --format gray8 --width 160 " +
                       "--out " + Quote(tmp_.Join("k/%d.png")));
  ASSERT_EQ(r.rc, 0) << r.err;
  for (int i : {0, 12, 24, 36, 48}) EXPECT_TRUE(fs::exists(tmp_.Join("k/" + std::to_string(i) + ".png"))) << i;
  EXPECT_EQ(Shell("ffprobe -v error -show_entries stream=width,height -of csv=p=0 " + Quote(tmp_.Join("k/12.png")) +
                  " | grep -qx '160,120'"),
            0);

  // A clip: ffprobe accepts it, and it holds the original's frames from the keyframe at
  // or before the window (0.96 s = frame 24) on.
  const std::string mp4 = tmp_.Join("clip.mp4");
  r = Lancet(tmp_, "extract-clip " + Quote(ds_) + " --row 0 --window 1:1.5 --out " + Quote(mp4));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("24 frames"), std::string::npos) << r.out;
  ASSERT_OK_AND_ASSIGN(auto clip, media::testing::DecodeWithFfmpeg(mp4, "rgb24", 320 * 240 * 3));
  ASSERT_EQ(clip.size(), 24u);
  for (size_t k = 0; k < clip.size(); ++k) EXPECT_TRUE(clip[k] == original[24 + k]) << k;
}

TEST_F(VideoCli, UsageErrors) {
  ASSERT_EQ(Lancet(tmp_, "ingest " + Ingest(src_)).rc, 0);
  const std::string ds = Quote(ds_);
  // Several frames need a pattern.
  CliRun r = Lancet(tmp_, "extract-frame " + ds + " --row 0 --window 0:1 --out " + Quote(tmp_.Join("x.png")));
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("has no pattern"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp_.Join("x.png")));
  r = Lancet(tmp_, "extract-frame " + ds + " --row 0 --out x.png");
  EXPECT_EQ(r.rc, kExitUsage);
  EXPECT_NE(r.err.find("exactly one of"), std::string::npos) << r.err;
  r = Lancet(tmp_, "extract-frame " + ds + " --row 0 --at 1 --out " + Quote(tmp_.Join("%s.png")));
  EXPECT_EQ(r.rc, kExitUsage);
  r = Lancet(tmp_, "extract-frame " + ds + " --row 0 --frames 3,60 --out " + Quote(tmp_.Join("%d.png")));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("60 frames"), std::string::npos) << r.err;
  r = Lancet(tmp_, "extract-frame " + ds + " --row 0 --window 9:10 --out " + Quote(tmp_.Join("%d.png")));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("selects no frame"), std::string::npos) << r.err;
  r = Lancet(tmp_, "extract-clip " + ds + " --row 0 --window 2:1 --out " + Quote(tmp_.Join("c.mp4")));
  EXPECT_EQ(r.rc, kExitUsage);
  for (const char* cmd : {"extract-frame", "extract-clip"}) {
    r = Lancet(tmp_, std::string(cmd) + " --help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("--window"), std::string::npos) << r.out;
  }
}

// A file the plugin cannot read fails the whole write, naming the file; the dataset
// stays at its previous version.
TEST_F(VideoCli, CorruptVideoFailsTheIngest) {
  ASSERT_EQ(Lancet(tmp_, "ingest " + Ingest(src_)).rc, 0);
  const std::string more = tmp_.Join("more");
  fs::create_directories(more);
  fs::copy_file(src_ + "/b.mp4", more + "/good.mp4");
  // The first part of a real MP4, its moov box (at the end, ffmpeg's default) missing;
  // above the 64 KiB inline threshold, so the plugin ingests it.
  const std::string a = ReadWholeFile(src_ + "/a.mp4");
  ASSERT_GT(a.size(), 80000u);
  WriteTextFile(more + "/broken.mp4", a.substr(0, 80000));
  CliRun r = Lancet(tmp_, "ingest " + Ingest(more, " --append"));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("broken.mp4"), std::string::npos) << r.err;
  ASSERT_OK_AND_ASSIGN(auto ds, table::Dataset::Open(ds_));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 2u);
}

// The default plugin comes only from the install's plugin directory, by a name that
// cannot leave it: a copy of lancet elsewhere does not find it, and a library next to
// the dataset or in the working directory is never loaded.
TEST_F(VideoCli, DefaultPluginOnlyFromTheInstall) {
  ASSERT_EQ(Lancet(tmp_, "ingest " + Ingest(src_)).rc, 0);
  const std::string prefix = tmp_.Join("inst");
  fs::create_directories(prefix + "/bin");
  fs::copy_file(LancetExe(), prefix + "/bin/lancet");
  fs::permissions(prefix + "/bin/lancet", fs::perms::owner_all);
  fs::copy_file(media::testing::VideoPluginPath(), ds_ + "/liblancet_video_ffmpeg.so");
  fs::copy_file(media::testing::VideoPluginPath(), tmp_.Join("liblancet_video_ffmpeg.so"));
  const std::string args = "extract-frame " + Quote(ds_) + " --row 0 --at 0 --out " + Quote(tmp_.Join("p.png"));
  CliRun r = Lancet(tmp_, args, prefix + "/bin/lancet");
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("is not in the install's plugin directories"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--plugin"), std::string::npos) << r.err;
  // The installed layout: <prefix>/lib/lancet/plugins.
  fs::create_directories(prefix + "/lib/lancet/plugins");
  fs::copy_file(media::testing::VideoPluginPath(), prefix + "/lib/lancet/plugins/liblancet_video_ffmpeg.so");
  r = Lancet(tmp_, args, prefix + "/bin/lancet");
  EXPECT_EQ(r.rc, 0) << r.err;
  // An explicit --plugin is always honoured.
  fs::remove(prefix + "/lib/lancet/plugins/liblancet_video_ffmpeg.so");
  r = Lancet(tmp_, args + " --plugin " + Quote(media::testing::VideoPluginPath()), prefix + "/bin/lancet");
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(ColumnPlugin, NamesFromADatasetCannotLeaveThePluginDirectory) {
  ScopedTempDir tmp;
  fs::create_directories(tmp.Join("plugins"));
  WriteTextFile(tmp.Join("plugins/liblancet_ok-1.so"), "x");
  WriteTextFile(tmp.Join("liblancet_up.so"), "x");
  const std::vector<std::string> dirs = {tmp.Join("plugins")};
  ASSERT_OK_AND_ASSIGN(std::string found, FindInstalledPlugin(dirs, "ok-1"));
  EXPECT_EQ(found, tmp.Join("plugins/liblancet_ok-1.so"));
  for (const char* name : {"../up", "..", "/tmp/x", "a/b", "", "x.so", "a b", "ok\n"}) {
    Status st = FindInstalledPlugin(dirs, name).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << name << ": " << st.ToString();
  }
  EXPECT_TRUE(FindInstalledPlugin(dirs, std::string(65, 'a')).status().IsInvalidArgument());
  EXPECT_TRUE(FindInstalledPlugin(dirs, "up").status().IsNotFound());
  EXPECT_TRUE(FindInstalledPlugin({}, "ok-1").status().IsNotFound());
  EXPECT_EQ(InstallPluginDirs("/opt/l/bin/lancet"),
            (std::vector<std::string>{"/opt/l/plugins", "/opt/l/lib/lancet/plugins"}));
  EXPECT_TRUE(InstallPluginDirs("").empty());
}

}  // namespace
}  // namespace lancet::cli
