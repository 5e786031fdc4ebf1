// `lancet extract-image`: one page (or GIF/WebP frame), region or thumbnail of an image row
// as a PNG file, through the image plugin.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "lancet/column_plugin.h"
#include "lancet/commands.h"
#include "lancet/media/image.h"
#include "lancet/png_write.h"

namespace lancet::cli {
namespace {

struct ExtractImageState {
  std::string dataset;
  std::string column = "image";
  uint64_t row = 0;
  uint32_t page = 0;
  std::string region;
  uint32_t thumbnail = 0;
  std::string plugin;
  std::string out;
  bool quiet = false;
  VersionSelector version;

  Result<media::ImageRequest> Request() const {
    if (!region.empty()) {
      auto v = ParseU64List(region);
      if (!v.ok() || v->size() != 4 || (*v)[2] == 0 || (*v)[3] == 0 ||
          std::any_of(v->begin(), v->end(), [](uint64_t x) { return x > UINT32_MAX; })) {
        return Status::InvalidArgument("--region '" + region + "' is not X,Y,W,H (pixels, W and H at least 1)");
      }
      return media::ImageRequest::Region(page, static_cast<uint32_t>((*v)[0]), static_cast<uint32_t>((*v)[1]),
                                         static_cast<uint32_t>((*v)[2]), static_cast<uint32_t>((*v)[3]));
    }
    if (thumbnail > 0) return media::ImageRequest::Thumbnail(page, thumbnail);
    return media::ImageRequest::Page(page);
  }

  int Run() const {
    auto request = Request();
    if (!request.ok()) return ReportUsage(request.status().message());
    auto ds = OpenDataset(dataset, version);
    if (!ds.ok()) return ReportError(ds.status());
    auto loaded = LoadColumnPlugin(**ds, column, plugin);
    if (!loaded.ok()) return ReportError(loaded.status(), dataset);
    media::ExtractImageStats stats;
    auto image = media::ExtractImage(**ds, column, row, *request, **loaded, {}, &stats);
    if (!image.ok()) return ReportError(image.status(), dataset);
    std::error_code ec;
    const auto parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    Status st = WritePng(out, image->pixels->span(), image->width, image->height,
                         static_cast<int>(media::ImageChannels(image->format)));
    if (!st.ok()) return ReportError(st);
    std::printf("page %u  %ux%u at %u,%u of %ux%u %s  -> %s\n", image->page, image->width, image->height, image->x,
                image->y, image->page_width, image->page_height, media::ImagePixelsName(image->format), out.c_str());
    if (!quiet) {
      std::fflush(stdout);
      const auto& e = stats.extract;
      std::fprintf(stderr,
                   "%llu ranges planned (%llu bytes) from %llu objects; resolve %.2f ms, plan %.2f ms, "
                   "read %.2f ms, decode %.2f ms\n",
                   static_cast<unsigned long long>(e.planned_ranges), static_cast<unsigned long long>(e.bytes_planned),
                   static_cast<unsigned long long>(e.objects), e.resolve_ns / 1e6, e.plan_ns / 1e6, e.read_ns / 1e6,
                   e.decode_ns / 1e6);
    }
    return kExitOk;
  }
};

}  // namespace

Command AddExtractImageCommand(CLI::App& root) {
  auto state = std::make_shared<ExtractImageState>();
  CLI::App* app =
      root.add_subcommand("extract-image", "Decode a page, region or thumbnail of an image row to PNG (image plugin)");
  app->footer(
      "Reads only the tiles or strips the request touches (TIFF, PDF rendered at ingest), or\n"
      "for GIF and WebP the frames from the page's restart frame on: a page is the frame as\n"
      "composited, written as an RGBA PNG. Pages count from 0. The plugin\n"
      "defaults to the one the column was ingested with, loaded only from this install's\n"
      "plugin directory. Examples:\n"
      "  lancet extract-image ds.lance --column image --row 0 --page 2 --out page.png\n"
      "  lancet extract-image ds.lance --row 0 --region 1000,2000,512,512 --out crop.png\n"
      "  lancet extract-image ds.lance --row 0 --thumbnail 256 --out thumb.png");
  app->add_option("DATASET", state->dataset, "Dataset directory")->required();
  app->add_option("--column", state->column, "Image blob column (default: image)");
  app->add_option("--row", state->row, "Row id")->required();
  app->add_option("--page", state->page, "Page (from 0; default 0)");
  auto* region = app->add_option("--region", state->region, "Only this area of the page: X,Y,W,H in pixels");
  auto* thumb = app->add_option("--thumbnail", state->thumbnail,
                                "Scale the page down so its longer side is W pixels (box filter; never enlarges)");
  region->excludes(thumb);
  app->add_option("--plugin,-p", state->plugin, "LIBRARY[:CONFIG_FILE]: the image plugin to use");
  app->add_option("--out,-o", state->out, "PNG path")->required();
  app->add_flag("--quiet,-q", state->quiet, "No statistics line on stderr");
  state->version.AddOptions(*app);
  return {app, [state] { return state->Run(); }};
}

}  // namespace lancet::cli
