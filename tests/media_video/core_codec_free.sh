#!/usr/bin/env bash
# The core stays codec-free: only plugins (and the benchmark's baseline) may use FFmpeg.
# Fails when a core library refers to a libav*/libswscale symbol or the CLI needs one of
# their shared libraries.
#   core_codec_free.sh BUILD_DIR
set -euo pipefail
BUILD="${1:?usage: core_codec_free.sh BUILD_DIR}"
fail=0
libs=("$BUILD"/lib/liblancet_*.a)
[ -e "${libs[0]}" ] || { echo "core_codec_free: no core libraries in $BUILD/lib" >&2; exit 2; }
for lib in "${libs[@]}"; do
  if found=$(nm -u --format=posix "$lib" 2>/dev/null | awk '{print $1}' | grep -E '^(av|avcodec|avformat|avio|sws|swr)_' | sort -u | head -5) &&
     [ -n "$found" ]; then
    echo "FAIL: $(basename "$lib") refers to FFmpeg: $found"
    fail=1
  fi
done
if readelf -d "$BUILD/bin/lancet" | grep -E 'NEEDED.*lib(av|sw)'; then
  echo "FAIL: bin/lancet links FFmpeg"
  fail=1
fi
[ "$fail" = 0 ] && echo "core_codec_free: ${#libs[@]} core libraries and the CLI are free of FFmpeg"
exit "$fail"
