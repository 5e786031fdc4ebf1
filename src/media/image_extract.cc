// ExtractImages and ExtractImage: image requests through Extract, results checked.
#include "lancet/media/image.h"
#include "media/extract_steps.h"
#include "media/image_wire.h"

namespace lancet::media {

const char* ImagePixelsName(ImagePixels pixels) {
  switch (pixels) {
    case ImagePixels::kGray8:
      return "gray8";
    case ImagePixels::kRgba32:
      return "rgba32";
    default:
      return "rgb24";
  }
}

uint32_t ImageChannels(ImagePixels pixels) {
  switch (pixels) {
    case ImagePixels::kGray8:
      return 1;
    case ImagePixels::kRgba32:
      return 4;
    default:
      return 3;
  }
}

ImageRequest ImageRequest::Page(uint32_t page) {
  ImageRequest r;
  r.page = page;
  return r;
}

ImageRequest ImageRequest::Region(uint32_t page, uint32_t x, uint32_t y, uint32_t width, uint32_t height) {
  ImageRequest r;
  r.kind = Kind::kRegion;
  r.page = page;
  r.x = x;
  r.y = y;
  r.width = width;
  r.height = height;
  return r;
}

ImageRequest ImageRequest::Thumbnail(uint32_t page, uint32_t size) {
  ImageRequest r;
  r.kind = Kind::kThumbnail;
  r.page = page;
  r.thumbnail = size;
  return r;
}

Result<std::vector<std::optional<Image>>> ExtractImages(const table::Dataset& dataset, const std::string& column,
                                                        std::span<const uint64_t> rows, const ImageRequest& request,
                                                        const MediaPlugin& plugin, const ExtractOptions& options,
                                                        ExtractImageStats* stats) {
  ExtractImageStats local;
  ExtractImageStats& st = stats ? *stats : local;
  st = {};
  ASSIGN_OR_RETURN(std::vector<uint8_t> req, image_wire::EncodeImageRequest(request));
  ASSIGN_OR_RETURN(auto outputs, Extract(dataset, column, rows, req, plugin, options, &st.extract));
  StepTimer timer(&st.extract.decode_ns);
  std::vector<std::optional<Image>> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) continue;
    const std::span<const uint8_t> meta(reinterpret_cast<const uint8_t*>(outputs[i]->metadata.data()),
                                        outputs[i]->metadata.size());
    auto image = image_wire::ParseImage(meta, outputs[i]->data);
    if (!image.ok()) {
      return Status::Corruption(dataset.uri() + ": blob column '" + column + "' " + RowName(options, rows[i]) +
                                ": plugin '" + plugin.name() + "' (" + plugin.library() +
                                ") returned a bad image: " + image.status().message());
    }
    ++st.images;
    st.pixel_bytes += image->pixels->size();
    out[i] = std::move(*image);
  }
  return out;
}

Result<Image> ExtractImage(const table::Dataset& dataset, const std::string& column, uint64_t row,
                           const ImageRequest& request, const MediaPlugin& plugin, const ExtractOptions& options,
                           ExtractImageStats* stats) {
  const uint64_t rows[] = {row};
  ASSIGN_OR_RETURN(auto out, ExtractImages(dataset, column, rows, request, plugin, options, stats));
  if (out.size() != 1 || !out[0]) {
    return Status::NotFound(dataset.uri() + ": blob column '" + column + "' " + RowName(options, row) +
                            " is a null blob");
  }
  return std::move(*out[0]);
}

}  // namespace lancet::media
