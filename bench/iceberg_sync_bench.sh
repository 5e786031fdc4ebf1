#!/usr/bin/env bash
# iceberg_sync_bench.sh BUILD_DIR [ROWS] [PERCENT]
#
# `lancet iceberg sync` after PERCENT % (default 1) of a ROWS-row table (default 1000000;
# parquet_bench's rows: id, x, name, flag, score, tags) changed, against `lancet iceberg
# export` of the whole table measured in the same run, which is what a sink without CDC
# would have to redo. Three changes, each synced on its own: an update of PERCENT % of the
# rows, a delete of PERCENT %, an append of PERCENT %. Wall time and peak RSS of each
# lancet process (/usr/bin/time); one run each, since every sync consumes its change.
set -euo pipefail
BUILD="$1" ROWS="${2:-1000000}" PCT="${3:-1}"
LANCET="$BUILD/bin/lancet"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-iceberg-sync-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
MOD=$(awk -v p="$PCT" 'BEGIN { printf "%d", 100 / p }')

"$BUILD/bin/parquet_bench" --rows "$ROWS" --reps 1 --codec none --out "$WORK/src.parquet" > /dev/null
"$LANCET" import "$WORK/src.parquet" "$WORK/ds" --enable-stable-row-ids > /dev/null

# Runs a lancet command; prints "seconds peak_rss_mib".
timed() {
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$LANCET" "$@" > "$WORK/out" 2>&1 || {
    cat "$WORK/out" >&2
    exit 1
  }
  awk '{ printf "%s %.0f", $1, $2 / 1024 }' "$WORK/time"
}

read -r export_s export_mib <<< "$(timed iceberg export "$WORK/ds" "$WORK/tbl")"
printf 'iceberg export %d rows: %.2f s, peak RSS %d MiB\n' "$ROWS" "$export_s" "$export_mib"

report() {
  local what="$1" s mib
  read -r s mib <<< "$(timed iceberg sync "$WORK/ds" "$WORK/tbl")"
  printf 'sync after %-28s %.2f s, peak RSS %d MiB, %.3f of the export time (%s)\n' "$what:" "$s" "$mib" \
    "$(awk -v a="$s" -v b="$export_s" 'BEGIN { print a / b }')" "$(head -1 "$WORK/out" | cut -d, -f1-2)"
}

"$LANCET" update "$WORK/ds" --where "id % $MOD = 7" --set "x=-1.0" > /dev/null
report "update of $PCT % of rows"
"$LANCET" delete "$WORK/ds" --where "id % $MOD = 11" > /dev/null
report "delete of $PCT % of rows"
APPEND=$((ROWS * ${PCT%.*} / 100))
[ "$APPEND" -gt 0 ] || APPEND=$((ROWS / MOD))
"$BUILD/bin/parquet_bench" --rows "$APPEND" --reps 1 --codec none --out "$WORK/more.parquet" > /dev/null
"$LANCET" import "$WORK/more.parquet" "$WORK/ds" --mode append > /dev/null
report "append of $APPEND rows"
