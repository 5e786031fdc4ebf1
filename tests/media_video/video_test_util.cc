#include "media_video/video_test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "lancet/media/write_blob_info.h"
#include "lancet/table/blob_write.h"
#include "util/array_builder.h"

namespace lancet::media::testing {

std::string VideoPluginPath() {
#ifdef LANCET_VIDEO_PLUGIN
  return LANCET_VIDEO_PLUGIN;
#else
  return {};
#endif
}

PluginSpec VideoSpec() { return PluginSpec{VideoPluginPath(), {}}; }

int Shell(const std::string& command) {
  const int rc = std::system(command.c_str());
  if (rc == -1 || !WIFEXITED(rc)) return -1;
  return WEXITSTATUS(rc);
}

bool VideoToolsAvailable() {
  static const bool ok = !VideoPluginPath().empty() && Shell("ffmpeg -version >/dev/null 2>&1") == 0 &&
                         Shell("ffprobe -version >/dev/null 2>&1") == 0;
  return ok;
}

Status MakeVideo(const std::string& path, const VideoParams& p) {
  const std::string cmd = "ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=" + std::to_string(p.width) + "x" +
                          std::to_string(p.height) + ":rate=" + std::to_string(p.fps) +
                          ":duration=" + std::to_string(p.seconds) + " -c:v libx264 -preset veryfast -pix_fmt yuv420p" +
                          " -g " + std::to_string(p.gop) + " -keyint_min " + std::to_string(p.gop) +
                          " -sc_threshold 0 -bf " + std::to_string(p.b_frames) + " '" + path + "'";
  if (Shell(cmd) != 0) return Status::IOError("ffmpeg could not make " + path + ": " + cmd);
  return Status::OK();
}

std::string CacheDir() {
#ifdef LANCET_MEDIA_VIDEO_CACHE
  const std::string dir = LANCET_MEDIA_VIDEO_CACHE;
#else
  const std::string dir = (std::filesystem::temp_directory_path() / "lancet_media_video_cache").string();
#endif
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return dir;
}

Result<std::string> CachedVideo(const VideoParams& p) {
  char name[128];
  std::snprintf(name, sizeof(name), "v_%gs_%dfps_g%d_b%d_%dx%d.mp4", p.seconds, p.fps, p.gop, p.b_frames, p.width,
                p.height);
  const std::string path = CacheDir() + "/" + name;
  if (std::filesystem::exists(path)) return path;
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp.mp4";
  RETURN_IF_ERROR(MakeVideo(tmp, p));
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IOError("cannot publish " + path + ": " + ec.message());
  return path;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Result<std::vector<std::string>> DecodeWithFfmpeg(const std::string& path, const std::string& pix_fmt,
                                                  uint64_t frame_bytes, int out_w, int out_h) {
  const std::string raw = path + "." + pix_fmt + "." + std::to_string(out_w) + "x" + std::to_string(out_h) + "." +
                          std::to_string(::getpid()) + ".raw";
  std::string scale;
  if (out_w > 0 || out_h > 0) {
    scale = " -vf scale=" + std::to_string(out_w > 0 ? out_w : -1) + ":" + std::to_string(out_h > 0 ? out_h : -1);
  }
  // The plugin converts with swscale's bicubic, accurate-rounding, bit-exact flags; the
  // same flags here make the two conversions comparable byte for byte.
  const std::string cmd = "ffmpeg -nostdin -v error -y -i '" + path + "' -sws_flags bicubic+accurate_rnd+bitexact" +
                          scale + " -f rawvideo -pix_fmt " +
                          pix_fmt + " '" + raw + "'";
  if (Shell(cmd) != 0) return Status::IOError("ffmpeg could not decode " + path + ": " + cmd);
  const std::string all = ReadWholeFile(raw);
  std::remove(raw.c_str());
  if (frame_bytes == 0 || all.size() % frame_bytes != 0) {
    return Status::IOError(path + ": decoded " + std::to_string(all.size()) + " bytes, not frames of " +
                           std::to_string(frame_bytes));
  }
  std::vector<std::string> frames;
  for (size_t at = 0; at < all.size(); at += frame_bytes) frames.push_back(all.substr(at, frame_bytes));
  return frames;
}

Status WriteVideoDataset(const std::string& root, const std::vector<std::string>& files, uint64_t dedicated_bytes) {
  Schema schema{{table::MakeBlobField("video", true, table::BlobThresholds{1024, dedicated_bytes, 1ULL << 30})}, {}};
  std::vector<std::optional<std::string>> values;
  std::vector<bool> valid;
  for (const std::string& f : files) {
    valid.push_back(!f.empty());
    if (f.empty()) {
      values.emplace_back();
      continue;
    }
    std::string bytes = ReadWholeFile(f);
    if (bytes.empty()) return Status::IOError(f + ": empty or unreadable");
    values.emplace_back(std::move(bytes));
  }
  const auto n = static_cast<int64_t>(files.size());
  ASSIGN_OR_RETURN(Array data, MakeBinaryArray(MakeType(TypeId::kLargeBinary), values));
  ASSIGN_OR_RETURN(Array uri, MakeNullArray(MakeType(TypeId::kUtf8), n));
  ASSIGN_OR_RETURN(Array col, MakeStructArray(schema.fields[0].type, n, {data, uri}, valid));
  return WriteDatasetWithBlobInfo(root, schema, {RecordBatch{schema, n, {col}}}, {}, {{"video", VideoSpec()}})
      .status();
}

double Psnr(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(static_cast<uint8_t>(a[i])) - static_cast<uint8_t>(b[i]);
    sum += d * d;
  }
  if (sum == 0) return std::numeric_limits<double>::infinity();
  const double mse = sum / static_cast<double>(a.size());
  return 10 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace lancet::media::testing
