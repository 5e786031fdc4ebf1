// The test videos: codec x container x GOP x B-frames x frame rate.
#pragma once

#include <string>

namespace lancet::video_test {

struct VideoCase {
  const char* name;
  const char* encoder;  // skipped when the ffmpeg CLI lacks it
  const char* rate;
  double seconds;
  const char* args;
  const char* ext;
  bool bframes;  // the stream reorders frames
};

inline const VideoCase kVideoCases[] = {
    {"h264_gop12_bframes_mp4_faststart", "libx264", "25", 3,
     "-c:v libx264 -g 12 -keyint_min 12 -sc_threshold 0 -pix_fmt yuv420p -movflags +faststart", "mp4", true},
    {"h264_gop1_mp4_moov_last", "libx264", "25", 2, "-c:v libx264 -g 1 -pix_fmt yuv420p", "mp4", false},
    {"h264_gop250_no_bframes_ntsc_mp4", "libx264", "30000/1001", 3, "-c:v libx264 -g 250 -bf 0 -pix_fmt yuv420p", "mp4",
     false},
    {"h264_gop12_ntsc_mkv_with_audio", "libx264", "30000/1001", 3,
     "-f lavfi -i sine=duration=3 -c:v libx264 -g 12 -sc_threshold 0 -pix_fmt yuv420p -c:a aac", "mkv", true},
    {"h264_gop12_mpegts", "libx264", "25", 3, "-c:v libx264 -g 12 -sc_threshold 0 -pix_fmt yuv420p -f mpegts", "ts",
     true},
    {"hevc_gop12_open_mp4", "libx265", "25", 3, "-c:v libx265 -g 12 -pix_fmt yuv420p -x265-params log-level=error",
     "mp4", true},
    {"hevc_gop12_mkv", "libx265", "25", 2, "-c:v libx265 -g 12 -pix_fmt yuv420p -x265-params log-level=error", "mkv",
     true},
    {"hevc_gop12_mpegts", "libx265", "25", 2,
     "-c:v libx265 -g 12 -pix_fmt yuv420p -x265-params log-level=error -f mpegts", "ts", true},
    {"vp9_gop12_webm", "libvpx-vp9", "25", 2, "-c:v libvpx-vp9 -g 12 -deadline realtime -cpu-used 8 -b:v 400k", "webm",
     false},
    {"av1_svt_gop12_mkv", "libsvtav1", "25", 2, "-c:v libsvtav1 -g 12 -preset 12", "mkv", false},
    {"av1_svt_gop12_mp4", "libsvtav1", "30000/1001", 2, "-c:v libsvtav1 -g 12 -preset 12", "mp4", false},
};

inline std::string CaseName(const VideoCase& c) { return c.name; }

}  // namespace lancet::video_test
