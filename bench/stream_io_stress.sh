#!/usr/bin/env bash
# Peak anonymous memory of a streaming import and export: memory must not grow with
# the data (issue 13).
#
#   bench/stream_io_stress.sh BUILD_DIR [SIZE_MIB] [IMPORT_LIMIT_MIB] [EXPORT_LIMIT_MIB]
#
# ipc_stream_gen writes an Arrow IPC stream of about SIZE_MIB (default 2048) into a
# pipe read by `lancet import -` (no input file on disk); then `lancet export` writes
# the dataset to a pipe counted by wc. The peak RssAnon of each lancet process (from
# /proc/PID/status, polled every 50 ms) must stay under IMPORT_LIMIT_MIB (default 1024)
# and EXPORT_LIMIT_MIB (default 512); the dataset must hold every generated row and
# the export about as many bytes as went in. Then the same export as Parquet (row groups
# of at most 128 MiB of pages) to a pipe, under the same limit. Prints one line per step
# with the figures.
#
# Fragments are 65,536 rows (~70 MB): until the scan layer's streaming Dataset::NewScan
# replaces the CLI's per-fragment scan, the export holds one fragment at a time.
set -euo pipefail
BUILD="$(cd "${1:?usage: stream_io_stress.sh BUILD_DIR [SIZE_MIB] [IMPORT_LIMIT_MIB] [EXPORT_LIMIT_MIB]}" && pwd)"
SIZE_MIB="${2:-2048}"
IMPORT_LIMIT_MIB="${3:-1024}"
EXPORT_LIMIT_MIB="${4:-512}"
LANCET="$BUILD/bin/lancet"
GEN="$BUILD/bin/ipc_stream_gen"
for need in "$LANCET" "$GEN"; do [ -x "$need" ] || { echo "stream_io_stress: $need is missing" >&2; exit 2; }; done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-stream-stress.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Polls RssAnon of PID until it exits; prints the peak in KiB.
peak_rss_anon() {
  local pid=$1 peak=0 kib
  while [ -r "/proc/$pid/status" ]; do
    kib=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null || true)
    if [ -n "$kib" ] && [ "$kib" -gt "$peak" ]; then peak=$kib; fi
    sleep 0.05
  done
  echo "$peak"
}

start=$SECONDS
"$GEN" --size "${SIZE_MIB}m" 2>"$WORK/gen.txt" | "$LANCET" import - "$WORK/ds.lance" --max-rows-per-file 65536 \
  >"$WORK/import.txt" &
pid=$!
import_kib=$(peak_rss_anon "$pid")
wait "$pid" || { echo "stream_io_stress: FAIL: import failed" >&2; cat "$WORK/import.txt" >&2; exit 1; }
import_secs=$((SECONDS - start))
gen_rows=$(sed -n 's/^rows=\([0-9]*\) .*/\1/p' "$WORK/gen.txt")
gen_bytes=$(sed -n 's/.* bytes=\([0-9]*\)/\1/p' "$WORK/gen.txt")
got_rows=$(sed -n 's/^imported \([0-9]*\) rows.*/\1/p' "$WORK/import.txt")
printf 'stream_io_stress: import of %d MiB (%s rows) from a pipe in %d s, peak RssAnon %d MiB (limit %d MiB)\n' \
  $((gen_bytes / 1048576)) "$gen_rows" "$import_secs" $((import_kib / 1024)) "$IMPORT_LIMIT_MIB"
[ "$got_rows" = "$gen_rows" ] || { echo "stream_io_stress: FAIL: imported $got_rows rows of $gen_rows" >&2; exit 1; }

start=$SECONDS
"$LANCET" export "$WORK/ds.lance" - > >(wc -c >"$WORK/export_bytes") &
pid=$!
export_kib=$(peak_rss_anon "$pid")
wait "$pid" || { echo "stream_io_stress: FAIL: export failed" >&2; exit 1; }
export_secs=$((SECONDS - start))
# wc finishes once the pipe closes.
for _ in $(seq 100); do [ -s "$WORK/export_bytes" ] && break; sleep 0.1; done
out_bytes=$(tr -d ' ' <"$WORK/export_bytes")
printf 'stream_io_stress: export of %d MiB to a pipe in %d s, peak RssAnon %d MiB (limit %d MiB)\n' \
  $((out_bytes / 1048576)) "$export_secs" $((export_kib / 1024)) "$EXPORT_LIMIT_MIB"

start=$SECONDS
"$LANCET" export "$WORK/ds.lance" - --format parquet > >(wc -c >"$WORK/parquet_bytes") &
pid=$!
parquet_kib=$(peak_rss_anon "$pid")
wait "$pid" || { echo "stream_io_stress: FAIL: Parquet export failed" >&2; exit 1; }
parquet_secs=$((SECONDS - start))
for _ in $(seq 100); do [ -s "$WORK/parquet_bytes" ] && break; sleep 0.1; done
printf 'stream_io_stress: Parquet export of %d MiB to a pipe in %d s, peak RssAnon %d MiB (limit %d MiB)\n' \
  $(($(tr -d ' ' <"$WORK/parquet_bytes") / 1048576)) "$parquet_secs" $((parquet_kib / 1024)) "$EXPORT_LIMIT_MIB"

status=0
[ $((parquet_kib / 1024)) -lt "$EXPORT_LIMIT_MIB" ] || { echo "stream_io_stress: FAIL: Parquet export over its limit" >&2; status=1; }
[ $((import_kib / 1024)) -lt "$IMPORT_LIMIT_MIB" ] || { echo "stream_io_stress: FAIL: import over its limit" >&2; status=1; }
[ $((export_kib / 1024)) -lt "$EXPORT_LIMIT_MIB" ] || { echo "stream_io_stress: FAIL: export over its limit" >&2; status=1; }
# Same rows out as in: the export's size is the input's within the framing differences.
[ "$out_bytes" -gt $((gen_bytes * 9 / 10)) ] || { echo "stream_io_stress: FAIL: export holds $out_bytes bytes" >&2; status=1; }
exit $status
