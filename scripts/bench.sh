#!/usr/bin/env bash
# Reading benchmark against the reference on the same 1M-row dataset, in one run.
#   scripts/bench.sh BUILD_DIR [ROWS]      (data kept in BUILD_DIR/bench-data)
set -euo pipefail
BUILD="${1:-build}"
ROWS="${2:-1m}"
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
echo "bench: timing the reference (bench.mjs scan, take)" >&2
node "$B" --op scan,take "$DS" --quiet > "$DATA/ref.jsonl"
node "$B" scan "$DS" --columns id,value --quiet >> "$DATA/ref.jsonl"
echo "bench: timing Lancet" >&2
"$BUILD/bin/read_bench" "$DS" --ref "$DATA/ref.jsonl"
