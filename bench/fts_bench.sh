#!/usr/bin/env bash
# fts_bench.sh BUILD_DIR [ROWS]
#
# Full-text search against the reference in one run: bench.mjs writes a text dataset
# (ROWS documents, default 1m, and its 50 queries), each side builds its FTS index on
# its own copy (both timed), then each side searches its own index; Lancet also searches
# the reference's. Prints fts_bench's tables with the build and query ratios.
#   FTS_REPS (3)
set -euo pipefail
BUILD="$1" ROWS="${2:-1m}"
REPS="${FTS_REPS:-3}"
HERE="$(cd "$(dirname "$0")" && pwd -P)"
B="$HERE/../tests/peer/bench.mjs"
: "${LANCE_PEER_DIR:=$HOME/.cache/lance-peer}"
export LANCE_PEER_DIR
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-fts-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
. "$HERE/dataset_copy.sh"
echo "== dataset: $ROWS documents"
node "$B" make-text-dataset --out "$WORK/text.lance" --rows "$ROWS" --quiet > /dev/null
for side in ref ours; do
  copy_dataset "$WORK/text.lance" "$WORK/$side.lance"
  cp "$WORK/text.lance.queries.json" "$WORK/$side.lance.queries.json"
done
echo "== build"
node "$B" create-index "$WORK/ref.lance" --column body --type fts --in-place --quiet > "$WORK/ref_build.jsonl"
"$BUILD/bin/fts_bench" "$WORK/ours.lance" --build --ref-build "$WORK/ref_build.jsonl" --reps 0
echo "== search (k=10, $REPS passes over the queries)"
node "$B" fts "$WORK/ref.lance" --reps "$REPS" --quiet > "$WORK/ref.jsonl"
"$BUILD/bin/fts_bench" "$WORK/ours.lance" --reps "$REPS" --ref "$WORK/ref.jsonl" --label "lancet (own index)"
"$BUILD/bin/fts_bench" "$WORK/ref.lance" --reps "$REPS" --ref "$WORK/ref.jsonl" --label "lancet (reference's index)"
