#!/usr/bin/env bash
# parquet_bench.sh BUILD_DIR [ROWS] [CODEC]
#
# Parquet against DuckDB in one run, on the rows parquet_bench generates (ROWS, default
# 1000000, of id int64, x float64, name utf8, flag bool, score int32 with nulls, tags
# list<int32>), CODEC default snappy, best of 3, DuckDB (tests/validators, via node)
# with 1 thread and with all cores:
# * write: DuckDB COPYs the rows to Parquet; parquet_bench writes them from memory.
#   DuckDB's time includes making the rows from range(), ours does not.
# * read: both read every row of DuckDB's file (DuckDB sums every column; Lancet drains
#   OpenParquetReader's batches).
# * export: the file imported into a Lance dataset, then `lancet export` of it to
#   Parquet and to an Arrow IPC stream (wall time, best of 3).
set -euo pipefail
BUILD="$1" ROWS="${2:-1000000}" CODEC="${3:-snappy}"
HERE="$(cd "$(dirname "$0")" && pwd -P)"
NODE_MODULES="$("$HERE/../tests/validators/setup.sh")"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-parquet-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
case "$CODEC" in lz4) DUCK_CODEC=lz4_raw ;; none) DUCK_CODEC=uncompressed ;; *) DUCK_CODEC="$CODEC" ;; esac
cat > "$WORK/duck.mjs" <<'JS'
import fs from 'node:fs';
import path from 'node:path';
const [nodeModules, rows, codec, out] = process.argv.slice(2);
const { DuckDBInstance } = await import(path.join(nodeModules, '@duckdb/node-api/lib/index.js'));
const inst = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
const con = await inst.connect();
const copy = `COPY (SELECT i AS id, i * 0.5 AS x, 'name-' || (i % 10000) AS name, i % 3 = 0 AS flag,
  CASE WHEN i % 10 = 0 THEN NULL ELSE CAST(i * 7 % 1000 AS INTEGER) END AS score,
  list_transform(range(i % 4), j -> CAST(i + j AS INTEGER)) AS tags
  FROM range(${rows}) t(i)) TO '${out}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 1048576)`;
for (const threads of [1, (await con.runAndReadAll('SELECT current_setting(\'threads\') AS t')).getRowObjectsJson()[0].t]) {
  await con.run(`SET threads = ${threads}`);
  let best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = process.hrtime.bigint();
    await con.run(copy);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  console.log(JSON.stringify({ op: 'duckdb_write', threads: Number(threads), seconds: best, bytes: fs.statSync(out).size }));
  best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = process.hrtime.bigint();
    await con.runAndReadAll(`SELECT sum(id), sum(x), sum(length(name)), count_if(flag), sum(score), sum(len(tags))
      FROM read_parquet('${out}')`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  console.log(JSON.stringify({ op: 'duckdb_read', threads: Number(threads), seconds: best }));
}
JS
node "$WORK/duck.mjs" "$NODE_MODULES" "$ROWS" "$DUCK_CODEC" "$WORK/duck.parquet" > "$WORK/duck.jsonl"
"$BUILD/bin/parquet_bench" --rows "$ROWS" --codec "$CODEC" --out "$WORK/ours.parquet" --ref "$WORK/duck.jsonl"
"$BUILD/bin/parquet_bench" --read "$WORK/duck.parquet" --ref "$WORK/duck.jsonl"

# Export of the same rows from a Lance dataset: Parquet against Arrow IPC.
"$BUILD/bin/lancet" import "$WORK/duck.parquet" "$WORK/ds.lance" > /dev/null
best_of_3() {
  local best=""
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    best=$(awk -v a="$best" -v t0="$t0" -v t1="$t1" 'BEGIN { b = t1 - t0; print (a == "" || b < a) ? b : a }')
  done
  echo "$best"
}
pq=$(best_of_3 "$BUILD/bin/lancet" export "$WORK/ds.lance" "$WORK/out.parquet" --compression "$CODEC")
ipc=$(best_of_3 "$BUILD/bin/lancet" export "$WORK/ds.lance" "$WORK/out.arrows")
printf 'export   %s rows: Parquet (%s) %.3f s, %.1f MB; Arrow IPC stream %.3f s, %.1f MB; Parquet/IPC time %.2f\n' \
  "$ROWS" "$CODEC" "$pq" "$(stat -c %s "$WORK/out.parquet" | awk '{print $1/1e6}')" "$ipc" \
  "$(stat -c %s "$WORK/out.arrows" | awk '{print $1/1e6}')" "$(awk -v a="$pq" -v b="$ipc" 'BEGIN { print a / b }')"
