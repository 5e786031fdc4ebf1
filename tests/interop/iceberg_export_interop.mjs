// node iceberg_export_interop.mjs LANCET NODE_MODULES WORK
//
// `lancet iceberg export` checked by independent readers only: a Lance dataset of several
// fragments (three imports, small files), with a deletion, is exported at its latest and
// at an earlier version, with deflate and with null-codec manifests. Then
//  * icebird (a JS Iceberg reader; a file:// fetch shim, no network) must return exactly
//    the rows `lancet scan --format json` returns for that version (as sorted sets);
//  * DuckDB must read every data file (row counts = record_count, sizes = the manifest's
//    file_size_in_bytes) and show the Iceberg field ids in parquet_schema() and the
//    iceberg.schema footer key;
//  * avsc, python3-avro (/usr/bin/python3) and avrocat must decode every manifest and
//    manifest list, and the raw Avro schemas must carry Java's field-id/element-id sets
//    and the header keys the spec requires;
//  * a uint64 column is refused naming it, and a second export into a table dir fails
//    without touching the table there.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const [LANCET, NODE_MODULES, WORK] = process.argv.slice(2);
if (!WORK) {
  console.error('usage: iceberg_export_interop.mjs LANCET NODE_MODULES WORK');
  process.exit(64);
}
const { icebergRead } = await import(path.join(NODE_MODULES, 'icebird/src/index.js'));
const { DuckDBInstance } = await import(path.join(NODE_MODULES, '@duckdb/node-api/lib/index.js'));
const avsc = createRequire(path.join(NODE_MODULES, 'avsc'))('avsc');

let failures = 0;
let checks = 0;
function check(ok, what) {
  checks++;
  if (!ok) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}
const lancet = (...args) => execFileSync(LANCET, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// icebird fetches every location verbatim; node's fetch has no file: scheme.
globalThis.fetch = async (url) => {
  const u = String(url);
  if (!u.startsWith('file:')) throw new Error(`no network in this test: ${u}`);
  const p = fileURLToPath(u);
  if (!fs.existsSync(p)) return new Response(null, { status: 404, statusText: 'Not Found' });
  return new Response(fs.readFileSync(p), { status: 200 });
};

// ---------------------------------------------------------------------------
// The dataset.

const schema = {
  fields: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 'i32', type: 'int32' },
    { name: 'i16', type: 'int16' },
    { name: 'u16', type: 'uint16' },
    { name: 'u32', type: 'uint32' },
    { name: 'f32', type: 'float32' },
    { name: 'f64', type: 'float64' },
    { name: 's', type: 'utf8' },
    { name: 'ls', type: 'large_utf8' },
    { name: 'bin', type: 'binary' },
    { name: 'b', type: 'bool' },
    { name: 'd', type: 'date32' },
    { name: 'ts', type: 'timestamp', unit: 'us', timezone: 'UTC' },
    { name: 'tsms', type: 'timestamp', unit: 'ms', timezone: null },
    { name: 'tags', type: 'list', children: [{ name: 'item', type: 'utf8' }] },
    { name: 'nums', type: 'list', children: [{ name: 'item', type: 'int64' }] },
    {
      name: 'pt', type: 'struct',
      children: [
        { name: 'x', type: 'float64' },
        { name: 'y', type: 'int32' },
        { name: 'inner', type: 'struct', children: [{ name: 'z', type: 'utf8' }] },
      ],
    },
  ],
};
const nullIf = (r, k, v) => (r % 9 === k ? null : v);
function row(r) {
  return {
    id: r,
    i32: nullIf(r, 1, (r * 100003) % 2147483647 - 1073741823),
    i16: nullIf(r, 2, ((r * 37) % 65536) - 32768),
    u16: nullIf(r, 3, (r * 771) % 65536),
    u32: nullIf(r, 4, (r * 2654435761) % 4294967296),
    f32: nullIf(r, 5, (r - 100) * 0.25),
    f64: nullIf(r, 6, r / 7),
    s: nullIf(r, 7, r % 5 === 0 ? `zoë ✓ ${r}` : `s${r}`),
    ls: nullIf(r, 8, `large-${r}`),
    bin: nullIf(r, 0, Buffer.from([r & 255, 0, 255, (r * 7) & 255]).toString('hex')),
    b: nullIf(r, 1, r % 3 === 0),
    d: nullIf(r, 2, 18000 + r),
    ts: nullIf(r, 3, 1700000000000000 + r * 1000),  // whole ms: icebird gives Dates
    tsms: nullIf(r, 4, 1600000000000 + r),
    tags: nullIf(r, 5, r % 4 === 0 ? [] : ['a', `t${r}`]),
    nums: nullIf(r, 6, [r, -r, 2 ** 40 + r]),
    pt: nullIf(r, 7, { x: r * 1.5, y: r % 11 === 0 ? null : r, inner: r % 13 === 0 ? null : { z: `z${r}` } }),
  };
}

fs.writeFileSync(path.join(WORK, 'schema.json'), JSON.stringify(schema));
const DS = path.join(WORK, 'ds');
for (const [lo, hi] of [[0, 120], [120, 200], [200, 300]]) {
  const lines = [];
  for (let r = lo; r < hi; r++) lines.push(JSON.stringify(row(r)));
  const src = path.join(WORK, `rows${lo}.ndjson`);
  fs.writeFileSync(src, lines.join('\n') + '\n');
  lancet('import', src, DS, '--schema', path.join(WORK, 'schema.json'), '--max-rows-per-file', '50',
    ...(lo === 0 ? [] : ['--mode', 'append']));
}
lancet('delete', DS, '--where', 'id % 7 = 3 OR id >= 290');
const latest = 4;  // three imports, one delete

// ---------------------------------------------------------------------------
// Normal forms: lancet scan --format json vs icebird's JS values.

const scanRows = (version) =>
  lancet('scan', DS, '--format', 'json', '--version', String(version)).split('\n').filter(Boolean).map((l) => JSON.parse(l));

function canonLance(r) {
  return JSON.stringify({
    ...r,
    id: String(r.id),
    ts: r.ts === null ? null : String(r.ts),
    tsms: r.tsms === null ? null : String(BigInt(r.tsms) * 1000n),  // stored as microseconds
    nums: r.nums === null ? null : r.nums.map(String),
    // hyparquet (under icebird) decodes unannotated BYTE_ARRAY as UTF-8 text, so invalid
    // sequences come back as U+FFFD; DuckDB checks the exact bytes below.
    bin: r.bin === null ? null : Buffer.from(Buffer.from(r.bin, 'hex').toString('utf8')).toString('hex'),
  });
}
const day = 86400000;
function canonIcebird(r) {
  const u = (v) => (v === undefined ? null : v);
  const date = (v) => (u(v) === null ? null : v.getTime());
  const bin = u(r.bin);
  const pt = u(r.pt);
  return JSON.stringify({
    id: String(r.id),
    i32: u(r.i32),
    i16: u(r.i16),
    u16: u(r.u16),
    u32: u(r.u32) === null ? null : Number(r.u32),
    f32: u(r.f32),
    f64: u(r.f64),
    s: u(r.s),
    ls: u(r.ls),
    bin: bin === null ? null : Buffer.from(typeof bin === 'string' ? Buffer.from(bin) : bin).toString('hex'),
    b: u(r.b),
    d: date(r.d) === null ? null : date(r.d) / day,
    ts: date(r.ts) === null ? null : String(BigInt(date(r.ts)) * 1000n),
    tsms: date(r.tsms) === null ? null : String(BigInt(date(r.tsms)) * 1000n),
    tags: u(r.tags),
    nums: u(r.nums) === null ? null : r.nums.map(String),
    pt: pt === null ? null : { x: u(pt.x), y: u(pt.y), inner: u(pt.inner) === null ? null : { z: u(pt.inner.z) } },
  });
}

// ---------------------------------------------------------------------------
// Exports.

const instance = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const db = await instance.connect();
const query = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

const MANIFEST_ENTRY_IDS = [0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 108, 109, 110, 117, 118, 119, 120, 121, 122, 125, 126,
  127, 128, 129, 130, 131, 132, 134, 135, 137, 138, 139, 140, 143];
const MANIFEST_FILE_IDS = [500, 501, 502, 503, 504, 505, 506, 507, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518, 519];

function collectIds(j, fieldIds, elementIds) {
  if (Array.isArray(j)) j.forEach((e) => collectIds(e, fieldIds, elementIds));
  else if (j && typeof j === 'object') {
    if ('field-id' in j) fieldIds.add(j['field-id']);
    if ('element-id' in j) elementIds.add(j['element-id']);
    Object.values(j).forEach((v) => collectIds(v, fieldIds, elementIds));
  }
}
const sameSet = (a, b) => a.size === b.length && b.every((x) => a.has(x));

// avsc with 64-bit longs kept exact (its default long type refuses values past 2^53).
const longType = avsc.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});
function avscRead(file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let header = null;
    avsc.createFileDecoder(file, { parseHook: (s) => avsc.Type.forSchema(s, { registry: { long: longType } }) })
      .on('metadata', (type, codec, h) => { header = h; })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve({ header, records }));
  });
}

const PY = `
import json, sys
from avro.datafile import DataFileReader
from avro.io import DatumReader
out = []
for f in sys.argv[1:]:
    with open(f, 'rb') as fh:
        r = DataFileReader(fh, DatumReader())
        recs = list(r)
        meta = {k: v.decode('utf-8', 'replace') for k, v in r.meta.items()}
        out.append({'count': len(recs), 'meta_keys': sorted(meta), 'records': recs})
print(json.dumps(out, default=lambda o: o.hex() if isinstance(o, bytes) else str(o)))
`;

async function checkExport(label, tableDir, version, extraArgs) {
  const out = lancet('iceberg', 'export', DS, tableDir, '--version', String(version), '--rows-per-file', '64', ...extraArgs);
  check(out.includes(`exported version ${version}`), `${label}: export output names the version: ${out}`);
  const md = JSON.parse(fs.readFileSync(path.join(tableDir, 'metadata/v1.metadata.json'), 'utf8'));
  check(fs.readFileSync(path.join(tableDir, 'metadata/version-hint.text'), 'utf8').trim() === '1', `${label}: version hint`);
  for (const k of ['format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms', 'last-column-id',
    'schemas', 'current-schema-id', 'partition-specs', 'default-spec-id', 'last-partition-id', 'sort-orders',
    'default-sort-order-id', 'current-snapshot-id', 'snapshots', 'snapshot-log', 'refs', 'properties']) {
    check(k in md, `${label}: metadata key ${k}`);
  }
  check(md['format-version'] === 2, `${label}: format-version 2`);
  const snap = md.snapshots[0];
  check(Number.isSafeInteger(snap['snapshot-id']) && snap['snapshot-id'] > 0, `${label}: snapshot id <= 2^53-1`);
  check(md['current-snapshot-id'] === snap['snapshot-id'] && md.refs.main['snapshot-id'] === snap['snapshot-id'],
    `${label}: current snapshot and refs.main`);
  check(snap.summary['lance.version'] === String(version), `${label}: lance.version in the summary`);
  check(snap.summary['lance.dataset'] === fs.realpathSync(DS) || snap.summary['lance.dataset'] === path.resolve(DS),
    `${label}: lance.dataset ${snap.summary['lance.dataset']}`);
  check(md.location === `file://${path.resolve(tableDir)}`, `${label}: location ${md.location}`);

  // icebird: the rows of that version, exactly.
  const expected = scanRows(version).map(canonLance).sort();
  const got = (await icebergRead({ tableUrl: `file://${path.resolve(tableDir)}` })).map(canonIcebird).sort();
  check(got.length === expected.length, `${label}: icebird read ${got.length} rows, lancet scan ${expected.length}`);
  let diffs = 0;
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    if (got[i] !== expected[i] && diffs++ < 3) console.error(`  ${label} row ${i}:\n    icebird ${got[i]}\n    lancet  ${expected[i]}`);
  }
  check(diffs === 0, `${label}: icebird rows equal lancet scan rows (${diffs} differ)`);
  check(snap.summary['total-records'] === String(expected.length), `${label}: total-records`);

  // The Avro files: manifest list, then manifests.
  const listPath = fileURLToPath(snap['manifest-list']);
  const list = await avscRead(listPath);
  check(list.records.length === 1, `${label}: one manifest in the list`);
  const listSchema = JSON.parse(list.header.meta['avro.schema'].toString());
  const lf = new Set(), le = new Set();
  collectIds(listSchema, lf, le);
  check(sameSet(lf, MANIFEST_FILE_IDS) && sameSet(le, [508]), `${label}: manifest list field ids ${[...lf]} / ${[...le]}`);
  for (const k of ['snapshot-id', 'parent-snapshot-id', 'sequence-number', 'format-version']) {
    check(k in list.header.meta, `${label}: manifest list header key ${k}`);
  }
  check(list.header.meta['snapshot-id'].toString() === String(snap['snapshot-id']), `${label}: list snapshot-id`);
  const avroFiles = [listPath];
  let recordTotal = 0;
  const dataFiles = [];
  for (const m of list.records) {
    const mPath = fileURLToPath(m.manifest_path);
    avroFiles.push(mPath);
    check(BigInt(fs.statSync(mPath).size) === m.manifest_length, `${label}: manifest_length`);
    const man = await avscRead(mPath);
    const schemaJson = JSON.parse(man.header.meta['avro.schema'].toString());
    const f = new Set(), e = new Set();
    collectIds(schemaJson, f, e);
    check(sameSet(f, MANIFEST_ENTRY_IDS) && sameSet(e, [133, 136]), `${label}: manifest field ids`);
    for (const k of ['schema', 'schema-id', 'partition-spec', 'partition-spec-id', 'format-version', 'content', 'iceberg.schema']) {
      check(k in man.header.meta, `${label}: manifest header key ${k}`);
    }
    check(man.header.meta.content.toString() === 'data' && man.header.meta['format-version'].toString() === '2',
      `${label}: manifest content/format-version`);
    check(JSON.stringify(JSON.parse(man.header.meta.schema.toString()).fields) === JSON.stringify(md.schemas[0].fields),
      `${label}: manifest schema = table schema`);
    check(man.records.length === m.added_files_count, `${label}: added_files_count`);
    for (const entry of man.records) {
      check(entry.status === 1 && entry.snapshot_id === BigInt(snap['snapshot-id']), `${label}: entry status/snapshot`);
      dataFiles.push(entry.data_file);
      recordTotal += Number(entry.data_file.record_count);
    }
  }
  check(recordTotal === expected.length, `${label}: record_count total ${recordTotal}`);
  check(dataFiles.length > 1, `${label}: several data files (${dataFiles.length})`);

  // python3-avro and avrocat decode the same files.
  const py = spawnSync('/usr/bin/python3', ['-c', PY, ...avroFiles], { encoding: 'utf8' });
  check(py.status === 0, `${label}: python3-avro ran: ${py.stderr}`);
  if (py.status === 0) {
    const res = JSON.parse(py.stdout);
    check(res[0].count === 1 && res.slice(1).reduce((n, r) => n + r.count, 0) === dataFiles.length,
      `${label}: python3-avro record counts`);
    const pyRecords = res.slice(1).flatMap((r) => r.records).reduce((n, r) => n + r.data_file.record_count, 0);
    check(pyRecords === expected.length, `${label}: python3-avro record_count total`);
    check(res.slice(1).every((r) => r.meta_keys.includes('partition-spec')), `${label}: python3-avro header keys`);
  }
  for (const file of avroFiles) {
    const cat = spawnSync('avrocat', [file], { encoding: 'utf8' });
    check(cat.status === 0, `${label}: avrocat ${path.basename(file)}: ${cat.stderr}`);
    const lines = cat.stdout.split('\n').filter(Boolean);
    check(lines.length === (file === listPath ? 1 : dataFiles.length), `${label}: avrocat record count`);
    lines.forEach((l) => JSON.parse(l));
  }

  // DuckDB: every data file, its size, its count, its field ids and footer key.
  const topIds = Object.fromEntries(md.schemas[0].fields.map((f) => [f.name, f.id]));
  const idsByName = {};
  for (const fld of md.schemas[0].fields) {
    if (fld.type.type === 'list') idsByName[`${fld.name}.element`] = fld.type['element-id'];
    if (fld.type.type === 'struct') for (const m of fld.type.fields) idsByName[`${fld.name}.${m.name}`] = m.id;
  }
  let boundsChecked = 0;
  for (const df of dataFiles) {
    const p = fileURLToPath(df.file_path);
    check(BigInt(fs.statSync(p).size) === df.file_size_in_bytes, `${label}: file_size_in_bytes of ${path.basename(p)}`);
    const [{ n }] = await query(`SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlString(p)})`);
    check(BigInt(n) === df.record_count, `${label}: DuckDB count ${n} = record_count ${df.record_count}`);
    const cols = await query(`SELECT name, field_id FROM parquet_schema(${sqlString(p)})`);
    for (const [name, id] of Object.entries(topIds)) {
      check(cols.some((c) => c.name === name && Number(c.field_id) === id), `${label}: Parquet field_id of ${name} = ${id}`);
    }
    check(cols.some((c) => c.name === 'element' && Number(c.field_id) === idsByName['tags.element']) ||
      cols.some((c) => Number(c.field_id) === idsByName['tags.element']), `${label}: Parquet field_id of tags' element`);
    check(cols.some((c) => c.name === 'z' && Number(c.field_id) === idsByName['pt.inner'] + 1),
      `${label}: Parquet field_id of pt.inner.z`);
    // Bounds (Iceberg single-value serialization) against DuckDB's min/max of the file.
    const bound = (m, id) => (m ?? []).find((e) => e.key === id)?.value;
    const decoders = {
      long: [(b) => String(b.readBigInt64LE()), (c) => `min(${c})::VARCHAR, max(${c})::VARCHAR`],
      int: [(b) => String(b.readInt32LE()), (c) => `min(${c})::VARCHAR, max(${c})::VARCHAR`],
      double: [(b) => String(b.readDoubleLE()), (c) => `min(${c}), max(${c})`],
      string: [(b) => b.toString('utf8'), (c) => `min(${c}), max(${c})`],
      boolean: [(b) => String(b[0]), (c) => `min(${c}::INT)::VARCHAR, max(${c}::INT)::VARCHAR`],
      date: [(b) => String(b.readInt32LE()), (c) => `(min(${c}) - DATE '1970-01-01')::VARCHAR, (max(${c}) - DATE '1970-01-01')::VARCHAR`],
      timestamptz: [(b) => String(b.readBigInt64LE()), (c) => `epoch_us(min(${c}))::VARCHAR, epoch_us(max(${c}))::VARCHAR`],
    };
    for (const fld of md.schemas[0].fields) {
      const dec = decoders[fld.type];
      if (!dec) continue;
      const lo = bound(df.lower_bounds, fld.id), hi = bound(df.upper_bounds, fld.id);
      const [mm] = await query(`SELECT ${dec[1](`"${fld.name}"`).replace(', ', ' AS lo, ').replace(/$/, ' AS hi')} FROM read_parquet(${sqlString(p)})`);
      const want = [mm.lo, mm.hi].map((v) => (v === null ? undefined : String(v)));
      const got = [lo, hi].map((b) => (b === undefined ? undefined : dec[0](b)));
      check(got[0] === want[0] && got[1] === want[1], `${label}: bounds of ${fld.name}: ${got} vs DuckDB ${want}`);
      boundsChecked++;
    }
    const nulls = (m, id) => Number((m ?? []).find((e) => e.key === id)?.value ?? -1);
    const [nn] = await query(`SELECT count(*) - count(i32) AS n FROM read_parquet(${sqlString(p)})`);
    check(nulls(df.null_value_counts, topIds.i32) === Number(nn.n), `${label}: null_value_counts of i32`);
    const kv = await query(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(p)})`);
    const ice = kv.find((r) => r.k === 'iceberg.schema');
    check(ice && JSON.stringify(JSON.parse(ice.v).fields) === JSON.stringify(md.schemas[0].fields),
      `${label}: iceberg.schema footer key = table schema`);
  }
  check(boundsChecked >= dataFiles.length * 8, `${label}: ${boundsChecked} bounds checked`);
  const ids = await query(`SELECT list(id ORDER BY id)::VARCHAR AS ids FROM read_parquet([${dataFiles
    .map((d) => sqlString(fileURLToPath(d.file_path))).join(',')}])`);
  check(ids[0].ids === `[${scanRows(version).map((r) => r.id).sort((a, b) => a - b).join(', ')}]`, `${label}: DuckDB ids`);
  const bins = await query(`SELECT id::VARCHAR AS id, lower(hex(bin)) AS bin FROM read_parquet([${dataFiles
    .map((d) => sqlString(fileURLToPath(d.file_path))).join(',')}])`);
  const lanceBins = new Map(scanRows(version).map((r) => [String(r.id), r.bin]));
  check(bins.length === lanceBins.size && bins.every((r) => lanceBins.get(r.id) === r.bin), `${label}: DuckDB binary bytes`);
}

await checkExport('latest', path.join(WORK, 'tbl_latest'), latest, []);
await checkExport('v2 null codec', path.join(WORK, 'tbl_v2'), 2, ['--no-deflate']);

// A second export into an existing table is refused and leaves it readable.
const again = spawnSync(LANCET, ['iceberg', 'export', DS, path.join(WORK, 'tbl_latest')], { encoding: 'utf8' });
check(again.status === 2 && /already/.test(again.stderr), `export into an existing table refused: ${again.stderr}`);
check((await icebergRead({ tableUrl: `file://${path.join(WORK, 'tbl_latest')}` })).length === scanRows(latest).length,
  'the existing table still reads');

// A type Iceberg v2 cannot hold is refused, naming the column; no table appears.
const bad = path.join(WORK, 'bad');
fs.writeFileSync(path.join(WORK, 'u64.json'), JSON.stringify({ fields: [{ name: 'big', type: 'uint64' }] }));
fs.writeFileSync(path.join(WORK, 'u64.ndjson'), '{"big": "18446744073709551615"}\n');
lancet('import', path.join(WORK, 'u64.ndjson'), bad, '--schema', path.join(WORK, 'u64.json'));
const refused = spawnSync(LANCET, ['iceberg', 'export', bad, path.join(WORK, 'tbl_bad')], { encoding: 'utf8' });
check(refused.status === 2 && refused.stderr.includes("'big'"), `uint64 refused naming the column: ${refused.stderr}`);
check(!fs.existsSync(path.join(WORK, 'tbl_bad/metadata/v1.metadata.json')), 'no table after a refused export');

console.log(`iceberg_export_interop: ${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
