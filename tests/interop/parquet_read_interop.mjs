#!/usr/bin/env node
// parquet_read_interop.mjs LANCET_BIN NODE_MODULES WORK_DIR
//
// Lancet's Parquet reader against DuckDB as the independent writer and oracle. DuckDB
// writes tables covering every type the reader maps (ints signed and unsigned, floats,
// bool, strings, blobs, decimals on INT32/INT64/FIXED_LEN_BYTE_ARRAY, date, time,
// timestamps in ms/us/ns with and without UTC, UUID) with nulls (and all-null columns),
// and nested lists, structs, maps, lists of structs, structs of lists and lists of lists;
// each table goes out with every codec (uncompressed, snappy, gzip, zstd, lz4_raw), dictionaries on and
// off, several row groups, and PARQUET_VERSION v2 (data page v2, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT). `lancet import` then `lancet dump` must
// give exactly the values DuckDB reads back from the same file, and the schema must
// carry DuckDB's FIELD_IDS and KV_METADATA. Prints one PASS/FAIL line per check and
// exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, nodeModules, work] = process.argv.slice(2);
if (!lancet || !nodeModules || !work) {
  process.stderr.write("usage: parquet_read_interop.mjs LANCET_BIN NODE_MODULES WORK_DIR\n");
  process.exit(64);
}
const { DuckDBInstance } = await import(path.join(nodeModules, "@duckdb/node-api/lib/index.js"));
const db = await DuckDBInstance.create(":memory:", {
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
  threads: "1",
});
const con = await db.connect();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} parquet_read_interop ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
function run(args, what) {
  const r = spawnSync(lancet, args, { encoding: "utf8", maxBuffer: 1 << 28, timeout: 120000 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr || r.error}`);
  return r.stdout;
}
async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}

// Rows with every null pattern: every column is null on its own rows (i % 11 = column's
// turn), so nulls land in every page and row group.
const N = 3000;
const nul = (k, expr) => `CASE WHEN i % 11 = ${k} THEN NULL ELSE ${expr} END`;
const TABLES = {
  flat: `SELECT
    ${nul(0, "(i % 256 - 128)::TINYINT")} AS i8, ${nul(1, "(i * 7 - 9000)::SMALLINT")} AS i16,
    ${nul(2, "(i * 100003 - 7)::INTEGER")} AS i32, ${nul(3, "(i * 1000000007 - 3)::BIGINT")} AS i64,
    ${nul(4, "(i % 256)::UTINYINT")} AS u8, ${nul(5, "(i * 21)::USMALLINT")} AS u16,
    ${nul(6, "(i * 1431655)::UINTEGER")} AS u32, ${nul(7, "(18446744073709551615 - i * 3)::UBIGINT")} AS u64,
    ${nul(8, "(i / 3 - 400)::FLOAT")} AS f32, ${nul(9, "(i / 7 - 200)::DOUBLE")} AS f64,
    ${nul(10, "i % 3 = 0")} AS b, ${nul(0, "'s' || (i % 37) || repeat('x', i % 5)")} AS s,
    ${nul(1, "('\\x00\\xFF' || i)::BLOB")} AS bl, ${nul(2, "(i * 1.25 - 999)::DECIMAL(6,2)")} AS d4,
    ${nul(3, "(i * 1.125 - 50)::DECIMAL(18,3)")} AS d18,
    ${nul(4, "(i * 12345678901.5 - 1)::DECIMAL(38,10)")} AS d38, ${nul(5, "DATE '1960-01-01' + i::INTEGER * 13")} AS dt,
    ${nul(6, "TIME '00:00:00' + INTERVAL (i * 17) SECOND")} AS tm,
    ${nul(7, "TIMESTAMP '1965-06-01 00:00:00' + INTERVAL (i * 86413) SECOND")} AS ts,
    ${nul(8, "TIMESTAMPTZ '2001-01-01 00:00:00+00' + INTERVAL (i * 61) SECOND")} AS tstz,
    ${nul(9, "(TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i * 1001) MILLISECOND)::TIMESTAMP_MS")} AS tsms,
    ${nul(10, "(TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i * 3) MICROSECOND)::TIMESTAMP_NS")} AS tsns,
    ${nul(0, "('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID")} AS uu,
    NULL::INTEGER AS none_i, NULL::VARCHAR AS none_s
    FROM range(${N}) t(i)`,
  nested: `SELECT
    ${nul(0, "CASE WHEN i % 4 = 1 THEN [] ELSE [i, NULL, i * 2] END")} AS li,
    ${nul(1, "{'a': i, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE 'b' || i END}")} AS st,
    ${nul(2, "{'xs': CASE WHEN i % 5 = 0 THEN NULL ELSE [i, i + 1] END, 'n': i % 9}")} AS st_of_list,
    ${nul(3, "[{'x': i, 'y': 'y' || i}, NULL, {'x': NULL, 'y': NULL}]")} AS list_of_st,
    ${nul(4, "MAP {'k' || i: i, 'z': CASE WHEN i % 2 = 0 THEN NULL ELSE -i END}")} AS m,
    ${nul(5, "[[i], [], NULL, [NULL, i + 1]]")} AS ll,
    ${nul(6, "['a' || i, NULL, '']")} AS ls,
    [i % 3 = 0, NULL] AS lb
    FROM range(${N}) t(i)`,
};

// DuckDB's read-back, cast to the form `lancet dump` prints: integers in text, binary and
// UUIDs as lowercase hex, decimals unscaled, dates as days, times and timestamps as
// counts of their unit since midnight / the epoch.
const CANON = {
  bl: "lower(hex(bl))",
  d4: "replace(d4::VARCHAR, '.', '')::HUGEINT::VARCHAR",
  d18: "replace(d18::VARCHAR, '.', '')::HUGEINT::VARCHAR",
  d38: "replace(d38::VARCHAR, '.', '')::HUGEINT::VARCHAR",
  dt: "(dt - DATE '1970-01-01')",
  tm: "datediff('microsecond', TIME '00:00:00', tm)",
  ts: "epoch_us(ts)",
  tstz: "epoch_us(tstz)",
  tsms: "epoch_ms(tsms)",
  tsns: "epoch_ns(tsns)",
  uu: "replace(uu::VARCHAR, '-', '')",
};
const FLOAT32 = new Set(["f32"]);

// Scalars compare as text (both sides print 64-bit integers as strings); float32 by value
// after rounding to float32, since the two print different digit counts.
function canon(v, name) {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map((x) => canon(x, name));
  if (typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canon(x, name)]));
  if (FLOAT32.has(name)) return String(Math.fround(Number(v)));
  if (typeof v === "number") return String(v);
  return String(v);
}

function compare(what, expected, got) {
  if (expected.length !== got.length) return report(false, what, `${got.length} rows, DuckDB ${expected.length}`);
  for (let r = 0; r < expected.length; r++) {
    for (const name of Object.keys(expected[r])) {
      const e = JSON.stringify(canon(expected[r][name], name));
      const g = JSON.stringify(canon(got[r][name], name));
      if (e !== g) return report(false, what, `row ${r} column ${name}: lancet ${g}, DuckDB ${e}`);
    }
  }
  report(true, what, `${got.length} rows`);
}

async function check(table, file, what, options) {
  await con.run(`COPY (${TABLES[table]}) TO '${file}' (FORMAT parquet, ${options})`);
  const described = await rows(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
  const select = described.map((c) => `${CANON[c.column_name] ?? c.column_name} AS ${c.column_name}`).join(", ");
  const expected = await rows(`SELECT ${select} FROM read_parquet('${file}', file_row_number = true) ORDER BY file_row_number`);
  const ds = path.join(work, path.basename(file, ".parquet"));
  run(["import", file, ds], `import ${what}`);
  const dump = JSON.parse(run(["dump", "--no-history", ds], `dump ${what}`));
  const snapshot = dump.snapshots[dump.snapshots.length - 1];
  compare(what, expected, snapshot.rows);
  return snapshot.schema;
}

const codecs = ["uncompressed", "snappy", "gzip", "zstd", "lz4_raw"];
for (const table of Object.keys(TABLES)) {
  for (const codec of codecs) {
    const file = path.join(work, `${table}_${codec}.parquet`);
    await check(table, file, `${table} ${codec}`, `COMPRESSION ${codec}, ROW_GROUP_SIZE 1024`);
  }
  await check(table, path.join(work, `${table}_nodict.parquet`), `${table} no dictionary`,
              "COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 1");
  await check(table, path.join(work, `${table}_v2.parquet`), `${table} parquet v2`,
              "COMPRESSION snappy, PARQUET_VERSION V2, ROW_GROUP_SIZE 2000");
  await check(table, path.join(work, `${table}_v2_plain.parquet`), `${table} parquet v2 uncompressed`,
              "COMPRESSION uncompressed, PARQUET_VERSION V2");
  await check(table, path.join(work, `${table}_v2_gzip.parquet`), `${table} parquet v2 gzip, no dictionary`,
              "COMPRESSION gzip, PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1, ROW_GROUP_SIZE 2048");
}

// The v2 files must really hold the delta and byte-stream-split encodings.
const encodings = new Set((await rows(`SELECT encodings FROM parquet_metadata('${path.join(work, "flat_v2.parquet")}')`))
  .flatMap((r) => String(r.encodings).split(",").map((e) => e.trim())));
for (const e of ["DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT", "DELTA_LENGTH_BYTE_ARRAY"]) {
  report(encodings.has(e), `flat v2 uses ${e}`);
}

// Field ids and footer key/values reach the schema.
const schema = await check("flat", path.join(work, "ids.parquet"), "field ids and key/value metadata",
  "FIELD_IDS {i8: 11, s: 12, uu: 13}, KV_METADATA {origin: 'duckdb', note: 'x y'}");
const byName = Object.fromEntries(schema.fields.map((f) => [f.name, f]));
report(byName.i8?.metadata?.["PARQUET:field_id"] === "11" && byName.s?.metadata?.["PARQUET:field_id"] === "12" &&
       byName.uu?.metadata?.["PARQUET:field_id"] === "13", "field ids in PARQUET:field_id");
report(schema.metadata?.origin === "duckdb" && schema.metadata?.note === "x y", "footer key/values as schema metadata");
const types = Object.fromEntries(schema.fields.map((f) => [f.name, f.type]));
const wantTypes = { i8: "int8", u64: "uint64", f32: "float32", d38: "decimal128", dt: "date32", tsns: "timestamp",
                    uu: "fixed_size_binary", bl: "binary", s: "utf8" };
for (const [name, type] of Object.entries(wantTypes)) report(types[name] === type, `type of ${name}`, types[name]);

fs.writeFileSync(path.join(work, "done"), "");
process.exit(failures ? 1 : 0);
