// Animated test inputs for the image plugin: GIFs written with giflib's EGif API and
// animated WebPs assembled with libwebp's mux API from frames it encodes, each frame with
// the rectangle, disposal and blending the test asks for; and the references every frame
// the plugin returns is compared with (a plain composition of DGifSlurp's frames; libwebp's
// WebPAnimDecoder).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lancet/result.h"

namespace lancet::media::testing {

/// One frame to write. GIF: disposal is the GIF code (0-3); pixels with the pattern's
/// transparent index stay transparent when `transparent`. WebP: disposal 0 none, 1
/// background; blend true alpha-blends; `lossless` picks VP8L, else VP8 (+ALPH).
struct AnimFrame {
  uint32_t x = 0, y = 0, w = 0, h = 0;
  int disposal = 0;
  bool transparent = false;
  bool blend = true;
  bool lossless = true;
  bool interlace = false;
  bool local_colours = false;
  uint32_t seed = 1;
};

/// A GIF of `w` x `h` with a 256-colour global table, a NETSCAPE2.0 loop count, and the
/// frames (pixels a pattern of `seed`, index 7 the transparent one where set).
Status WriteGif(const std::string& path, uint32_t w, uint32_t h, uint16_t loops, const std::vector<AnimFrame>& frames);
/// An animated WebP of `w` x `h` (offsets must be even); RGBA patterns with alpha 0, 255 and
/// in between (frames without `transparent` are opaque).
Status WriteWebp(const std::string& path, uint32_t w, uint32_t h, uint32_t loops, uint32_t background_bgra,
                 const std::vector<AnimFrame>& frames);
/// A still (VP8L) WebP.
Status WriteStillWebp(const std::string& path, uint32_t w, uint32_t h);

/// Every frame of `path` as a viewer shows it, w x h RGBA each.
struct Canvases {
  uint32_t width = 0, height = 0;
  std::vector<std::vector<uint8_t>> frames;
};
/// GIF: DGifSlurp's frames drawn in order on a transparent canvas, disposal 2 clearing the
/// frame's rectangle to transparent, 3 restoring the canvas from before the frame.
Result<Canvases> ComposeGif(const std::string& path);
/// WebP: libwebp's WebPAnimDecoder (MODE_RGBA).
Result<Canvases> ComposeWebp(const std::string& path);

}  // namespace lancet::media::testing
