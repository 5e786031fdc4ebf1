// node iceberg_rest_interop.mjs LANCET NODE_MODULES WORK
//
// One catalog for both formats: `lancet serve` over a directory namespace holding a Lance
// table and an Iceberg table (`lancet iceberg export` of it, registered next to it).
// iceberg-js, an independent Iceberg REST Catalog client, loads the config, lists
// namespaces and tables, checks existence and loads both tables; icebird then reads the
// Iceberg table from the metadata the server returned and must see exactly the rows
// `lancet scan` gives. The Lance table loads as the Lance catalogs' entry
// (table_type=lance, location = its root, no snapshots). Errors arrive as Iceberg errors
// (404 for missing objects, 401 without the token). One PASS/FAIL line per check.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [LANCET, NODE_MODULES, WORK] = process.argv.slice(2);
if (!WORK) {
  console.error('usage: iceberg_rest_interop.mjs LANCET NODE_MODULES WORK');
  process.exit(64);
}
const { IcebergRestCatalog } = createRequire(path.join(NODE_MODULES, 'iceberg-js'))('iceberg-js');
const { icebergRead } = await import(path.join(NODE_MODULES, 'icebird/src/index.js'));

let passed = 0;
let failed = 0;
function report(ok, what, detail = '') {
  console.log(`${ok ? 'PASS' : 'FAIL'} iceberg-rest ${what}${ok || !detail ? '' : `: ${detail}`}`);
  if (ok) passed++;
  else failed++;
}
const withTimeout = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: timed out`)), ms).unref())]);
const lancet = (...args) => execFileSync(LANCET, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 });

// icebird fetches file:// locations (node's fetch has none): whole files, status 200.
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const u = String(url);
  if (!u.startsWith('file://')) return realFetch(url, init);
  const bytes = fs.readFileSync(decodeURIComponent(new URL(u).pathname));
  return new Response(bytes, { status: 200, headers: { 'content-length': String(bytes.length) } });
};

// ---- a warehouse: namespace db with Lance table db.lt and its Iceberg export db.it.
const wh = path.join(WORK, 'wh');
const rows = [];
for (let i = 0; i < 300; i++) rows.push({ id: i, name: `n${i % 17}`, score: i % 7 === 0 ? null : i * 0.25, ok: i % 3 === 0 });
fs.writeFileSync(path.join(WORK, 'rows.ndjson'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
fs.writeFileSync(path.join(WORK, 'schema.json'), JSON.stringify({
  fields: [{ name: 'id', type: 'int64', nullable: false }, { name: 'name', type: 'utf8' }, { name: 'score', type: 'float64' }, { name: 'ok', type: 'bool' }],
}));
lancet('--namespace', wh, 'ns', 'create', 'db');
lancet('--namespace', wh, 'import', path.join(WORK, 'rows.ndjson'), 'db.lt', '--schema', path.join(WORK, 'schema.json'));
const lanceDir = lancet('--namespace', wh, 'ns', 'describe', 'db.lt').match(/location=(.*)/)[1].trim();
lancet('delete', lanceDir, '--where', 'id >= 290');
const iceDir = path.join(wh, 'db_it_iceberg');
lancet('iceberg', 'export', lanceDir, iceDir);
lancet('--namespace', wh, 'ns', 'register', 'db.it', iceDir);
const expected = lancet('scan', lanceDir, '--format', 'json').split('\n').filter(Boolean).map((l) => JSON.parse(l));

// ---- the server, with a token.
const TOKEN = 't-' + Math.random().toString(36).slice(2);
fs.writeFileSync(path.join(WORK, 'token'), TOKEN + '\n', { mode: 0o600 });
const server = spawn(LANCET, ['serve', '--root', wh, '--port', '0', '--token-file', path.join(WORK, 'token'), '--quiet'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
process.on('exit', () => { try { server.kill('SIGKILL'); } catch { /* gone */ } });
const port = await withTimeout(new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (c) => {
    out += c;
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
}), 20000, 'server start');
const baseUrl = `http://127.0.0.1:${port}`;

try {
  const catalog = new IcebergRestCatalog({ baseUrl, warehouse: 'wh', auth: { type: 'bearer', token: TOKEN } });
  const config = await catalog.loadConfig();
  report(config?.overrides?.prefix === 'iceberg', 'config hands out the prefix', JSON.stringify(config));

  const spaces = await catalog.listNamespaces();
  const spaceNames = (spaces.namespaces ?? spaces).map((n) => (Array.isArray(n) ? n : n.namespace).join('.'));
  report(spaceNames.includes('db'), 'listNamespaces sees db', JSON.stringify(spaces));
  report(await catalog.namespaceExists({ namespace: ['db'] }), 'namespaceExists(db)');
  report(!(await catalog.namespaceExists({ namespace: ['nope'] })), 'namespaceExists(nope) is false');
  const meta = await catalog.loadNamespaceMetadata({ namespace: ['db'] });
  report(typeof meta?.properties === 'object', 'loadNamespaceMetadata(db)', JSON.stringify(meta));

  const tables = await catalog.listTables({ namespace: ['db'] });
  const tableNames = (tables.identifiers ?? tables).map((t) => t.name).sort();
  report(JSON.stringify(tableNames) === '["it","lt"]', 'listTables lists the Iceberg and the Lance table', JSON.stringify(tables));
  report(await catalog.tableExists({ namespace: ['db'], name: 'it' }), 'tableExists(it)');
  report(!(await catalog.tableExists({ namespace: ['db'], name: 'zz' })), 'tableExists(zz) is false');

  // The Iceberg table: its metadata from the server, its rows through icebird.
  const loaded = await catalog.loadTableResult({ namespace: ['db'], name: 'it' });
  const metadataLocation = loaded?.['metadata-location'] ?? loaded?.metadataLocation;
  report(typeof metadataLocation === 'string' && metadataLocation.startsWith('file://') && fs.existsSync(new URL(metadataLocation).pathname),
    'loadTableResult(it) gives the metadata file', JSON.stringify(metadataLocation));
  const metadata = await catalog.loadTable({ namespace: ['db'], name: 'it' });
  report(metadata?.['format-version'] === 2 && metadata?.['current-snapshot-id'] > 0, 'loadTable(it) is a v2 table with a snapshot');
  const read = await icebergRead({ tableUrl: metadata.location, metadata });
  const canon = (r) => JSON.stringify([Number(r.id), r.name, r.score === null || r.score === undefined ? null : Number(r.score), r.ok]);
  const got = read.map(canon).sort();
  const want = expected.map(canon).sort();
  report(got.length === 290 && JSON.stringify(got) === JSON.stringify(want), 'icebird reads exactly the Lance version\'s rows through the catalog',
    `${got.length} rows vs ${want.length}`);

  // The Lance table: the Lance catalogs' entry.
  const lance = await catalog.loadTable({ namespace: ['db'], name: 'lt' });
  report(lance?.properties?.table_type === 'lance', 'loadTable(lt) says table_type=lance', JSON.stringify(lance?.properties));
  report(lance?.location === `file://${lanceDir}`, 'loadTable(lt) points at the Lance root', lance?.location);
  report((lance?.snapshots ?? []).length === 0, 'loadTable(lt) has no snapshots');

  // Errors, as Iceberg errors.
  let status = 0;
  try { await catalog.loadTable({ namespace: ['db'], name: 'zz' }); } catch (e) { status = e.status; }
  report(status === 404, 'loadTable(zz) is 404', String(status));
  status = 0;
  try { await catalog.listTables({ namespace: ['nope'] }); } catch (e) { status = e.status; }
  report(status === 404, 'listTables(nope) is 404', String(status));
  const anonymous = new IcebergRestCatalog({ baseUrl, warehouse: 'wh' });
  status = 0;
  try { await anonymous.listNamespaces(); } catch (e) { status = e.status; }
  report(status === 401, 'without the token: 401', String(status));
} catch (e) {
  report(false, 'the catalog session', e.stack);
}

server.kill('SIGTERM');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
