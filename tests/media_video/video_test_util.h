// Helpers for the video tests: short videos made with the ffmpeg CLI, an independent
// decode of them to raw pixels, and datasets ingested with the video plugin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/media/plugin_host.h"
#include "lancet/result.h"

namespace lancet::media::testing {

/// True when the test can run: the plugin was built and the ffmpeg CLI is on PATH.
bool VideoToolsAvailable();
/// The video plugin's library path (empty when it was not built).
std::string VideoPluginPath();
PluginSpec VideoSpec();

struct VideoParams {
  double seconds = 2.4;
  int fps = 25;
  int gop = 12;
  int b_frames = 2;
  int width = 320;
  int height = 240;
};

/// Encodes testsrc2 with libx264 to `path` (MP4, yuv420p, a fixed GOP).
Status MakeVideo(const std::string& path, const VideoParams& params);

/// A directory shared by the test processes of this build (ctest runs each test in its
/// own process): inputs made once, published with an atomic rename so concurrent
/// makers of the same input agree.
std::string CacheDir();
/// MakeVideo into CacheDir(), once per distinct `params`; the video's path.
Result<std::string> CachedVideo(const VideoParams& params);

/// Every frame of `path` decoded by the ffmpeg CLI to `pix_fmt` (rgb24, gray), each
/// frame's bytes; out_w/out_h 0 keep the size.
Result<std::vector<std::string>> DecodeWithFfmpeg(const std::string& path, const std::string& pix_fmt,
                                                  uint64_t frame_bytes, int out_w = 0, int out_h = 0);

/// Runs `command` with /bin/sh; its exit status (-1 when it could not run).
int Shell(const std::string& command);

/// Writes a dataset at `root` with one row per file (column "video", nulls where a path
/// is empty) through the video plugin. `dedicated_bytes`: values above go to their own
/// sidecar, others are packed together.
Status WriteVideoDataset(const std::string& root, const std::vector<std::string>& files,
                         uint64_t dedicated_bytes = 4ULL << 20);

/// The bytes of a file.
std::string ReadWholeFile(const std::string& path);

/// PSNR in dB of two equal-length byte strings (infinity when equal).
double Psnr(const std::string& a, const std::string& b);

}  // namespace lancet::media::testing
