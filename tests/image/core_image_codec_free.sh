#!/usr/bin/env bash
# The core stays free of image codecs: only the image plugin links libtiff (and through it
# libjpeg; zlib's deflate is the core's own), giflib, libwebp and poppler. Fails when a
# core library refers to a libtiff/libjpeg/libpng/libwebp/giflib/poppler symbol or the CLI
# needs one of their shared libraries.
#   core_image_codec_free.sh BUILD_DIR
set -euo pipefail
BUILD="${1:?usage: core_image_codec_free.sh BUILD_DIR}"
fail=0
libs=("$BUILD"/lib/liblancet_*.a)
[ -e "${libs[0]}" ] || { echo "core_image_codec_free: no core libraries in $BUILD/lib" >&2; exit 2; }
for lib in "${libs[@]}"; do
  if found=$(nm -u --format=posix "$lib" 2>/dev/null | awk '{print $1}' | grep -E '^(TIFF|_TIFF|jpeg_|png_|WebP|DGif|EGif|_ZN7poppler)' | sort -u | head -5) &&
     [ -n "$found" ]; then
    echo "FAIL: $(basename "$lib") refers to an image codec: $found"
    fail=1
  fi
done
if readelf -d "$BUILD/bin/lancet" | grep -E 'NEEDED.*lib(tiff|jpeg|png|webp|gif|poppler)'; then
  echo "FAIL: bin/lancet links an image codec"
  fail=1
fi
[ "$fail" = 0 ] && echo "core_image_codec_free: ${#libs[@]} core libraries and the CLI are free of image codecs"
exit "$fail"
