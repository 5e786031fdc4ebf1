#!/usr/bin/env bash
# The main job as one story: short videos and images go into one dataset (the videos
# through the FFmpeg video plugin, with blob_info; the images as plain Blob V2; a caption
# and an embedding beside them); then an index, a filtered scan, frames and a clip out of
# the videos with a few small range reads, an image blob, an update shown as a diff, the
# dataset served over the Lance REST namespace API and listed by the reference's client,
# and the reference reading the part of the data that is in file format 2.2.
#
#   scripts/demo.sh BUILD_DIR
#
# BUILD_DIR holds bin/lancet and plugins/liblancet_video_ffmpeg.so. Everything goes under
# BUILD_DIR/demo (replaced). Needs the ffmpeg CLI and node (scripts/install-deps.sh).
set -euo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
PEER="$HERE/tests/peer"
LANCET="$BUILD/bin/lancet"
PLUGIN="$BUILD/plugins/liblancet_video_ffmpeg.so"
OUT="$BUILD/demo"
WH="$OUT/warehouse"
DS="$WH/clips.lance"
for need in "$LANCET" "$PLUGIN"; do
  [ -e "$need" ] || { echo "demo: $need is missing (build the lancet and lancet_video_ffmpeg targets)" >&2; exit 1; }
done
command -v ffmpeg >/dev/null || { echo "demo: the ffmpeg CLI is needed for the sample media" >&2; exit 1; }

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Echoes a command as it could be typed (words with blanks or quotes quoted), then runs it.
show() {
  local line="" w
  for w in "$@"; do
    if [[ "$w" =~ [^A-Za-z0-9_./:=,%@+-] ]]; then
      if [[ "$w" == *"'"* ]]; then w="\"$w\""; else w="'$w'"; fi
    fi
    line+="${line:+ }$w"
  done
  printf '$ %s\n' "$line" | sed "s|$OUT/|\$OUT/|g; s|$BUILD/bin/||g; s|$BUILD/|\$BUILD/|g"
  "$@"
}
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; true' EXIT

rm -rf "$OUT"
mkdir -p "$OUT/media" "$WH"
echo "outputs go to OUT=$OUT"

step "Installing the reference peer (LanceDB 0.39 / Lance 12) for the interop steps"
line="$("$PEER/setup.sh")"
export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"
echo "$line"

step "Making 3 short videos (H.264) and 3 images (PNG) with the ffmpeg CLI"
# kind size fps seconds GOP B-frames; a fixed bit rate keeps each video above the 64 KiB
# inline threshold, so every one goes through the plugin.
videos=("street 320x240 25 3 12 2" "drone 640x360 30 2.5 15 0" "dock 480x270 24 4 48 3")
for v in "${videos[@]}"; do
  read -r kind size fps secs gop bf <<<"$v"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$size:rate=$fps:duration=$secs" \
    -c:v libx264 -preset veryfast -b:v 600k -pix_fmt yuv420p -g "$gop" -keyint_min "$gop" -sc_threshold 0 \
    -bf "$bf" "$OUT/media/$kind.mp4"
  # One still per video: with a 16 KiB inline threshold the large one goes to a pack file.
  width=160; [ "$kind" = drone ] && width=640
  ffmpeg -nostdin -v error -y -ss 1 -i "$OUT/media/$kind.mp4" -frames:v 1 -vf "scale=$width:-2" "$OUT/media/$kind.png"
  printf '  %-6s %s.mp4 (%s, %s fps, %s s) %7d bytes; %s.png %7d bytes\n' "$kind" "$kind" "$size" "$fps" "$secs" \
    "$(stat -c %s "$OUT/media/$kind.mp4")" "$kind" "$(stat -c %s "$OUT/media/$kind.png")"
done

step "Rows as NDJSON: id, kind, caption, an 8-d embedding, the video and the image bytes"
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
captions=("a street at dusk, cars passing" "a drone over a field" "boats at a dock")
{
  i=0
  for v in "${videos[@]}"; do
    read -r kind _ <<<"$v"
    emb=$(awk -v s="$i" 'BEGIN { for (k = 0; k < 8; k++) printf "%s%.3f", (k ? "," : ""), sin(s * 3 + k) }')
    printf '{"id":%d,"kind":"%s","caption":"%s","embedding":[%s],"video":{"data":"%s"},"image":{"data":"%s"}}\n' \
      "$i" "$kind" "${captions[$i]}" "$emb" "$(hex "$OUT/media/$kind.mp4")" "$(hex "$OUT/media/$kind.png")"
    i=$((i + 1))
  done
} >"$OUT/clips.ndjson"
cat >"$OUT/clips.schema.json" <<'EOF'
{"fields": [
  {"name": "id", "type": "int64", "nullable": false},
  {"name": "kind", "type": "utf8"},
  {"name": "caption", "type": "utf8"},
  {"name": "embedding", "type": "fixed_size_list", "list_size": 8, "children": [{"name": "item", "type": "float32"}]},
  {"name": "video", "type": "struct", "children": [{"name": "data", "type": "large_binary"}, {"name": "uri", "type": "utf8"}]},
  {"name": "image", "type": "struct", "children": [{"name": "data", "type": "large_binary"}, {"name": "uri", "type": "utf8"}]}
]}
EOF
echo "  $OUT/clips.ndjson: 3 rows, $(stat -c %s "$OUT/clips.ndjson") bytes"

step "lancet import: video through the video plugin (blob_info, format 2.3), image as Blob V2"
show "$LANCET" import "$OUT/clips.ndjson" "$DS" --schema "$OUT/clips.schema.json" --enable-stable-row-ids \
  --blob video --blob image:inline=16k --media "video=$PLUGIN"
show "$LANCET" info "$DS" --no-encodings

step "A scalar index on kind, and a filtered scan that uses it"
show "$LANCET" index create "$DS" kind --type bitmap
show "$LANCET" scan "$DS" --where "kind = 'drone' OR kind = 'dock'" --columns id,kind,caption
show "$LANCET" scan "$DS" --where "kind = 'drone' OR kind = 'dock'" --explain

step "Nearest neighbours of row 0's embedding (flat search, no index needed)"
query=$(sed -n 1p "$OUT/clips.ndjson" | grep -o '"embedding":\[[^]]*\]' | cut -d: -f2)
show "$LANCET" search "$DS" embedding --vector "$query" -k 2 --columns id,kind

step "Frames of a time window to PNG, and a clip to MP4, each with a few small range reads"
show "$LANCET" extract-frame "$DS" --row 0 --window 1.0:1.4 --out "$OUT/frames/street_%04d.png"
show "$LANCET" extract-clip "$DS" --row 1 --window 1:2 --out "$OUT/drone_clip.mp4"

step "An image blob, fetched as bytes; where each image lives (placed by size)"
show "$LANCET" blob locate "$DS" image 0 1 2
show "$LANCET" blob get "$DS" image 1 -o "$OUT/drone.png"
cmp "$OUT/drone.png" "$OUT/media/drone.png" && echo "  identical to the image that went in"

step "Update a caption, then show what changed between the two versions"
before=$("$LANCET" info "$DS" --no-encodings | sed -n 's/^Version: *//p')
show "$LANCET" update "$DS" --where "id = 2" --set "caption = 'boats at a dock, at dawn'"
after=$((before + 1))
show "$LANCET" diff "$DS" "$before" "$after" --columns id,caption --old-values

step "The part of the data in file format 2.2: copied out of the 2.3 dataset, read by the reference"
show "$LANCET" export "$DS" "$OUT/clips22.arrows" --columns id,kind,caption,embedding,image --blob-bytes
show "$LANCET" import "$OUT/clips22.arrows" "$WH/clips22.lance"
"$LANCET" info "$WH/clips22.lance" --no-encodings | grep -m1 data_format
"$LANCET" dump "$WH/clips22.lance" >"$OUT/clips22.lancet.json"
node "$PEER/dump.mjs" "$WH/clips22.lance" >"$OUT/clips22.reference.json"
printf 'the reference vs Lancet on clips22.lance: '
node "$PEER/check.mjs" "$OUT/clips22.lancet.json" "$OUT/clips22.reference.json" --quiet
printf 'the reference on clips.lance (2.3, blob_info): '
if node "$PEER/dump.mjs" "$DS" >/dev/null 2>"$OUT/clips23.reference.err"; then
  echo "read it (unexpected: readers that do not know 2.3 must refuse)" && exit 1
fi
echo "refuses, as readers that do not know 2.3 must:"
grep -m1 -o 'This dataset cannot be read by this version of Lance[^,]*' "$OUT/clips23.reference.err" | head -1 | sed 's/^/  /' || true

step "lancet serve: the warehouse over the Lance REST namespace API, listed by the reference's client"
"$LANCET" serve --root "$WH" --port 0 --quiet >"$OUT/serve.out" 2>"$OUT/serve.err" &
SERVER_PID=$!
for _ in $(seq 100); do grep -q listening "$OUT/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$OUT/serve.out" | head -1)
[ -n "$url" ] || { echo "demo: lancet serve did not start: $(cat "$OUT/serve.err")" >&2; exit 1; }
echo "lancet serve: listening on $url"
node "$HERE/scripts/demo-rest-client.mjs" "$url" clips22
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""

step "Done: the outputs"
echo "  dataset (2.3, videos with blob_info):   $DS"
echo "  dataset (2.2, read by the reference):   $WH/clips22.lance"
echo "  frames (PNG):                           $OUT/frames/ ($(ls "$OUT/frames" | wc -l) files)"
echo "  clip (MP4):                             $OUT/drone_clip.mp4 ($(stat -c %s "$OUT/drone_clip.mp4") bytes)"
echo "  image blob:                             $OUT/drone.png"
echo "  sample media:                           $OUT/media/"
echo "To look at them in a browser: $LANCET serve --root $WH --ui   (then open http://127.0.0.1:2333/ui/)"
