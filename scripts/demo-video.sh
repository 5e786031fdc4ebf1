#!/usr/bin/env bash
# The video part of the demo: three short videos made with the ffmpeg CLI go into a
# dataset through the video plugin; then `lancet info` describes them from their
# stream_info, and frames of a window come back as PNG files and a window as an MP4
# clip, each read with a few small range reads.
#
#   scripts/demo-video.sh BUILD OUTDIR
#
# BUILD is a build tree with bin/lancet and plugins/liblancet_video_ffmpeg.so. Everything
# is written under OUTDIR (replaced if present). Takes a few seconds.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD OUTDIR" >&2
  exit 64
fi
BUILD=$(cd "$1" && pwd)
OUT=$2
LANCET="$BUILD/bin/lancet"
PLUGIN="$BUILD/plugins/liblancet_video_ffmpeg.so"
for need in "$LANCET" "$PLUGIN"; do
  [ -e "$need" ] || { echo "demo-video: $need is missing (build the lancet and lancet_video_ffmpeg targets)" >&2; exit 1; }
done
command -v ffmpeg >/dev/null || { echo "demo-video: the ffmpeg CLI is needed to make the sample videos" >&2; exit 1; }

rm -rf "$OUT"
mkdir -p "$OUT/videos"
say() { printf '\n== %s\n' "$*"; }

# Different sizes, frame rates, GOP lengths and B-frame depths. A fixed bit rate keeps
# every file above the 64 KiB inline threshold, so each one goes through the plugin.
say "making 3 sample videos with ffmpeg (testsrc2, H.264)"
make_video() { # name size fps seconds gop bframes
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$2:rate=$3:duration=$4" \
    -c:v libx264 -preset veryfast -b:v 600k -pix_fmt yuv420p -g "$5" -keyint_min "$5" -sc_threshold 0 -bf "$6" \
    "$OUT/videos/$1.mp4"
  printf '  %s.mp4: %s, %s fps, %s s, GOP %s, %s B-frames\n' "$1" "$2" "$3" "$4" "$5" "$6"
}
make_video street 320x240 25 3 12 2
make_video drone 640x360 30 2.5 15 0
make_video dock 480x270 24 4 48 3

say "lancet ingest (one row per video, through the video plugin)"
"$LANCET" ingest "$OUT/videos" "$OUT/videos.lance" --glob '*.mp4' --column video --media "video=$PLUGIN"

say "lancet info (duration, fps, resolution, codec and GOPs from each row's stream_info)"
"$LANCET" info "$OUT/videos.lance" --no-encodings

# Rows are in path order: dock (0), drone (1), street (2).
say "lancet extract-frame: every frame of street.mp4 in [1.0 s, 1.4 s) to PNG"
"$LANCET" extract-frame "$OUT/videos.lance" --row 2 --window 1.0:1.4 --out "$OUT/frames/street_%04d.png"

say "lancet extract-frame: the keyframes of dock.mp4, gray, 240 pixels wide"
"$LANCET" extract-frame "$OUT/videos.lance" --row 0 --window 0:4 --keyframes --format gray8 --width 240 \
  --out "$OUT/frames/dock_key_%04d.png"

say "lancet extract-clip: drone.mp4 from 1.0 s to 2.0 s as MP4 (remuxed, no re-encode)"
"$LANCET" extract-clip "$OUT/videos.lance" --row 1 --window 1:2 --out "$OUT/drone_clip.mp4"

say "results"
echo "  dataset: $OUT/videos.lance"
echo "  frames:  $OUT/frames/ ($(ls "$OUT/frames" | wc -l) PNG files)"
echo "  clip:    $OUT/drone_clip.mp4 ($(stat -c %s "$OUT/drone_clip.mp4") bytes)"
