#!/usr/bin/env bash
# The main job, end to end: the reference writes a blob dataset, Lancet reads it;
# Lancet writes one, the reference reads it; videos go in and frames come out.
#   scripts/demo.sh BUILD_DIR
set -euo pipefail
BUILD="${1:-build}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
PEER="$HERE/tests/peer"
LANCET="$BUILD/bin/lancet"
OUT="$BUILD/demo"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Installing the reference peer (LanceDB 0.39 / Lance 12)"
line="$("$PEER/setup.sh")"; echo "$line"
export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"

step "The reference writes a small corpus (blob datasets) into $OUT"
node "$PEER/gen.mjs" "$OUT" --only blobs,blobs_custom,types | tail -1

DS="$OUT/data/blobs.lance"
step "lancet info $DS"
"$LANCET" info "$DS"

step "lancet scan $DS --limit 5 (blob columns come back as descriptors)"
"$LANCET" scan "$DS" --limit 5

step "lancet blob get: bytes of a packed blob (row 5) and a dedicated one (row 7)"
for row in 5 7; do
  "$LANCET" blob get "$DS" video "$row" -o "$OUT/blob-$row.bin"
  printf 'row %s: %s bytes, sha256 %s\n' "$row" "$(stat -c %s "$OUT/blob-$row.bin")" \
    "$(sha256sum "$OUT/blob-$row.bin" | cut -d' ' -f1)"
done

step "Cross-check: Lancet's reading of every version vs the reference's ground truth"
for name in blobs blobs_custom types; do
  "$LANCET" dump "$OUT/data/$name.lance" --all-versions > "$OUT/$name.lancet.json"
  printf '%-14s ' "$name"; node "$PEER/check.mjs" "$OUT/expected/$name.json" "$OUT/$name.lancet.json" --quiet
done

W="$OUT/written.lance"
rm -rf "$W" "$OUT/types.arrows"
step "Lancet writes: export types.lance, import it as a new dataset, append, delete, tag"
"$LANCET" export "$OUT/data/types.lance" "$OUT/types.arrows"
"$LANCET" import "$OUT/types.arrows" "$W"
"$LANCET" import "$OUT/types.arrows" "$W" --mode append
"$LANCET" delete "$W" --where "id < 5"
"$LANCET" tag "$W" create after_delete
# Captured first: a pipe into head would end lancet early, and pipefail would make that fatal.
info="$("$LANCET" info "$W")"
sed -n '1,4p' <<<"$info"

step "The reference reads every version Lancet wrote"
"$LANCET" dump "$W" --all-versions > "$OUT/written.lancet.json"
node "$PEER/dump.mjs" "$W" --all-versions > "$OUT/written.reference.json"
printf '%-14s ' written; node "$PEER/check.mjs" "$OUT/written.lancet.json" "$OUT/written.reference.json" --quiet

step "Video frames with a few small range reads: the FFmpeg video plugin"
"$HERE/scripts/demo-video.sh" "$BUILD" "$OUT/video"

step "Done"
echo "Everything the demo wrote is under $OUT: the reference's corpus (data/), Lancet's"
echo "dataset (written.lance), and the video dataset with its frames and clip (video/)."
