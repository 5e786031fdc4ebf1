#!/usr/bin/env bash
# knn_bench.sh BUILD_DIR DATASET [TYPE...]
#
# Vector search against the reference in one run, on copies of DATASET (bench.mjs
# make-vector-dataset; its query file DATASET.queries.json beside it): exact search on
# both sides, then for each TYPE (default ivf_pq ivf_flat hnsw_sq) each side builds its
# own index on its own copy and searches it with the same parameters. Prints knn_bench's
# table and ratio per case, and both sides' build times.
#   KNN_REPS (1), KNN_NPROBES (20), KNN_REFINE (unset), KNN_PARAMS ("num_partitions=256"),
#   KNN_EF (unset; a comma list: both sides search each index again at each ef, the
#   reference through knn_ef.mjs, with refine KNN_EF_REFINE when set), KNN_EXACT (1; 0
#   skips the exact-search pass)
set -euo pipefail
BUILD="$1" DS="$2"
shift 2
TYPES=("$@")
[ ${#TYPES[@]} -gt 0 ] || TYPES=(ivf_pq ivf_flat hnsw_sq)
REPS="${KNN_REPS:-1}" NPROBES="${KNN_NPROBES:-20}"
HERE="$(cd "$(dirname "$0")" && pwd -P)"
B="$HERE/../tests/peer/bench.mjs"
LANCE_PEER_HOME="$HERE/../tests/peer"
: "${LANCE_PEER_DIR:=$HOME/.cache/lance-peer}"
export LANCE_PEER_DIR
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-knn-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
. "$HERE/dataset_copy.sh"
QUERIES="$DS.queries.json"
refine_args=() bench_refine=()
if [ -n "${KNN_REFINE:-}" ]; then refine_args=(--refine-factor "$KNN_REFINE"); bench_refine=(--refine-factor "$KNN_REFINE"); fi

if [ "${KNN_EXACT:-1}" != 0 ]; then
  echo "== exact search"
  node "$B" knn "$DS" --bypass-index --reps "$REPS" --warmup 0 --queries "$QUERIES" --quiet > "$WORK/flat.jsonl"
  "$BUILD/bin/knn_bench" "$DS" --queries "$QUERIES" --bypass-index --reps "$REPS" --ref "$WORK/flat.jsonl"
fi

read -r -a PARAMS <<< "${KNN_PARAMS:-num_partitions=256}"
for type in "${TYPES[@]}"; do
  echo "== $type (${PARAMS[*]}, nprobes $NPROBES${KNN_REFINE:+, refine $KNN_REFINE})"
  copy_dataset "$DS" "$WORK/ref_$type.lance"
  copy_dataset "$DS" "$WORK/ours_$type.lance"
  peer_params=()
  for p in "${PARAMS[@]}"; do peer_params+=(--param "$p"); done
  node "$B" --op create-index "$WORK/ref_$type.lance" --column vec --type "$type" --in-place "${peer_params[@]}" \
    --quiet > "$WORK/$type.jsonl"
  node "$B" knn "$WORK/ref_$type.lance" --reps "$REPS" --warmup 0 --nprobes "$NPROBES" "${refine_args[@]}" \
    --queries "$QUERIES" --quiet >> "$WORK/$type.jsonl"
  lancet_type="$type"
  [ "$type" = hnsw_sq ] && lancet_type=ivf_hnsw_sq
  lancet_params=()
  for p in "${PARAMS[@]}"; do lancet_params+=(--param "$p"); done
  start=$(date +%s.%N)
  "$BUILD/bin/lancet" index create "$WORK/ours_$type.lance" vec --type "$lancet_type" "${lancet_params[@]}" > /dev/null
  end=$(date +%s.%N)
  ref_build=$(node -e 'const l=require("fs").readFileSync(process.argv[1],"utf8").split("\n").filter(Boolean).map(JSON.parse).find(x=>x.op==="create-index"); console.log(l?l.median_ms:"?")' "$WORK/$type.jsonl")
  printf 'build %s: lancet %.0f ms, reference %s ms\n' "$type" "$(awk -v a="$start" -v b="$end" 'BEGIN{print (b-a)*1000}')" "$ref_build"
  "$BUILD/bin/knn_bench" "$WORK/ours_$type.lance" --queries "$QUERIES" --nprobes "$NPROBES" "${bench_refine[@]}" \
    --reps "$REPS" --ref "$WORK/$type.jsonl" --label "$type"
  [ -n "${KNN_EF:-}" ] || continue
  ef_refine=()
  [ -n "${KNN_EF_REFINE:-}" ] && ef_refine=(--refine-factor "$KNN_EF_REFINE")
  node "$HERE/knn_ef.mjs" "$LANCE_PEER_HOME" "$WORK/ref_$type.lance" "$QUERIES" --nprobes "$NPROBES" --ef "$KNN_EF" \
    "${ef_refine[@]}" \
    > "$WORK/ef.jsonl" 2> >(grep -v ' WARN ' >&2)
  while read -r line; do
    ef=$(node -e 'console.log(JSON.parse(process.argv[1]).ef)' "$line")
    echo "$line" > "$WORK/ef_one.jsonl"
    echo "== $type at ef $ef${KNN_EF_REFINE:+, refine $KNN_EF_REFINE}"
    "$BUILD/bin/knn_bench" "$WORK/ours_$type.lance" --queries "$QUERIES" --nprobes "$NPROBES" --ef "$ef" \
      "${ef_refine[@]}" --reps "$REPS" --ref "$WORK/ef_one.jsonl" --label "$type ef $ef"
  done < "$WORK/ef.jsonl"
done
