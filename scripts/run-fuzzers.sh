#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/bin for a bounded time, seeded with real
# files the reference wrote (generated with the peer when it is installed).
#   scripts/run-fuzzers.sh BUILD_DIR
# FUZZ_SECONDS (default 60) bounds the file reader's target, the widest parser;
# the others get a third of it, which keeps CI's total near two minutes.
set -euo pipefail
BUILD="${1:?usage: run-fuzzers.sh BUILD_DIR}"
SECONDS_PER="${FUZZ_SECONDS:-60}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
PEER="${LANCET_PEER_HARNESS:-$HERE/tests/peer}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-fuzz.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

seeds_for() {  # $1 = fuzzer name -> seed dir
  local dir="$WORK/seeds-$1"; mkdir -p "$dir"
  case "$1" in
    file_reader_fuzz|encoding_fuzz)
      if [ -d "$WORK/corpus/data" ]; then
        find "$WORK/corpus/data" -name '*.lance' -path '*/data/*' -size -512k -exec cp {} "$dir/" \; 2>/dev/null || true
      fi ;;
    ipc_fuzz)
      if [ -d "$WORK/corpus/data" ]; then
        find "$WORK/corpus/data" -name '*.arrow' -exec cp {} "$dir/" \; 2>/dev/null || true
      fi ;;
    parquet_read_fuzz)
      # small DuckDB-written files: flat and nested, data pages v1 and v2, three codecs
      cp "$HERE"/fuzz/seeds/parquet/*.parquet "$dir/" ;;
    manifest_fuzz)
      if [ -d "$WORK/corpus/data" ]; then
        find "$WORK/corpus/data" -name '*.manifest' -size -256k -exec cp {} "$dir/" \; 2>/dev/null || true
      fi ;;
    expr_parse_fuzz)
      local i=0 p
      for p in "i = 1" "u >= 3 AND NOT (s = 'a' OR s IS NULL)" "p.x < 4 OR p.y <> 'q'" \
               "t > timestamp '2023-11-14 22:13:20Z' AND d <= date '2022-01-01'" "f != -0.0 OR b IS NOT TRUE" \
               "i8 + i8 * 2 % 3 > -i" "s NOT LIKE '%\\_a%' AND ls IN ('ABC', NULL)" "f32 BETWEEN -1 AND h" \
               "CAST(s AS INT) = 1 OR CAST(i AS STRING) = '7'" "lower(upper(s)) = s AND starts_with(ls, '%')" \
               "array_has(l, 3) OR array_has_any(lstr, ['b']) OR array_length(lf) = 2" "u64 / 2 > u64 - 1"; do
        printf '%s' "$p" > "$dir/seed$((i++))"
      done ;;
    media_plugin_fuzz)
      # mode byte, split byte, then a request the chunks plugin accepts
      printf '\x00\x10chunks=0-2,7' > "$dir/seed0"
      printf '\x03\x08chunks=1' > "$dir/seed1" ;;
    video_plan_fuzz)
      # mode byte, split byte, [patches,] then a request: window [0, 1), frames {0, 3},
      # and a window [0.5, 1.5) with one byte of stream_info and of entries patched
      printf '\x10\x00LVRQ\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f' > "$dir/seed0"
      printf '\x10\x00LVRQ\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00' > "$dir/seed1"
      printf '\x1c\x000\x00\x01\x40\x00\x08LVRQ\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xe0\x3f\x00\x00\x00\x00\x00\x00\xf8\x3f' > "$dir/seed2" ;;
    audio_plan_fuzz)
      # mode byte, split byte, [patches,] then a request: window [0.5, 1) as f32, the
      # same as s16 at 16 kHz mono with one byte of entries and of the stored stream patched
      printf '\x10\x00LARQ\x01\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xe0\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f' > "$dir/seed0"
      printf '\x38\x00\x40\x00\x01\x00\x10\x08LARQ\x01\x00\x01\x00\x80\x3e\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xe0\x3f\x00\x00\x00\x00\x00\x00\xf0\x3f' > "$dir/seed1" ;;
    image_plan_fuzz)
      # mode byte, split byte, [patches,] then a request: page 0, a region of page 0, and
      # a thumbnail of page 1 with one byte of entries patched
      printf '\x10\x00LIRQ\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$dir/seed0"
      printf '\x10\x00LIRQ\x01\x00\x02\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x05\x00\x00\x00\x14\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00' > "$dir/seed1"
      printf '\x18\x00\x30\x00\x01LIRQ\x01\x00\x03\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00' > "$dir/seed2"
      # frame 2 of the GIF fixture (bits 6-7 = 1), a region of frame 1 of the WebP one (2)
      printf '\x50\x00LIRQ\x01\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$dir/seed3"
      printf '\x90\x00LIRQ\x01\x00\x02\x00\x01\x00\x00\x00\x04\x00\x00\x00\x03\x00\x00\x00\x10\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x00\x00' > "$dir/seed4" ;;
    serve_ui_fuzz)
      # path below /ui/, query, Host: rows with a filter, a table, the walk, a frame, a
      # blob of a plain column, a page file, a video with a foreign Host
      printf 'api/rows\0table=t&where=id%%3E3&limit=5&offset=1\000127.0.0.1:80' > "$dir/seed0"
      printf 'api/table\0table=t' > "$dir/seed1"
      printf 'api/tables\0\0localhost' > "$dir/seed2"
      printf 'api/frame\0table=t&column=name&row=1&t=0.5&width=64' > "$dir/seed3"
      printf 'api/blob\0table=t&column=id&row=0' > "$dir/seed4"
      printf 'app.js' > "$dir/seed5"
      printf 'api/video\0table=t&column=name&row=3\0evil:1' > "$dir/seed6" ;;
    import_json_fuzz)
      cat > "$dir/seed0" <<'JSON'
{"fields": [{"name": "i", "type": "int64"}, {"name": "s", "type": "utf8"},
 {"name": "l", "type": "list", "children": [{"name": "item", "type": "float32"}]},
 {"name": "st", "type": "struct", "children": [{"name": "b", "type": "binary"}, {"name": "d", "type": "decimal128", "precision": 10, "scale": 2}]}],
 "rows": [{"i": "-5", "s": "\u00e9", "l": [1.5, null, "NaN"], "st": {"b": "00ff", "d": "-1.25"}}, {"i": null}]}
JSON
      ;;
  esac
  echo "$dir"
}

if line="$("$PEER/setup.sh" 2>/dev/null)"; then
  export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"
  node "$PEER/gen.mjs" "$WORK/corpus" --only types,types_extra,deletions,blobs_custom >/dev/null 2>&1 || true
fi

status=0
for fz in "$BUILD"/bin/*_fuzz; do
  [ -x "$fz" ] || continue
  name="$(basename "$fz")"
  seeds="$(seeds_for "$name")"
  mkdir -p "$WORK/out-$name"
  secs="$SECONDS_PER"; [ "$name" = file_reader_fuzz ] || secs=$(( (SECONDS_PER + 2) / 3 ))
  echo "fuzz: $name for ${secs}s ($(ls "$seeds" | wc -l) seeds)"
  if ! "$fz" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=1048576 -timeout=10 \
      -artifact_prefix="$HERE/fuzz/crashes/$name-" "$WORK/out-$name" "$seeds" >"$WORK/$name.log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$WORK/$name.log"; status=1
  else
    grep -E '^(Done|#[0-9]+.*DONE)' "$WORK/$name.log" | tail -1 || true
  fi
done
exit $status
