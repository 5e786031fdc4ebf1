#!/usr/bin/env bash
# Reading, writing and blob benchmarks against the reference on the same data, in one run.
#   scripts/bench.sh BUILD_DIR [ROWS] [read|write|blob|video|audio|s3|all]     (data kept in BUILD_DIR/bench-data)
# ROWS sizes the mixed dataset of read/write; blob uses bench.mjs's blob dataset
# (1000 inline blobs of 1-64 KiB + 20 dedicated of 5-50 MiB, 597 MB). video runs
# bench_extract_frame --quick (frames of a video: ExtractFrames vs FFmpeg over BlobFile).
# s3 (not part of all) puts the mixed dataset (ROWS, 200k when not given) and the blob
# dataset on the radosgw of scripts/s3-server.sh (started when AWS_ENDPOINT_URL is unset)
# under a fresh prefix, times the reference and Lancet on both copies (take, scan,
# fetch-blobs small/large: s3_compare_bench, with ratio lines), one extract_frames
# window on S3 (bench_extract_frame --store), and removes the prefix.
set -euo pipefail
BUILD="${1:-build}"
WHAT="${3:-all}"
ROWS="${2:-$([ "$WHAT" = s3 ] && echo 200k || echo 1m)}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
PEER="${LANCET_PEER_HARNESS:-$HERE/tests/peer}"
B="$PEER/bench.mjs"
DATA="$BUILD/bench-data"
mkdir -p "$DATA"
line="$("$PEER/setup.sh")"
export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"
DS="$DATA/mixed_$ROWS.lance"
if [ "$WHAT" != blob ] && [ "$WHAT" != video ] && [ "$WHAT" != audio ] && [ "$WHAT" != s3 ] && [ ! -d "$DS/_versions" ]; then
  echo "bench: the reference writes $ROWS mixed rows into $DS" >&2
  node "$B" --op make-dataset --out "$DS" --rows "$ROWS" --quiet > "$DATA/make.jsonl"
fi
if [ "$WHAT" = all ] || [ "$WHAT" = read ]; then
  echo "bench: timing the reference (bench.mjs scan, take, filter-scan)" >&2
  node "$B" --op scan,take "$DS" --quiet > "$DATA/ref.jsonl"
  node "$B" scan "$DS" --columns id,value --quiet >> "$DATA/ref.jsonl"
  # 1 % of the mixed rows (value is uniform in [0, 1000)), every column.
  node "$B" filter-scan "$DS" --where "value > 990" --quiet >> "$DATA/ref.jsonl"
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
if [ "$WHAT" = all ] || [ "$WHAT" = blob ]; then
  BDS="$DATA/blobs.lance"
  if [ ! -d "$BDS/_versions" ]; then
    echo "bench: the reference writes the blob dataset into $BDS" >&2
    node "$B" --op make-blob-dataset --out "$BDS" --quiet > "$DATA/make_blobs.jsonl"
  fi
  echo "bench: timing the reference (bench.mjs fetch-blobs, read-range)" >&2
  node "$B" --op fetch-blobs,read-range "$BDS" --quiet > "$DATA/ref_blob.jsonl"
  echo "bench: timing Lancet (blob_bench)" >&2
  "$BUILD/bin/blob_bench" "$BDS" > "$DATA/lancet_blob.jsonl"
  # One row per measurement: medians, throughputs and Lancet's throughput / the reference's.
  node - "$DATA/ref_blob.jsonl" "$DATA/lancet_blob.jsonl" <<'JS'
const fs = require("fs");
const load = (f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const key = (m) => m.op + (m.set ? " " + m.set : "");
const ref = new Map(load(process.argv[2]).map((m) => [key(m), m]));
const pad = (s, n) => String(s).padStart(n);
console.log(`${"measurement".padEnd(20)} ${pad("reference", 12)} ${pad("lancet", 12)} ${pad("ref MB/s", 10)} ${pad("lancet MB/s", 12)} ${pad("ratio", 8)}  lancet call only`);
for (const m of load(process.argv[3])) {
  const r = ref.get(key(m));
  const name = m.op === "read-range" ? `read-range ${m.size / 1024} KiB` : `${key(m)} (${m.rows})`;
  const ratio = r && m.median_ms > 0 ? (r.median_ms / m.median_ms).toFixed(2) + "x" : "n/a";
  console.log(`${name.padEnd(20)} ${pad(r ? r.median_ms.toFixed(3) + "ms" : "n/a", 12)} ${pad(m.median_ms.toFixed(3) + "ms", 12)} ` +
    `${pad(r ? r.mb_per_s : "n/a", 10)} ${pad(m.mb_per_s, 12)} ${pad(ratio, 8)}  ${m.call_median_ms.toFixed(3)}ms`);
}
JS
fi
if [ "$WHAT" = all ] || [ "$WHAT" = video ]; then
  if [ -x "$BUILD/bin/bench_extract_frame" ]; then
    echo "bench: frames of a video (bench_extract_frame --quick)" >&2
    "$BUILD/bin/bench_extract_frame" --quick
  else
    echo "bench: no bench_extract_frame in $BUILD (built only with FFmpeg's libraries)" >&2
  fi
fi
if [ "$WHAT" = all ] || [ "$WHAT" = audio ]; then
  if [ -x "$BUILD/bin/bench_extract_audio" ]; then
    echo "bench: windows of audio (bench_extract_audio --quick)" >&2
    "$BUILD/bin/bench_extract_audio" --quick
  else
    echo "bench: no bench_extract_audio in $BUILD (built only with FFmpeg's libraries)" >&2
  fi
fi
if [ "$WHAT" = s3 ]; then
  if [ -z "${AWS_ENDPOINT_URL:-}" ] || [ -z "${LANCET_TEST_BUCKET:-}" ]; then
    eval "$("$HERE/scripts/s3-server.sh" start)"
  fi
  CMP="$BUILD/bin/s3_compare_bench"
  [ -x "$CMP" ] || { echo "bench: build the s3_compare_bench target first" >&2; exit 2; }
  MDS="$DATA/mixed_$ROWS.lance"
  BDS="$DATA/blobs.lance"
  if [ ! -d "$MDS/_versions" ]; then
    echo "bench: the reference writes $ROWS mixed rows into $MDS" >&2
    node "$B" --op make-dataset --out "$MDS" --rows "$ROWS" --quiet > "$DATA/make.jsonl"
  fi
  if [ ! -d "$BDS/_versions" ]; then
    echo "bench: the reference writes the blob dataset into $BDS" >&2
    node "$B" --op make-blob-dataset --out "$BDS" --quiet > "$DATA/make_blobs.jsonl"
  fi
  PREFIX="s3://$LANCET_TEST_BUCKET/bench-$$-$RANDOM"
  trap '"$CMP" rm "$PREFIX"' EXIT
  "$CMP" copy "$MDS" "$PREFIX/mixed.lance"
  "$CMP" copy "$BDS" "$PREFIX/blobs.lance"
  # The reference reads with LanceDB's storage-option keys; the JSON stays out of the output.
  SO="$(node -e 'const e = process.env; process.stdout.write(JSON.stringify({
    aws_access_key_id: e.AWS_ACCESS_KEY_ID, aws_secret_access_key: e.AWS_SECRET_ACCESS_KEY,
    aws_endpoint: e.AWS_ENDPOINT_URL, aws_region: e.AWS_REGION || "us-east-1",
    allow_http: "true", aws_virtual_hosted_style_request: "false"}))')"
  REF="$DATA/ref_s3.jsonl"
  : > "$REF"
  echo "bench: timing the reference on local disk and on S3 (bench.mjs take, scan, fetch-blobs)" >&2
  node "$B" --op take,scan "$MDS" --quiet >> "$REF"
  node "$B" --op take,scan "$PREFIX/mixed.lance" --storage-options "$SO" --quiet >> "$REF"
  node "$B" fetch-blobs "$BDS" --rows small,large --reps 3 --quiet >> "$REF"
  node "$B" fetch-blobs "$PREFIX/blobs.lance" --rows small,large --reps 3 --storage-options "$SO" --quiet >> "$REF"
  if grep -qF -e "$AWS_SECRET_ACCESS_KEY" "$REF"; then echo "bench: a credential reached $REF" >&2; exit 2; fi
  echo "bench: timing Lancet (s3_compare_bench)" >&2
  "$CMP" --mixed "$MDS" --mixed-s3 "$PREFIX/mixed.lance" --blobs "$BDS" --blobs-s3 "$PREFIX/blobs.lance" --ref "$REF"
  if [ -x "$BUILD/bin/bench_extract_frame" ]; then
    echo "bench: one extract_frames window, local disk and S3 (bench_extract_frame --store)" >&2
    "$BUILD/bin/bench_extract_frame" --quick --windows 1 --store "$PREFIX"
  else
    echo "bench: no bench_extract_frame in $BUILD (built only with FFmpeg's libraries)" >&2
  fi
fi
