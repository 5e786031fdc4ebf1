#include "image/anim_util.h"

#include <gif_lib.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include <cstring>
#include <memory>

#include "image/image_util.h"

namespace lancet::media::testing {
namespace {

int WriteToVector(GifFileType* gif, const GifByteType* data, int n) {
  auto* out = static_cast<std::vector<uint8_t>*>(gif->UserData);
  out->insert(out->end(), data, data + n);
  return n;
}

uint8_t GifIndex(const AnimFrame& f, uint32_t x, uint32_t y) {
  if (f.transparent && (x + y + f.seed) % 3 == 0) return 7;
  const auto i = static_cast<uint8_t>(x * 3 + y * 5 + f.seed * 11);
  return i == 7 ? 8 : i;
}

std::vector<uint8_t> WebpPattern(const AnimFrame& f) {
  std::vector<uint8_t> px(uint64_t{f.w} * f.h * 4);
  for (uint32_t y = 0; y < f.h; ++y) {
    for (uint32_t x = 0; x < f.w; ++x) {
      uint8_t* p = &px[(uint64_t{y} * f.w + x) * 4];
      p[0] = static_cast<uint8_t>(x * 7 + f.seed * 31);
      p[1] = static_cast<uint8_t>(y * 5 + f.seed * 17);
      p[2] = static_cast<uint8_t>((x + y) * 3 + f.seed);
      const uint32_t kind = (x / 3 + y / 2 + f.seed) % 4;
      p[3] = !f.transparent ? 255
             : kind == 0    ? 0
             : kind == 1    ? 255
             : kind == 2    ? 128
                            : static_cast<uint8_t>(x * y + f.seed);
    }
  }
  return px;
}

Status Save(const std::string& path, const uint8_t* data, size_t size) {
  WriteWholeFile(path, std::string(reinterpret_cast<const char*>(data), size));
  return Status::OK();
}

}  // namespace

Status WriteGif(const std::string& path, uint32_t w, uint32_t h, uint16_t loops, const std::vector<AnimFrame>& frames) {
  std::vector<uint8_t> out;
  int err = 0;
  GifFileType* gif = EGifOpen(&out, WriteToVector, &err);
  if (gif == nullptr) return Status::IOError(std::string("EGifOpen: ") + GifErrorString(err));
  EGifSetGifVersion(gif, true);
  GifColorType global[256], local[256];
  for (int i = 0; i < 256; ++i) {
    global[i] = {static_cast<GifByteType>(i * 37), static_cast<GifByteType>(i * 91), static_cast<GifByteType>(i * 53)};
    local[i] = {static_cast<GifByteType>(255 - i), static_cast<GifByteType>(i * 13), static_cast<GifByteType>(i)};
  }
  ColorMapObject* gmap = GifMakeMapObject(256, global);
  ColorMapObject* lmap = GifMakeMapObject(256, local);
  bool ok = EGifPutScreenDesc(gif, static_cast<int>(w), static_cast<int>(h), 8, 3, gmap) == GIF_OK;
  const uint8_t netscape[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  const uint8_t loop[] = {1, static_cast<uint8_t>(loops), static_cast<uint8_t>(loops >> 8)};
  ok = ok && EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
       EGifPutExtensionBlock(gif, sizeof netscape, netscape) == GIF_OK &&
       EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_OK && EGifPutExtensionTrailer(gif) == GIF_OK;
  for (const AnimFrame& f : frames) {
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = f.disposal;
    gcb.DelayTime = 4;
    gcb.TransparentColor = f.transparent ? 7 : NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    const size_t n = EGifGCBToExtension(&gcb, ext);
    ok = ok && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext) == GIF_OK;
    ok = ok && EGifPutImageDesc(gif, static_cast<int>(f.x), static_cast<int>(f.y), static_cast<int>(f.w),
                                static_cast<int>(f.h), f.interlace, f.local_colours ? lmap : nullptr) == GIF_OK;
    // Rows go in file order: interlaced images take rows 0,8,16.., 4,12.., 2,6.., 1,3...
    std::vector<uint32_t> order;
    if (f.interlace) {
      const uint32_t start[] = {0, 4, 2, 1}, step[] = {8, 8, 4, 2};
      for (int pass = 0; pass < 4; ++pass) {
        for (uint32_t y = start[pass]; y < f.h; y += step[pass]) order.push_back(y);
      }
    } else {
      for (uint32_t y = 0; y < f.h; ++y) order.push_back(y);
    }
    std::vector<GifPixelType> row(f.w);
    for (uint32_t y : order) {
      for (uint32_t x = 0; x < f.w; ++x) row[x] = GifIndex(f, x, y);
      ok = ok && EGifPutLine(gif, row.data(), static_cast<int>(f.w)) == GIF_OK;
    }
    // giflib 5.2.1 keeps a copy of a local colour table that nothing frees (the next image
    // descriptor overwrites the pointer, EGifCloseFile ignores it): free it here.
    if (gif->Image.ColorMap != nullptr) {
      GifFreeMapObject(gif->Image.ColorMap);
      gif->Image.ColorMap = nullptr;
    }
  }
  ok = EGifCloseFile(gif, &err) == GIF_OK && ok;
  GifFreeMapObject(gmap);
  GifFreeMapObject(lmap);
  if (!ok) return Status::IOError("giflib could not write " + path);
  return Save(path, out.data(), out.size());
}

Status WriteWebp(const std::string& path, uint32_t w, uint32_t h, uint32_t loops, uint32_t background,
                 const std::vector<AnimFrame>& frames) {
  std::unique_ptr<WebPMux, void (*)(WebPMux*)> mux(WebPMuxNew(), WebPMuxDelete);
  std::vector<std::unique_ptr<uint8_t, void (*)(void*)>> encoded;
  for (const AnimFrame& f : frames) {
    const std::vector<uint8_t> px = WebpPattern(f);
    uint8_t* out = nullptr;
    const int stride = static_cast<int>(f.w * 4);
    const size_t n = f.lossless
                         ? WebPEncodeLosslessRGBA(px.data(), static_cast<int>(f.w), static_cast<int>(f.h), stride, &out)
                         : WebPEncodeRGBA(px.data(), static_cast<int>(f.w), static_cast<int>(f.h), stride, 80, &out);
    if (n == 0) return Status::IOError("libwebp could not encode a frame");
    encoded.emplace_back(out, WebPFree);
    WebPMuxFrameInfo info{};
    info.bitstream = {out, n};
    info.x_offset = static_cast<int>(f.x);
    info.y_offset = static_cast<int>(f.y);
    info.duration = 40;
    info.id = WEBP_CHUNK_ANMF;
    info.dispose_method = f.disposal == 1 ? WEBP_MUX_DISPOSE_BACKGROUND : WEBP_MUX_DISPOSE_NONE;
    info.blend_method = f.blend ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND;
    if (WebPMuxPushFrame(mux.get(), &info, 1) != WEBP_MUX_OK) return Status::IOError("WebPMuxPushFrame failed");
  }
  WebPMuxAnimParams params{background, static_cast<int>(loops)};
  if (WebPMuxSetAnimationParams(mux.get(), &params) != WEBP_MUX_OK ||
      WebPMuxSetCanvasSize(mux.get(), static_cast<int>(w), static_cast<int>(h)) != WEBP_MUX_OK) {
    return Status::IOError("libwebp's mux refused the animation parameters");
  }
  WebPData data;
  WebPDataInit(&data);
  if (WebPMuxAssemble(mux.get(), &data) != WEBP_MUX_OK) return Status::IOError("WebPMuxAssemble failed");
  Status st = Save(path, data.bytes, data.size);
  WebPDataClear(&data);
  return st;
}

Status WriteStillWebp(const std::string& path, uint32_t w, uint32_t h) {
  AnimFrame f{0, 0, w, h};
  f.transparent = true;
  f.seed = 5;
  const std::vector<uint8_t> px = WebpPattern(f);
  uint8_t* out = nullptr;
  const size_t n =
      WebPEncodeLosslessRGBA(px.data(), static_cast<int>(w), static_cast<int>(h), static_cast<int>(w * 4), &out);
  if (n == 0) return Status::IOError("libwebp could not encode the image");
  Status st = Save(path, out, n);
  WebPFree(out);
  return st;
}

Result<Canvases> ComposeGif(const std::string& path) {
  int err = 0;
  GifFileType* gif = DGifOpenFileName(path.c_str(), &err);
  if (gif == nullptr) return Status::IOError(path + ": " + GifErrorString(err));
  if (DGifSlurp(gif) != GIF_OK) {
    DGifCloseFile(gif, &err);
    return Status::IOError(path + ": DGifSlurp failed");
  }
  Canvases c;
  c.width = static_cast<uint32_t>(gif->SWidth);
  c.height = static_cast<uint32_t>(gif->SHeight);
  std::vector<uint8_t> canvas(uint64_t{c.width} * c.height * 4, 0);
  for (int i = 0; i < gif->ImageCount; ++i) {
    const SavedImage& img = gif->SavedImages[i];
    const GifImageDesc& d = img.ImageDesc;
    GraphicsControlBlock gcb{};
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    DGifSavedExtensionToGCB(gif, i, &gcb);
    const ColorMapObject* map = d.ColorMap != nullptr ? d.ColorMap : gif->SColorMap;
    const std::vector<uint8_t> before = canvas;
    for (int y = 0; y < d.Height; ++y) {
      for (int x = 0; x < d.Width; ++x) {
        const int cx = d.Left + x, cy = d.Top + y;
        const int index = img.RasterBits[y * d.Width + x];
        if (cx >= gif->SWidth || cy >= gif->SHeight || index == gcb.TransparentColor) continue;
        uint8_t* p = &canvas[(uint64_t(cy) * c.width + cx) * 4];
        p[0] = map->Colors[index].Red;
        p[1] = map->Colors[index].Green;
        p[2] = map->Colors[index].Blue;
        p[3] = 255;
      }
    }
    c.frames.push_back(canvas);
    if (gcb.DisposalMode == DISPOSE_BACKGROUND) {
      for (int y = d.Top; y < d.Top + d.Height && y < gif->SHeight; ++y) {
        for (int x = d.Left; x < d.Left + d.Width && x < gif->SWidth; ++x) {
          std::memset(&canvas[(uint64_t(y) * c.width + x) * 4], 0, 4);
        }
      }
    } else if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
      canvas = before;
    }
  }
  DGifCloseFile(gif, &err);
  return c;
}

Result<Canvases> ComposeWebp(const std::string& path) {
  const std::string bytes = ReadWholeFile(path);
  WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return Status::InvalidArgument("libwebp version mismatch");
  options.color_mode = MODE_RGBA;
  std::unique_ptr<WebPAnimDecoder, void (*)(WebPAnimDecoder*)> dec(WebPAnimDecoderNew(&data, &options),
                                                                   WebPAnimDecoderDelete);
  if (dec == nullptr) return Status::IOError(path + ": WebPAnimDecoderNew failed");
  WebPAnimInfo info;
  if (!WebPAnimDecoderGetInfo(dec.get(), &info)) return Status::IOError(path + ": no animation info");
  Canvases c;
  c.width = info.canvas_width;
  c.height = info.canvas_height;
  while (WebPAnimDecoderHasMoreFrames(dec.get())) {
    uint8_t* buf = nullptr;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(dec.get(), &buf, &timestamp)) return Status::IOError(path + ": a frame failed");
    c.frames.emplace_back(buf, buf + uint64_t{c.width} * c.height * 4);
  }
  return c;
}

}  // namespace lancet::media::testing
