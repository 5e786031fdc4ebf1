#!/usr/bin/env bash
# Peak memory of ingesting one large MP4 through the video plugin: the plugin spools the
# source and pushes GOPs out as it demuxes, so memory must not grow with the file.
#
#   bench/video_ingest_stress.sh BUILD_DIR [SIZE_MIB] [LIMIT_MIB]
#
# Makes an H.264 MP4 of about SIZE_MIB (default 1024) by remuxing a short clip in a loop
# (no re-encode, so seconds), ingests it with `lancet ingest --media`, and fails unless
# the peak resident set stays under LIMIT_MIB (default 256) and `lancet info` reports
# every frame of the source. Prints one line with the figures.
set -euo pipefail
BUILD="$(cd "${1:?usage: video_ingest_stress.sh BUILD_DIR [SIZE_MIB] [LIMIT_MIB]}" && pwd)"
SIZE_MIB="${2:-1024}"
LIMIT_MIB="${3:-256}"
LANCET="$BUILD/bin/lancet"
PLUGIN="$BUILD/plugins/liblancet_video_ffmpeg.so"
for need in "$LANCET" "$PLUGIN"; do [ -e "$need" ] || { echo "video_ingest_stress: $need is missing" >&2; exit 2; }; done
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { echo "video_ingest_stress: needs ffmpeg and ffprobe" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "video_ingest_stress: needs /usr/bin/time (apt install time)" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-video-stress.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src"
# A high bit rate keeps the seed clip short; ultrafast keeps encoding to a few seconds.
ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=1280x720:rate=25 -t 20 -c:v libx264 -preset ultrafast \
  -b:v 20M -g 50 -pix_fmt yuv420p "$WORK/seed.mp4"
seed_bytes=$(stat -c %s "$WORK/seed.mp4")
loops=$(( (SIZE_MIB * 1048576 + seed_bytes - 1) / seed_bytes ))
ffmpeg -nostdin -v error -stream_loop $((loops - 1)) -i "$WORK/seed.mp4" -c copy "$WORK/src/big.mp4"
bytes=$(stat -c %s "$WORK/src/big.mp4")
frames=$(ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=nb_read_packets -of csv=p=0 "$WORK/src/big.mp4")

start=$SECONDS
/usr/bin/time -f '%M' -o "$WORK/maxrss" "$LANCET" ingest "$WORK/src" "$WORK/ds.lance" --column video \
  --media "video=$PLUGIN" >/dev/null
secs=$((SECONDS - start))
rss_kib=$(tail -1 "$WORK/maxrss")
info="$("$LANCET" info "$WORK/ds.lance" --no-encodings)"
got=$(sed -n 's/.* \([0-9][0-9]*\) frames.*/\1/p' <<<"$info" | head -1)

printf 'video_ingest_stress: %d MiB MP4 (%s frames) ingested in %d s, peak RSS %d MiB (limit %d MiB), %s frames stored\n' \
  $((bytes / 1048576)) "$frames" "$secs" $((rss_kib / 1024)) "$LIMIT_MIB" "${got:-?}"
[ "$got" = "$frames" ] || { echo "video_ingest_stress: FAIL: stored $got frames, the source has $frames" >&2; exit 1; }
[ $((rss_kib / 1024)) -lt "$LIMIT_MIB" ] || { echo "video_ingest_stress: FAIL: peak RSS over the limit" >&2; exit 1; }
