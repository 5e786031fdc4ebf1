#!/usr/bin/env bash
# Reading and writing benchmarks against the reference on the same 1M-row data, in one run.
#   scripts/bench.sh BUILD_DIR [ROWS] [read|write|all]     (data kept in BUILD_DIR/bench-data)
set -euo pipefail
BUILD="${1:-build}"
ROWS="${2:-1m}"
WHAT="${3:-all}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
SHARED="${LANCET_SHARED_DIR:-$HERE/../shared}"
B="$SHARED/peer/bench.mjs"
DATA="$BUILD/bench-data"
mkdir -p "$DATA"
line="$("$SHARED/peer/setup.sh")"
export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"
DS="$DATA/mixed_$ROWS.lance"
if [ ! -d "$DS/_versions" ]; then
  echo "bench: the reference writes $ROWS mixed rows into $DS" >&2
  node "$B" --op make-dataset --out "$DS" --rows "$ROWS" --quiet > "$DATA/make.jsonl"
fi
if [ "$WHAT" = all ] || [ "$WHAT" = read ]; then
  echo "bench: timing the reference (bench.mjs scan, take)" >&2
  node "$B" --op scan,take "$DS" --quiet > "$DATA/ref.jsonl"
  node "$B" scan "$DS" --columns id,value --quiet >> "$DATA/ref.jsonl"
  echo "bench: timing Lancet" >&2
  "$BUILD/bin/read_bench" "$DS" --ref "$DATA/ref.jsonl"
fi
if [ "$WHAT" = all ] || [ "$WHAT" = write ]; then
  # bench.mjs write generates the same rows as make-dataset (same recipe and seed);
  # write_bench scans them from $DS and writes them as one dataset.
  echo "bench: timing the reference (bench.mjs write)" >&2
  rm -rf "$DATA/ref_write.lance"
  node "$B" write "$DATA/ref_write.lance" --rows "$ROWS" --reps 3 --quiet > "$DATA/ref_write.jsonl"
  rm -rf "$DATA/ref_write.lance"
  echo "bench: timing Lancet (write)" >&2
  "$BUILD/bin/write_bench" "$DS" "$DATA/write" --ref "$DATA/ref_write.jsonl" --reps 3
  rm -rf "$DATA/write"
  echo "bench: file sizes, reference files rewritten by Lancet" >&2
  "$BUILD/bin/write_bench" --files "$DS" --out "$DATA/rewrite"
fi
