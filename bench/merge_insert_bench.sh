#!/usr/bin/env bash
# merge_insert of bench.mjs's source into its 1M-row mixed table: Lancet vs the reference.
#
#   bench/merge_insert_bench.sh BUILD_DIR [DATASET] [REPS]
#
# DATASET (default /tmp/mb/mixed_1m.lance) is made by `bench.mjs --op make-dataset`
# when absent. merge_bench_source.mjs writes the source bench.mjs's merge-insert op
# builds (100k rows, half of them existing ids) as an IPC stream; each Lancet run is
# `lancet merge COPY SRC --on id` on a fresh copy (the copy is not timed) under
# /usr/bin/time for its peak RSS, once with the default budget and once with
# --memory-mb 16 (the source spills). Then `bench.mjs --op merge-insert` times the
# reference on the same dataset in the same run. Prints medians, the ratio and peaks.
set -euo pipefail
BUILD="$(cd "${1:?usage: merge_insert_bench.sh BUILD_DIR [DATASET] [REPS]}" && pwd)"
DATASET="${2:-/tmp/mb/mixed_1m.lance}"
REPS="${3:-3}"
LANCET="$BUILD/bin/lancet"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/.." && pwd -P)"
PEER="$REPO/tests/peer"
export LANCE_PEER_DIR="${LANCE_PEER_DIR:-$HOME/.cache/lance-peer}"
[ -x "$LANCET" ] || { echo "merge_insert_bench: $LANCET is missing" >&2; exit 2; }

if [ ! -d "$DATASET" ]; then
  mkdir -p "$(dirname "$DATASET")"
  node "$PEER/bench.mjs" --op make-dataset --out "$DATASET" >/dev/null
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-merge-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
read -r src_rows src_matched src_bytes < <(node "$HERE/../tests/interop/merge_bench_source.mjs" "$DATASET" "$WORK/src.arrows" 2> >(grep -v ' WARN ' >&2))
echo "source: $src_rows rows ($src_matched existing ids), $src_bytes bytes in Arrow"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# run_lancet LABEL EXTRA_ARGS...: prints "median_ms peak_rss_mb" over REPS runs.
run_lancet() {
  local label=$1; shift
  local times=() peak=0
  for ((i = 0; i < REPS; i++)); do
    rm -rf "$WORK/copy.lance"
    cp -r "$DATASET" "$WORK/copy.lance"
    sync
    local t0 t1 rss
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$WORK/rss" "$LANCET" merge "$WORK/copy.lance" "$WORK/src.arrows" --on id "$@" >"$WORK/out"
    t1=$(date +%s%N)
    rss=$(tail -1 "$WORK/rss")
    grep -q "$((src_rows - src_matched)) inserted, $src_matched updated, 0 deleted" "$WORK/out" ||
      { echo "merge_insert_bench: unexpected lancet output: $(cat "$WORK/out")" >&2; exit 2; }
    times+=($(( (t1 - t0) / 1000000 )))
    ((rss > peak)) && peak=$rss
  done
  echo "$label: $(cat "$WORK/out")" >&2
  echo "$(printf '%s\n' "${times[@]}" | median) $((peak / 1024))"
}

read -r l_ms l_rss < <(run_lancet "lancet")
read -r s_ms s_rss < <(run_lancet "lancet --memory-mb 16" --memory-mb 16)
ref_json="$(node "$PEER/bench.mjs" --op merge-insert "$DATASET" --reps "$REPS" --quiet 2> >(grep -v ' WARN ' >&2))"
r_ms="$(node -e 'const j = JSON.parse(process.argv[1]); console.log(Math.round(j.median_ms))' "$ref_json")"
r_rss="$(node -e 'const j = JSON.parse(process.argv[1]); console.log(j.max_rss_mb)' "$ref_json")"
echo "reference merge-insert: median ${r_ms} ms, peak RSS ${r_rss} MB (node process)"
echo "lancet merge:           median ${l_ms} ms, peak RSS ${l_rss} MB; ratio lancet/reference $(awk -v a="$l_ms" -v b="$r_ms" 'BEGIN {printf "%.2f", a / b}')"
echo "spilled (--memory-mb 16): median ${s_ms} ms, peak RSS ${s_rss} MB (source spilled)"
