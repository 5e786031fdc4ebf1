#!/usr/bin/env bash
# index_bench.sh BUILD_DIR DATASET [REPS]
#
# The reference builds a BTree on id in its own copy of DATASET (the 1M-row mixed
# dataset of bench.mjs make-dataset) and times `id = 500000` through it; then
# index_bench times the same lookup and the other index queries on Lancet's copy.
# Copies share DATASET's data files (hard links: neither side rewrites a data file).
set -euo pipefail
BUILD="$1" DS="$2" REPS="${3:-5}"
HERE="$(cd "$(dirname "$0")" && pwd -P)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-index-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
. "$HERE/dataset_copy.sh"
copy_dataset "$DS" "$WORK/ref.lance"
copy_dataset "$DS" "$WORK/ours.lance"
: "${LANCE_PEER_DIR:=$HOME/.cache/lance-peer}"
export LANCE_PEER_DIR
node "$HERE/../tests/peer/bench.mjs" --op create-index,index-lookup "$WORK/ref.lance" --column id --type btree \
  --in-place --where "id = 500000" --reps "$REPS" --quiet > "$WORK/ref.jsonl"
"$BUILD/bin/index_bench" "$WORK/ours.lance" --ref "$WORK/ref.jsonl" --ref-dataset "$WORK/ref.lance" --reps "$REPS"
