// node parquet_write_interop.mjs LANCET NODE_MODULES WORK
//
// `lancet export DATASET x.parquet` checked by an independent reader, DuckDB: a dataset
// of every type Lancet writes to Parquet (nulls at each nesting level, empty lists,
// NaN/±inf/-0, non-ASCII, extreme integers) is imported from NDJSON, exported under
// each codec with the dictionary on and off and several row groups, and DuckDB's
// read_parquet must return exactly the generated values; parquet_schema() must show the
// field ids and logical types, parquet_metadata() the codec, encodings and statistics.
// hyparquet (a pure JS reader) must read the same files to the same values for the
// columns whose JS form is plain. A second, larger table makes a dictionary overflow
// into PLAIN pages mid-chunk; a third has Blob V2 bytes exported with --blob-bytes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [LANCET, NODE_MODULES, WORK] = process.argv.slice(2);
if (!WORK) {
  console.error('usage: parquet_write_interop.mjs LANCET NODE_MODULES WORK');
  process.exit(64);
}
const { DuckDBInstance } = await import(path.join(NODE_MODULES, '@duckdb/node-api/lib/index.js'));
// A second, unrelated reader (pure JS) for the same files.
const { parquetReadObjects } = await import(path.join(NODE_MODULES, 'hyparquet/src/index.js'));
const { compressors } = await import(path.join(NODE_MODULES, 'hyparquet-compressors/src/index.js'));
const instance = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const db = await instance.connect();
const query = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();

let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}
const lancet = (...args) => execFileSync(LANCET, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

// ---------------------------------------------------------------------------
// The table: one spec per column. nd(r) is the NDJSON value (undefined: null), ex(v)
// what DuckDB's JSON shows for it through `sql` (a select expression over column c).

const N = 500;
const isNull = (r, k) => r % 11 === k % 11 && r > 8;  // each column nulls a different row set, never the edge rows
const pick = (r, edges, gen) => (r < edges.length ? edges[r] : gen(r));
const U64 = 2n ** 64n;
const hex = (r, len) => Array.from({ length: len }, (_, i) => ((r * 31 + i * 7) & 255).toString(16).padStart(2, '0')).join('');
const fid = (id) => ({ 'PARQUET:field_id': String(id) });

const floatEdges = ['NaN', 'Infinity', '-Infinity', '-0', 0];
const floatEx = (v) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? v : v === '-0' ? 0 : v);
const decimal = (unscaled, scale) => {
  const neg = unscaled < 0n;
  const s = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
};

const specs = [
  { name: 'i8', type: { type: 'int8' }, nd: (r) => pick(r, [-128, 127], (r) => ((r * 37) % 256) - 128) },
  { name: 'i16', type: { type: 'int16' }, nd: (r) => pick(r, [-32768, 32767], (r) => ((r * 1237) % 65536) - 32768) },
  {
    name: 'i32', type: { type: 'int32', metadata: fid(101) },
    nd: (r) => pick(r, [-2147483648, 2147483647], (r) => ((r * 100003) % 4294967296) - 2147483648),
  },
  {
    name: 'i64', type: { type: 'int64' },
    nd: (r) => String(pick(r, [-(2n ** 63n), 2n ** 63n - 1n], (r) => BigInt(r) * 1234567890123n - 10n ** 15n)),
  },
  { name: 'u8', type: { type: 'uint8' }, nd: (r) => pick(r, [0, 255], (r) => (r * 7) % 256) },
  { name: 'u16', type: { type: 'uint16' }, nd: (r) => pick(r, [0, 65535], (r) => (r * 771) % 65536) },
  { name: 'u32', type: { type: 'uint32' }, nd: (r) => pick(r, [0, 4294967295], (r) => (r * 2654435761) % 4294967296) },
  {
    name: 'u64', type: { type: 'uint64' },
    nd: (r) => String(pick(r, [0n, U64 - 1n, 2n ** 63n], (r) => (BigInt(r) * 11400714819323198485n) % U64)),
  },
  {
    name: 'f16', type: { type: 'float16' }, nd: (r) => pick(r, [...floatEdges, 65504, -2.25, 0.000060975551605224609375], (r) => (r - 250) * 0.25),
    ex: floatEx, signed: true,
  },
  {
    name: 'f32', type: { type: 'float32' }, nd: (r) => pick(r, [...floatEdges, 3.4028234663852886e38, 1.401298464324817e-45], (r) => Math.fround(r / 7)),
    ex: floatEx, signed: true,
  },
  {
    name: 'f64', type: { type: 'float64' }, nd: (r) => pick(r, [...floatEdges, 1.7976931348623157e308, 5e-324], (r) => r / 3 - 50),
    ex: floatEx, signed: true,
  },
  { name: 'b', type: { type: 'bool' }, nd: (r) => r % 3 === 0 },
  {
    name: 's', type: { type: 'utf8', metadata: fid(102) },
    nd: (r) => pick(r, ['', 'héllo wörld ✓', '日本語テキスト', '🙂 emoji', 'tab\tand "quote"'], (r) => `str${r % 40}`),
  },
  { name: 'ls', type: { type: 'large_utf8' }, nd: (r) => pick(r, ['', 'ünïcödé'], (r) => `large ${r}`) },
  { name: 'bin', type: { type: 'binary' }, nd: (r) => pick(r, ['', '00', 'ff00ff'], (r) => hex(r, r % 9)), ex: (v) => v.toUpperCase(), sql: (c) => `hex(${c})` },
  { name: 'lbin', type: { type: 'large_binary' }, nd: (r) => pick(r, [''], (r) => hex(r, 3)), ex: (v) => v.toUpperCase(), sql: (c) => `hex(${c})` },
  {
    name: 'fsb', type: { type: 'fixed_size_binary', byte_width: 4 },
    nd: (r) => pick(r, ['00000000', 'ffffffff'], (r) => hex(r, 4)), ex: (v) => v.toUpperCase(), sql: (c) => `hex(${c})`,
  },
  {
    name: 'dec', type: { type: 'decimal128', precision: 20, scale: 4 },
    nd: (r) => decimal(pick(r, [10n ** 20n - 1n, -(10n ** 20n - 1n), 0n, -1n], (r) => BigInt(r) * 98765432123n - 7n * 10n ** 12n), 4),
    sql: (c) => `CAST(${c} AS VARCHAR)`,
  },
  {
    name: 'dec5', type: { type: 'decimal128', precision: 5, scale: 2 },
    nd: (r) => decimal(pick(r, [99999n, -99999n], (r) => BigInt((r * 397) % 199999) - 99999n), 2),
    sql: (c) => `CAST(${c} AS VARCHAR)`,
  },
  {
    name: 'd32', type: { type: 'date32' }, nd: (r) => pick(r, [0, -1, -719162, 2932896], (r) => r * 53 - 5000),
    ex: (v) => String(v), sql: (c) => `date_diff('day', DATE '1970-01-01', ${c})`,
  },
  {
    name: 'd64', type: { type: 'date64' }, nd: (r) => String(pick(r, [0, -86400000], (r) => (r * 53 - 5000) * 86400000)),
    ex: (v) => String(Number(v) / 86400000), sql: (c) => `date_diff('day', DATE '1970-01-01', ${c})`,
  },
  {
    name: 'dec256', type: { type: 'decimal256', precision: 30, scale: 5 },
    nd: (r) => decimal(pick(r, [10n ** 30n - 1n, -(10n ** 30n - 1n)], (r) => BigInt(r) * 12345678901234567n - 3n), 5),
    sql: (c) => `CAST(${c} AS VARCHAR)`,
  },
  { name: 't32s', type: { type: 'time32', unit: 's' }, nd: (r) => pick(r, [0, 86399], (r) => (r * 97) % 86400), ex: (v) => String(v * 1e6), sql: (c) => `epoch_us(${c})` },
  { name: 't32ms', type: { type: 'time32', unit: 'ms' }, nd: (r) => pick(r, [0, 86399999], (r) => (r * 97003) % 86400000), ex: (v) => String(v * 1000), sql: (c) => `epoch_us(${c})` },
  {
    name: 't64us', type: { type: 'time64', unit: 'us' }, nd: (r) => String(pick(r, [0n, 86399999999n], (r) => BigInt(r) * 172799999n)),
    sql: (c) => `epoch_us(${c})`,
  },
  {
    name: 't64ns', type: { type: 'time64', unit: 'ns' }, nd: (r) => String(pick(r, [0n, 86399999999999n], (r) => BigInt(r) * 172799999997n)),
    sql: (c) => `CAST(${c} AS VARCHAR)`,
    ex: (v) => {
      const ns = BigInt(v);
      const sec = ns / 1000000000n;
      const frac = (ns % 1000000000n).toString().padStart(9, '0').replace(/0+$/, '');
      const two = (x) => String(x).padStart(2, '0');
      return `${two(sec / 3600n)}:${two((sec / 60n) % 60n)}:${two(sec % 60n)}${frac ? '.' + frac : ''}`;
    },
  },
  { name: 'ts_s', type: { type: 'timestamp', unit: 's' }, nd: (r) => String(pick(r, [0, -1], (r) => r * 86413 - 2e7)), ex: (v) => String(BigInt(v) * 1000n), sql: (c) => `epoch_ms(${c})` },
  { name: 'ts_ms', type: { type: 'timestamp', unit: 'ms' }, nd: (r) => String(pick(r, [0, -1], (r) => r * 86413001 - 2e10)), sql: (c) => `epoch_ms(${c})` },
  {
    name: 'ts_us', type: { type: 'timestamp', unit: 'us' }, nd: (r) => String(pick(r, [0n, -1n], (r) => BigInt(r) * 86413001001n - 10n ** 14n)),
    sql: (c) => `epoch_us(${c})`,
  },
  {
    name: 'ts_ns', type: { type: 'timestamp', unit: 'ns' }, nd: (r) => String(pick(r, [0n, -1n], (r) => BigInt(r) * 86413001001001n - 10n ** 17n)),
    sql: (c) => `epoch_ns(${c})`,
  },
  {
    name: 'ts_us_utc', type: { type: 'timestamp', unit: 'us', timezone: 'UTC' }, nd: (r) => String(BigInt(r) * 3600000000n + 1n),
    sql: (c) => `epoch_us(${c})`,
  },
  {
    name: 'ts_ms_paris', type: { type: 'timestamp', unit: 'ms', timezone: 'Europe/Paris' }, nd: (r) => String(r * 3600001 - 5),
    sql: (c) => `epoch_ms(${c})`,
  },
  { name: 'dur', type: { type: 'duration', unit: 'us' }, nd: (r) => String(pick(r, [-(2n ** 63n)], (r) => BigInt(r) * 999n - 7n)) },
  {
    name: 'l', type: { type: 'list', metadata: fid(103), children: [{ name: 'item', type: 'int32', nullable: true, metadata: fid(104) }] },
    nd: (r) => pick(r, [[], [null], [1, null, 3]], (r) => (r % 4 === 0 ? [] : Array.from({ length: r % 5 }, (_, i) => (i === 2 ? null : r * 10 + i)))),
  },
  {
    name: 'll', type: { type: 'large_list', children: [{ name: 'item', type: 'large_utf8', nullable: true }] },
    nd: (r) => pick(r, [[''], [null, 'ß']], (r) => Array.from({ length: r % 3 }, (_, i) => `e${r}.${i}`)),
  },
  {
    name: 'fsl', type: { type: 'fixed_size_list', list_size: 3, children: [{ name: 'item', type: 'float32', nullable: true }] },
    nd: (r) => pick(r, [[null, null, null]], (r) => [r, r === 5 ? null : r + 0.5, -r]),
  },
  {
    name: 'st', type: {
      type: 'struct', metadata: fid(105),
      children: [
        { name: 'a', type: 'int32', nullable: true, metadata: fid(106) },
        { name: 'b', type: 'utf8', nullable: true },
        { name: 'c', type: 'struct', nullable: true, children: [{ name: 'd', type: 'bool', nullable: false }] },
      ],
    },
    nd: (r) => pick(r, [{ a: null, b: null, c: null }, { a: 1, b: 'ö', c: { d: false } }], (r) => ({ a: r, b: r % 2 ? `b${r}` : null, c: r % 3 ? { d: r % 2 === 0 } : null })),
  },
  {
    name: 'm', type: {
      type: 'map', metadata: fid(107),
      children: [{ name: 'entries', type: 'struct', nullable: false, children: [{ name: 'key', type: 'utf8', nullable: false }, { name: 'value', type: 'int64', nullable: true }] }],
    },
    nd: (r) => pick(r, [[], [{ key: 'k', value: null }]], (r) => Array.from({ length: r % 4 }, (_, i) => ({ key: `k${i}`, value: String(r * 1000 + i) }))),
    ex: (v) => v.map((e) => ({ key: e.key, value: e.value })),
  },
  {
    name: 'nested', type: {
      type: 'list',
      children: [{
        name: 'item', type: 'struct', nullable: true,
        children: [
          { name: 'x', type: 'int32', nullable: true },
          { name: 'ys', type: 'list', nullable: true, children: [{ name: 'item', type: 'int16', nullable: true }] },
        ],
      }],
    },
    nd: (r) => pick(r, [[], [null], [{ x: null, ys: null }], [{ x: 1, ys: [] }, { x: 2, ys: [null, 3] }]],
      (r) => Array.from({ length: r % 3 }, (_, i) => (r % 7 === 1 && i === 1 ? null : { x: r + i, ys: Array.from({ length: (r + i) % 4 }, (_, j) => (j === 1 ? null : j - r)) }))),
  },
];

function writeTable(dir) {
  const fields = specs.map((s) => ({ name: s.name, nullable: true, ...s.type }));
  const schema = { fields, metadata: { origin: 'parquet_write_interop' } };
  fs.writeFileSync(path.join(dir, 'schema.json'), JSON.stringify(schema));
  const rows = [];
  const lines = [];
  for (let r = 0; r < N; r++) {
    const row = {};
    specs.forEach((s, k) => {
      row[s.name] = isNull(r, k) ? null : s.nd(r);
    });
    rows.push(row);
    lines.push(JSON.stringify(row));
  }
  fs.writeFileSync(path.join(dir, 'rows.ndjson'), lines.join('\n') + '\n');
  return rows;
}

// What DuckDB's JSON shows for a generated value: mostly the value itself (64-bit ints
// are strings on both sides), else what the column's ex() makes of it.
function expected(spec, v) {
  if (v === null) return null;
  return spec.ex ? spec.ex(v) : v;
}

// Lists of structs etc. come back as DuckDB JSON; generated values carry 64-bit ints as
// strings and -0 as "-0", which DuckDB shows as 0.
function normalize(v) {
  if (v === '-0') return 0;
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  return v;
}

const dir = path.join(WORK, 'all');
fs.mkdirSync(dir, { recursive: true });
const rows = writeTable(dir);
const ds = path.join(WORK, 'all.lance');
lancet('import', '--schema', path.join(dir, 'schema.json'), path.join(dir, 'rows.ndjson'), ds);

const selectList = specs.map((s) => `${(s.sql ?? ((c) => c))(`"${s.name}"`)} AS "${s.name}"`).join(', ');
const signList = specs.filter((s) => s.signed).map((s) => `signbit("${s.name}") AS "${s.name}__sign"`).join(', ');

async function checkValues(file, label) {
  const got = await query(`SELECT ${selectList}, ${signList} FROM read_parquet('${file}', file_row_number = true) ORDER BY file_row_number`);
  check(got.length === N, `${label}: ${got.length} rows, expected ${N}`);
  let shown = 0;
  for (let r = 0; r < Math.min(N, got.length); r++) {
    for (const s of specs) {
      const want = normalize(expected(s, rows[r][s.name]));
      const have = got[r][s.name];
      if (JSON.stringify(want) !== JSON.stringify(have)) {
        check(false, `${label}: row ${r} column ${s.name}: DuckDB read ${JSON.stringify(have)}, wrote ${JSON.stringify(want)}`);
        if (++shown > 20) return;
      }
      if (s.signed && rows[r][s.name] !== null) {
        const negZero = rows[r][s.name] === '-0';
        if (negZero && got[r][`${s.name}__sign`] !== true) check(false, `${label}: row ${r} column ${s.name}: -0 lost its sign`);
      }
    }
  }
}

// hyparquet: the columns whose JS form is the generated value itself (64-bit ints as
// BigInt, shown as strings here).
const hyColumns = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'b', 's', 'ls', 'l', 'll', 'fsl', 'st'];
async function checkHyparquet(file, label) {
  const bytes = fs.readFileSync(file);
  const got = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), compressors });
  check(got.length === N, `${label}: hyparquet read ${got.length} rows`);
  const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? String(x) : x === undefined ? null : x));
  let shown = 0;
  for (let r = 0; r < Math.min(N, got.length) && shown < 10; r++) {
    for (const c of hyColumns) {
      const want = show(normalize(rows[r][c]));
      const have = show(got[r][c] ?? null);
      if (want !== have) {
        check(false, `${label}: hyparquet row ${r} column ${c}: read ${have}, wrote ${want}`);
        shown++;
      }
    }
  }
}

const codecs = { snappy: 'SNAPPY', gzip: 'GZIP', zstd: 'ZSTD', lz4: 'LZ4_RAW', none: 'UNCOMPRESSED' };
let exports = 0;
for (const [codec, duckName] of Object.entries(codecs)) {
  for (const dictionary of [true, false]) {
    const rowGroupRows = dictionary ? 97 : 1000;
    const file = path.join(WORK, `all_${codec}_${dictionary ? 'dict' : 'plain'}.parquet`);
    const args = ['export', ds, file, '--compression', codec, '--row-group-rows', String(rowGroupRows)];
    if (!dictionary) args.push('--no-dictionary');
    lancet(...args);
    const label = `${codec}${dictionary ? '' : ' --no-dictionary'}`;
    await checkValues(file, label);
    // hyparquet-compressors 1.1.1 misreads LZ4 match lengths of 19 and more (it tests
    // the nibble plus 4 for the 15 that announces extension bytes), so LZ4_RAW is
    // left to DuckDB.
    if (codec !== 'lz4') await checkHyparquet(file, label);
    const meta = await query(`SELECT row_group_id, path_in_schema, compression, encodings, stats_min_value, stats_max_value, stats_null_count, row_group_num_rows FROM parquet_metadata('${file}')`);
    const groups = new Set(meta.map((m) => m.row_group_id));
    check(groups.size === Math.ceil(N / rowGroupRows), `${label}: ${groups.size} row groups`);
    check(meta.every((m) => m.compression === duckName), `${label}: codecs ${[...new Set(meta.map((m) => m.compression))]}`);
    const dictColumns = meta.filter((m) => String(m.encodings).includes('RLE_DICTIONARY'));
    check(dictionary ? dictColumns.length > 0 : dictColumns.length === 0, `${label}: dictionary encodings in ${dictColumns.length} chunks`);
    // Statistics of the first row group against the generated values.
    const first = rows.slice(0, Math.min(N, rowGroupRows));
    const stat = (col, group = 0) => meta.find((m) => String(m.row_group_id) === String(group) && m.path_in_schema === col);
    const i32 = first.map((r) => r.i32).filter((v) => v !== null);
    const s = stat('i32');
    check(s && Number(s.stats_min_value) === Math.min(...i32) && Number(s.stats_max_value) === Math.max(...i32), `${label}: i32 statistics ${JSON.stringify(s)}`);
    check(s && Number(s.stats_null_count) === first.filter((r) => r.i32 === null).length, `${label}: i32 null_count ${s?.stats_null_count}`);
    const strs = first.map((r) => r.s).filter((v) => v !== null).map((v) => Buffer.from(v));
    strs.sort(Buffer.compare);
    const ss = stat('s');
    check(ss && ss.stats_min_value === strs[0].toString() && ss.stats_max_value === strs[strs.length - 1].toString(), `${label}: s statistics ${JSON.stringify(ss)}`);
    const u64 = stat('u64');
    check(u64 && u64.stats_min_value === '0' && u64.stats_max_value === String(U64 - 1n), `${label}: u64 statistics (unsigned order) ${JSON.stringify(u64)}`);
    if (dictionary) {
      // The second row group has no infinities (DuckDB shows no infinite bounds) and a NaN-free range.
      const f64s = rows.slice(rowGroupRows, 2 * rowGroupRows).map((r) => r.f64).filter((v) => v !== null);
      const f = stat('f64', 1);
      check(f && Number(f.stats_min_value) === Math.min(...f64s) && Number(f.stats_max_value) === Math.max(...f64s), `${label}: f64 statistics ${JSON.stringify(f)}`);
    }
    exports++;
  }
}

// Schema: field ids, logical and converted types.
const file = path.join(WORK, 'all_snappy_dict.parquet');
const schema = await query(`SELECT name, type, repetition_type, converted_type, logical_type, field_id, type_length FROM parquet_schema('${file}')`);
const el = (name) => schema.find((e) => e.name === name);
for (const [name, id] of [['i32', 101], ['s', 102], ['l', 103], ['st', 105], ['a', 106], ['m', 107]]) {
  check(el(name)?.field_id === String(id) || el(name)?.field_id === id, `field_id of ${name}: ${el(name)?.field_id}`);
}
check(schema.filter((e) => e.name === 'element').some((e) => String(e.field_id) === '104'), 'field_id of l.element');
const logical = {
  s: 'StringType', ls: 'StringType', dec: 'DecimalType(scale=4, precision=20)', d32: 'DateType', f16: 'Float16Type',
  // DuckDB prints IntType's i8 bitWidth as a character: 8 is \x08, 64 is '@'.
  u8: 'IntType(bitWidth=\x08, isSigned=0)', u64: 'IntType(bitWidth=@, isSigned=0)', i8: 'IntType(bitWidth=\x08, isSigned=1)',
  t32ms: 'TimeType(isAdjustedToUTC=0', t64ns: 'NANOS=NanoSeconds', ts_us: 'TimestampType(isAdjustedToUTC=0',
  ts_us_utc: 'TimestampType(isAdjustedToUTC=1', ts_s: 'MILLIS=MilliSeconds', l: 'ListType', m: 'MapType',
};
for (const [name, want] of Object.entries(logical)) {
  check(String(el(name)?.logical_type).includes(want), `logical type of ${name}: ${el(name)?.logical_type}, expected ${want}`);
}
check(el('dec5')?.type === 'FIXED_LEN_BYTE_ARRAY' && String(el('dec5')?.type_length) === '3', `dec5 is FIXED_LEN_BYTE_ARRAY(3): ${JSON.stringify(el('dec5'))}`);
check(el('s')?.converted_type === 'UTF8' && el('dec')?.converted_type === 'DECIMAL' && el('u16')?.converted_type === 'UINT_16', 'converted types for old readers');
check(el('list')?.repetition_type === 'REPEATED' && el('key_value')?.repetition_type === 'REPEATED', '3-level LIST and MAP groups');
const types = Object.fromEntries((await query(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((d) => [d.column_name, d.column_type]));
for (const [name, want] of Object.entries({ u64: 'UBIGINT', ts_us_utc: 'TIMESTAMP WITH TIME ZONE', ts_ns: 'TIMESTAMP_NS', m: 'MAP(VARCHAR, BIGINT)', f16: 'FLOAT' })) {
  check(types[name] === want, `DuckDB type of ${name}: ${types[name]}, expected ${want}`);
}
const kv = await query(`SELECT decode(key) AS key FROM parquet_kv_metadata('${file}')`);
check(kv.some((k) => k.key === 'ARROW:schema') && kv.some((k) => k.key === 'origin'), `footer keys: ${kv.map((k) => k.key)}`);

// A dictionary that outgrows its page: the chunk goes on in PLAIN, still one column.
const bigDir = path.join(WORK, 'big');
fs.mkdirSync(bigDir, { recursive: true });
const BIG = 120000;
fs.writeFileSync(path.join(bigDir, 'schema.json'), JSON.stringify({ fields: [
  { name: 'id', type: 'int64', nullable: false }, { name: 'name', type: 'utf8', nullable: true }, { name: 'tag', type: 'utf8', nullable: true },
] }));
const bigLines = [];
for (let r = 0; r < BIG; r++) bigLines.push(JSON.stringify({ id: r, name: r % 1000 === 7 ? null : `name-${r}-${'x'.repeat(r % 13)}`, tag: `t${r % 5}` }));
fs.writeFileSync(path.join(bigDir, 'rows.ndjson'), bigLines.join('\n') + '\n');
const bigDs = path.join(WORK, 'big.lance');
lancet('import', '--schema', path.join(bigDir, 'schema.json'), path.join(bigDir, 'rows.ndjson'), bigDs);
const bigFile = path.join(WORK, 'big.parquet');
lancet('export', bigDs, bigFile);
const [agg] = await query(`SELECT count(*) AS n, count(name) AS names, sum(id) AS ids, count(DISTINCT tag) AS tags,
  bool_and(name = 'name-' || id || '-' || repeat('x', CAST(id % 13 AS INTEGER))) AS names_ok FROM read_parquet('${bigFile}')`);
check(String(agg.n) === String(BIG) && String(agg.names) === String(BIG - BIG / 1000) && String(agg.ids) === String((BIG * (BIG - 1)) / 2) &&
  String(agg.tags) === '5' && agg.names_ok === true, `big table aggregates ${JSON.stringify(agg)}`);
const bigMeta = await query(`SELECT path_in_schema, encodings, stats_null_count FROM parquet_metadata('${bigFile}')`);
const nameMeta = bigMeta.find((m) => m.path_in_schema === 'name');
check(String(nameMeta?.encodings).includes('RLE_DICTIONARY') && String(nameMeta?.encodings).includes('PLAIN'), `name chunk falls back to PLAIN: ${nameMeta?.encodings}`);
check(String(bigMeta.find((m) => m.path_in_schema === 'id')?.stats_null_count) === '0', 'id null_count 0');

// Blob V2 columns: --blob-bytes writes struct<data, uri> with each blob's bytes.
const blobDir = path.join(WORK, 'blob');
fs.mkdirSync(blobDir, { recursive: true });
fs.writeFileSync(path.join(blobDir, 'schema.json'), JSON.stringify({ fields: [{ name: 'id', type: 'int64' }, { name: 'blob', type: 'large_binary' }] }));
const blobHex = (r) => (r % 7 === 0 ? null : hex(r, (r * 37) % 3000));
fs.writeFileSync(path.join(blobDir, 'rows.ndjson'), Array.from({ length: 300 }, (_, r) => JSON.stringify({ id: r, blob: blobHex(r) })).join('\n') + '\n');
const blobDs = path.join(WORK, 'blob.lance');
lancet('import', '--schema', path.join(blobDir, 'schema.json'), '--blob', 'blob:inline=100,dedicated=2000', path.join(blobDir, 'rows.ndjson'), blobDs);
const blobFile = path.join(WORK, 'blob.parquet');
lancet('export', blobDs, blobFile, '--blob-bytes', '--row-group-rows', '128');
const blobs = await query(`SELECT id, hex(blob.data) AS data FROM read_parquet('${blobFile}') ORDER BY id`);
check(blobs.length === 300 && blobs.every((b, r) => String(b.id) === String(r) && b.data === (blobHex(r)?.toUpperCase() ?? null)),
  `blob bytes through --blob-bytes (${blobs.length} rows)`);

if (failures) {
  console.error(`parquet_write_interop: ${failures} failures`);
  process.exit(1);
}
console.log(`parquet_write_interop: ok (${N} rows x ${specs.length} columns in ${exports} exports; ${BIG} rows with a dictionary fallback)`);
