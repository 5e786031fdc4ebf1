// node iceberg_sync_interop.mjs LANCET NODE_MODULES WORK
//
// `lancet iceberg sync` checked by independent readers: a dataset with stable row ids is
// exported, then changed (deletes, updates, appends, and all three across several
// versions at once) and synced after each step. After every sync icebird (file:// fetch
// shim, no network) must return exactly the rows `lancet scan --format json` returns
// for the dataset's latest version, which needs the position deletes applied to the
// right files and rows; a second sync must be a no-op; avsc, python3-avro and avrocat
// must decode every manifest and list; DuckDB must read the position delete files with
// the reserved field ids, sorted by (file_path, pos). A table exported without stable
// row ids is refused.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const [LANCET, NODE_MODULES, WORK] = process.argv.slice(2);
if (!WORK) {
  console.error('usage: iceberg_sync_interop.mjs LANCET NODE_MODULES WORK');
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

globalThis.fetch = async (url) => {
  const u = String(url);
  if (!u.startsWith('file:')) throw new Error(`no network in this test: ${u}`);
  const p = fileURLToPath(u);
  if (!fs.existsSync(p)) return new Response(null, { status: 404, statusText: 'Not Found' });
  return new Response(fs.readFileSync(p), { status: 200 });
};

const instance = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
});
const db = await instance.connect();
const query = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

const schema = {
  fields: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 's', type: 'utf8' },
    { name: 'v', type: 'float64' },
    { name: 'tags', type: 'list', children: [{ name: 'item', type: 'utf8' }] },
  ],
};
const row = (r) => ({ id: r, s: r % 6 === 0 ? null : `s${r}`, v: r / 4, tags: r % 3 === 0 ? null : [`t${r}`] });
fs.writeFileSync(path.join(WORK, 'schema.json'), JSON.stringify(schema));
let batchNo = 0;
function importRows(ds, lo, hi, extra) {
  const src = path.join(WORK, `rows${batchNo++}.ndjson`);
  const lines = [];
  for (let r = lo; r < hi; r++) lines.push(JSON.stringify(row(r)));
  fs.writeFileSync(src, lines.join('\n') + '\n');
  lancet('import', src, ds, '--schema', path.join(WORK, 'schema.json'), '--max-rows-per-file', '40', ...extra);
}

const DS = path.join(WORK, 'ds');
const TBL = path.join(WORK, 'tbl');
importRows(DS, 0, 100, ['--enable-stable-row-ids']);
importRows(DS, 100, 200, ['--mode', 'append']);

const canon = (r) => JSON.stringify({
  id: String(r.id),
  s: r.s ?? null,
  v: r.v ?? null,
  tags: r.tags ?? null,
});
const lanceRows = () => lancet('scan', DS, '--format', 'json').split('\n').filter(Boolean).map((l) => JSON.parse(l));

// avsc with exact 64-bit longs.
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
const avscRead = (file) => new Promise((resolve, reject) => {
  const records = [];
  avsc.createFileDecoder(file, { parseHook: (s) => avsc.Type.forSchema(s, { registry: { long: longType } }) })
    .on('data', (r) => records.push(r)).on('error', reject).on('end', () => resolve(records));
});

async function checkTable(label) {
  const hint = Number(fs.readFileSync(path.join(TBL, 'metadata/version-hint.text'), 'utf8'));
  const md = JSON.parse(fs.readFileSync(path.join(TBL, `metadata/v${hint}.metadata.json`), 'utf8'));
  const expected = lanceRows().map(canon).sort();
  const got = (await icebergRead({ tableUrl: `file://${TBL}` })).map(canon).sort();
  let diffs = 0;
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    if (got[i] !== expected[i] && diffs++ < 3) console.error(`  ${label} row ${i}:\n    icebird ${got[i]}\n    lancet  ${expected[i]}`);
  }
  check(got.length === expected.length && diffs === 0, `${label}: icebird ${got.length} rows = lancet scan ${expected.length} rows (${diffs} differ)`);
  const snap = md.snapshots.find((s) => s['snapshot-id'] === md['current-snapshot-id']);
  check(snap.summary['total-records'] === String(expected.length), `${label}: total-records ${snap.summary['total-records']}`);
  check(md['last-sequence-number'] === snap['sequence-number'] && md.refs.main['snapshot-id'] === snap['snapshot-id'],
    `${label}: sequence number and refs.main`);
  check(md.snapshots.length === hint && md['snapshot-log'].length === hint, `${label}: ${hint} snapshots in the log`);

  // Every Avro file of the current snapshot through the three Avro readers.
  const listPath = fileURLToPath(snap['manifest-list']);
  const list = await avscRead(listPath);
  check(list.length === md.snapshots.reduce((n, s) => n + (Number(s.summary['added-data-files'] ?? 0) > 0 ? 1 : 0) +
    (s.summary['added-delete-files'] === '1' ? 1 : 0), 0), `${label}: the list carries every snapshot's manifests`);
  const files = [listPath];
  for (const m of list) {
    const mp = fileURLToPath(m.manifest_path);
    files.push(mp);
    const entries = await avscRead(mp);
    check(entries.length === m.added_files_count, `${label}: manifest entries`);
    for (const e of entries) {
      check(e.data_file.content === m.content, `${label}: entry content = manifest content`);
      const p = fileURLToPath(e.data_file.file_path);
      check(BigInt(fs.statSync(p).size) === e.data_file.file_size_in_bytes, `${label}: file size of ${path.basename(p)}`);
      const [{ n }] = await query(`SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlString(p)})`);
      check(BigInt(n) === e.data_file.record_count, `${label}: DuckDB count of ${path.basename(p)}`);
      if (e.data_file.content === 1) {
        const cols = await query(`SELECT name, field_id FROM parquet_schema(${sqlString(p)})`);
        check(cols.some((c) => c.name === 'file_path' && Number(c.field_id) === 2147483546) &&
          cols.some((c) => c.name === 'pos' && Number(c.field_id) === 2147483545), `${label}: delete file field ids`);
        const rows = await query(`SELECT file_path, pos::BIGINT AS pos FROM read_parquet(${sqlString(p)})`);
        const sorted = rows.every((r, i) => i === 0 || rows[i - 1].file_path < r.file_path ||
          (rows[i - 1].file_path === r.file_path && BigInt(rows[i - 1].pos) < BigInt(r.pos)));
        check(sorted, `${label}: position deletes sorted by (file_path, pos)`);
      }
    }
  }
  const py = spawnSync('/usr/bin/python3', ['-c', `
import sys
from avro.datafile import DataFileReader
from avro.io import DatumReader
for f in sys.argv[1:]:
    with open(f, 'rb') as fh:
        print(len(list(DataFileReader(fh, DatumReader()))))
`, ...files], { encoding: 'utf8' });
  check(py.status === 0, `${label}: python3-avro decodes every manifest: ${py.stderr}`);
  for (const f of files) {
    const cat = spawnSync('avrocat', [f], { encoding: 'utf8' });
    check(cat.status === 0, `${label}: avrocat ${path.basename(f)}: ${cat.stderr}`);
  }
  return { hint, snap };
}

function sync(label) {
  const out = lancet('iceberg', 'sync', DS, TBL, '--rows-per-file', '32');
  check(/^synced versions/.test(out), `${label}: sync committed: ${out}`);
  const again = lancet('iceberg', 'sync', DS, TBL);
  check(/^up to date/.test(again), `${label}: a second sync is a no-op: ${again}`);
}

lancet('iceberg', 'export', DS, TBL, '--rows-per-file', '50');
await checkTable('export');
check(/^up to date/.test(lancet('iceberg', 'sync', DS, TBL)), 'sync right after the export is a no-op');

lancet('delete', DS, '--where', 'id % 5 = 0');
sync('deletes');
const del = (await checkTable('deletes')).snap.summary;
check(del.operation === 'delete' && del['added-position-deletes'] === '40' && del['added-records'] === '0',
  `deletes: 40 position deletes (${JSON.stringify(del)})`);

lancet('update', DS, '--where', 'id % 7 = 1', '--set', 'v=-1.5');
sync('updates');
const upd = (await checkTable('updates')).snap.summary;
check(upd.operation === 'overwrite' && upd['added-position-deletes'] === upd['added-records'] && upd['added-records'] === '23',
  `updates: old sides deleted, new sides added (${JSON.stringify(upd)})`);

importRows(DS, 200, 260, ['--mode', 'append']);
sync('appends');
const app = (await checkTable('appends')).snap.summary;
check(app.operation === 'append' && app['added-records'] === '60', `appends: 60 rows (${JSON.stringify(app)})`);

// Several versions in one sync: rows updated twice, appended then deleted, deleted.
lancet('update', DS, '--where', 'id < 30', '--set', "s='first'");
importRows(DS, 260, 280, ['--mode', 'append']);
lancet('update', DS, '--where', 'id < 15', '--set', "s='second'");
lancet('delete', DS, '--where', 'id >= 270 OR id % 11 = 2');
sync('mixed');
const { hint } = await checkTable('mixed');
check(hint === 5, `five metadata versions after four syncs (${hint})`);

// Randomised histories: appends, updates, deletes, merges and compactions in random
// order, synced after one to three of them. The seed is printed so a failure replays
// with ICEBERG_SYNC_SEED.
const seed = Number(process.env.ICEBERG_SYNC_SEED ?? (Date.now() % 1e9));
console.log(`iceberg_sync_interop: random history seed ${seed}`);
let state = seed >>> 0;
const rand = (n) => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return Math.floor((state / 2 ** 32) * n);
};
let nextId = 280;
const ops = {
  append: () => {
    const n = 1 + rand(40);
    importRows(DS, nextId, nextId + n, ['--mode', 'append']);
    nextId += n;
    return `append ${n}`;
  },
  update: () => {
    const where = `id % ${2 + rand(9)} = ${rand(2)}`;
    lancet('update', DS, '--where', where, '--set', rand(2) ? `v=${rand(100)}.25` : `s='u${rand(1000)}'`);
    return `update ${where}`;
  },
  delete: () => {
    const where = `id % ${7 + rand(13)} = ${rand(7)}`;
    lancet('delete', DS, '--where', where);
    return `delete ${where}`;
  },
  merge: () => {
    // Some keys that exist (updated) and some new ones (inserted).
    const src = path.join(WORK, `merge${batchNo++}.ndjson`);
    const lines = [];
    const keys = new Set();
    while (keys.size < 10) keys.add(rand(nextId));  // a key twice is refused as ambiguous
    for (const id of keys) lines.push(JSON.stringify({ ...row(id), s: `m${rand(1000)}` }));
    for (let i = 0; i < 5; i++) lines.push(JSON.stringify(row(nextId++)));
    fs.writeFileSync(src, lines.join('\n') + '\n');
    lancet('merge', DS, src, '--on', 'id', '--schema', path.join(WORK, 'schema.json'));
    return 'merge 10 keys + 5 new';
  },
  compact: () => {
    lancet('compact', DS, '--target-rows', String(60 + rand(100)));
    return 'compact';
  },
};
const names = Object.keys(ops);
for (let round = 0; round < 6; round++) {
  const done = [];
  for (let k = 1 + rand(3); k > 0; k--) done.push(ops[names[rand(names.length)]]());
  const label = `random ${round} [${done.join('; ')}]`;
  console.log(`iceberg_sync_interop: ${label}`);
  const out = lancet('iceberg', 'sync', DS, TBL, '--rows-per-file', String(16 + rand(64)));
  check(/^(synced versions|up to date)/.test(out), `${label}: sync: ${out}`);
  await checkTable(label);
  check(/^up to date/.test(lancet('iceberg', 'sync', DS, TBL)), `${label}: a second sync is a no-op`);
}

// Without stable row ids there is no row map, so sync refuses.
const plain = path.join(WORK, 'plain');
importRows(plain, 0, 10, []);
lancet('iceberg', 'export', plain, path.join(WORK, 'tbl_plain'));
lancet('delete', plain, '--where', 'id = 1');
const refused = spawnSync(LANCET, ['iceberg', 'sync', plain, path.join(WORK, 'tbl_plain')], { encoding: 'utf8' });
check(refused.status === 2 && /row map/.test(refused.stderr), `sync without stable row ids refused: ${refused.stderr}`);
check(fs.readFileSync(path.join(WORK, 'tbl_plain/metadata/version-hint.text'), 'utf8') === '1', 'the refused table is unchanged');

console.log(`iceberg_sync_interop: ${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
