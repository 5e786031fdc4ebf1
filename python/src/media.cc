// Video frames out of blob columns ingested through the video plugin.
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrays.h"
#include "dataset.h"
#include "errors.h"
#include "lancet/media/video.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

// Loading a plugin dlopens and initialises it; a process extracting many times keeps
// each library loaded once.
std::shared_ptr<media::MediaPlugin> LoadPlugin(const std::string& library) {
  static std::mutex mu;
  static auto* loaded = new std::map<std::string, std::shared_ptr<media::MediaPlugin>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded->find(library);
  if (it != loaded->end()) return it->second;
  media::PluginSpec spec;
  spec.library = library;
  std::shared_ptr<media::MediaPlugin> plugin = Unwrap(media::MediaPlugin::Load(spec), NotFoundMeans::kBadArgument);
  (*loaded)[library] = plugin;
  return plugin;
}

media::FrameRequest MakeRequest(const std::string& kind, double t0, double t1, std::vector<uint64_t> frames,
                                std::vector<double> timestamps, bool keyframes_only, const std::string& pixel_format,
                                uint32_t width, uint32_t height, bool exact) {
  media::FrameRequest r;
  if (kind == "window") {
    r = media::FrameRequest::Window(t0, t1);
  } else if (kind == "frames") {
    r = media::FrameRequest::Frames(std::move(frames));
  } else if (kind == "timestamps") {
    r = media::FrameRequest::Timestamps(std::move(timestamps));
  } else {
    throw StatusError(Status::InvalidArgument("frame selection '" + kind + "'"), NotFoundMeans::kBadArgument);
  }
  r.keyframes_only = keyframes_only;
  if (pixel_format == "rgb24") {
    r.format = media::PixelFormat::kRgb24;
  } else if (pixel_format == "gray8") {
    r.format = media::PixelFormat::kGray8;
  } else if (pixel_format == "yuv420p") {
    r.format = media::PixelFormat::kYuv420p;
  } else {
    throw StatusError(Status::InvalidArgument("pixel_format '" + pixel_format + "': expected rgb24, gray8 or yuv420p"),
                      NotFoundMeans::kBadArgument);
  }
  r.width = width;
  r.height = height;
  r.exact = exact;
  return r;
}

// Per row None or a list of (index, pts, time, width, height, format, pixels).
py::list ExtractFrames(const PyDataset& d, const std::string& column, const std::vector<uint64_t>& rows,
                       const std::string& plugin_library, const std::string& kind, double t0, double t1,
                       std::vector<uint64_t> frames, std::vector<double> timestamps, bool keyframes_only,
                       const std::string& pixel_format, uint32_t width, uint32_t height, bool by_address, bool exact) {
  const media::FrameRequest request = MakeRequest(kind, t0, t1, std::move(frames), std::move(timestamps),
                                                  keyframes_only, pixel_format, width, height, exact);
  std::shared_ptr<media::MediaPlugin> plugin = LoadPlugin(plugin_library);
  media::ExtractOptions options;
  options.key = by_address ? table::RowKey::kRowAddress : table::RowKey::kRowId;
  Result<std::vector<std::optional<std::vector<media::Frame>>>> got =
      WithoutGil([&] { return media::ExtractFrames(*d.dataset, column, rows, request, *plugin, options); });
  py::list out;
  for (const auto& row : Unwrap(std::move(got), NotFoundMeans::kBadArgument)) {
    if (!row) {
      out.append(py::none());
      continue;
    }
    py::list list;
    for (const media::Frame& f : *row) {
      list.append(py::make_tuple(f.index, f.pts, f.time_s, f.width, f.height,
                                 std::string(media::PixelFormatName(f.format)), BufferObject(f.bytes)));
    }
    out.append(list);
  }
  return out;
}

}  // namespace

void RegisterMedia(py::module_& m) {
  m.def("extract_frames", &ExtractFrames, py::arg("dataset"), py::arg("column"), py::arg("rows"), py::arg("plugin"),
        py::arg("kind"), py::arg("t0") = 0.0, py::arg("t1") = 0.0, py::arg("frames") = std::vector<uint64_t>{},
        py::arg("timestamps") = std::vector<double>{}, py::arg("keyframes_only") = false,
        py::arg("pixel_format") = "rgb24", py::arg("width") = 0, py::arg("height") = 0, py::arg("by_address") = false,
        py::arg("exact") = true);
  // Relative to the package directory (python/CMakeLists.txt): a build tree's, an install's.
  py::list plugin_dirs;
#ifdef LANCET_BUILD_PLUGIN_DIR
  plugin_dirs.append(LANCET_BUILD_PLUGIN_DIR);
#endif
#ifdef LANCET_INSTALL_PLUGIN_DIR
  plugin_dirs.append(LANCET_INSTALL_PLUGIN_DIR);
#endif
  m.attr("_plugin_dirs") = plugin_dirs;
}

}  // namespace lancet::python
