// Per-row video facts (frame count, rate, size) from the blob_info the video plugin
// stored: what a clip sampler needs to index clips without decoding anything.
#include <pybind11/stl.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dataset.h"
#include "errors.h"
#include "lancet/media/video_stream_info.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

py::list VideoInfo(const PyDataset& d, const std::string& column, const std::vector<uint64_t>& rows, bool by_address) {
  const table::RowKey key = by_address ? table::RowKey::kRowAddress : table::RowKey::kRowId;
  auto located = WithoutGil([&] { return d.dataset->LocateBlobsWithInfo(column, rows, key); });
  const auto blobs = Unwrap(std::move(located), NotFoundMeans::kBadArgument);
  py::list out;
  for (size_t i = 0; i < blobs.size(); ++i) {
    const auto& b = blobs[i];
    if (!b || !b->info || !b->info->stream_info) {
      out.append(py::none());
      continue;
    }
    const Buffer& bytes = *b->info->stream_info;
    const std::span<const uint8_t> span(bytes.data(), bytes.size());
    if (!media::IsVideoStreamInfo(span)) {
      throw StatusError(Status::InvalidArgument("column '" + column + "' row " + std::to_string(rows[i]) +
                                                " holds no video stream_info"),
                        NotFoundMeans::kBadArgument);
    }
    Result<media::VideoStreamInfo> parsed = media::ParseVideoStreamInfo(span);
    if (!parsed.ok()) Check(parsed.status().WithContext("column '" + column + "' row " + std::to_string(rows[i])));
    const media::VideoStreamInfo& v = *parsed;
    py::dict row;
    row["frame_count"] = v.frame_count;
    row["fps"] = v.fps;
    row["duration"] = v.duration_s;
    row["width"] = v.width;
    row["height"] = v.height;
    row["codec"] = v.codec;
    row["gop_count"] = v.gop_count;
    out.append(std::move(row));
  }
  return out;
}

}  // namespace

void RegisterVideoInfo(py::module_& m) {
  m.def("video_info", &VideoInfo, py::arg("dataset"), py::arg("column"), py::arg("rows"),
        py::arg("by_address") = false);
}

}  // namespace lancet::python
