#!/usr/bin/env node
// index_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Scalar indexes against the reference, both ways (index-format-notes §7):
//   A: the reference builds BTree, Bitmap and LabelList indexes (then appends an
//      unindexed fragment); lancet lists them, uses them (--explain names each) and
//      returns the rows of an unindexed twin, reading far fewer bytes for a lookup.
//   B: lancet builds every type (BTree, Bitmap, LabelList, ZoneMap, BloomFilter) on a
//      copy of the twin; the reference lists the exact ones, its explainPlan shows
//      ScalarIndexQuery ...@name(Type) for each, its rows equal the twin's, and stay
//      equal after its own add(), delete() and optimize() (which reads lancet's files).
//   C: lancet's optimize brings the reference's indexes over the appended fragment.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: index_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { arrow: A, lancedb } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} index ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
function run(args, what) {
  const r = spawnSync(lancet, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr || r.error}`);
  return { out: r.stdout, err: r.stderr };
}

// ---- data: 12000 rows in two fragments, then 1500 appended after the indexes.
const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([
  F("id", new A.Int32()), F("seq", new A.Int64(), false), F("h", new A.Int64()), F("f", new A.Float64()),
  F("s", new A.Utf8()), F("cat", new A.Int32()), F("tags", new A.List(F("item", new A.Utf8()))),
]);
const WORDS = ["apple", "banana", "cherry", "delta", "echo", "fox"];
function rows(begin, n, seed) {
  let x = seed >>> 0;
  const rnd = (m) => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return (x >>> 8) % m; };
  const ids = Array.from({ length: n }, (_, i) => begin + i);
  for (let i = n - 1; i > 0; i--) { const j = rnd(i + 1); [ids[i], ids[j]] = [ids[j], ids[i]]; }
  return Array.from({ length: n }, (_, i) => {
    const r = begin + i;
    return {
      id: r % 13 === 0 ? null : ids[i], seq: BigInt(r), h: r % 29 === 0 ? null : BigInt(rnd(1 << 30)) * 7n,
      f: r % 19 === 0 ? null : r % 17 === 0 ? NaN : rnd(1000) / 10,
      s: r % 11 === 0 ? null : `k${rnd(5000)}`, cat: rnd(8),
      tags: r % 23 === 5 ? null : Array.from({ length: rnd(4) }, () => WORDS[rnd(6)]),
    };
  });
}
const table = (rs) => lancedb.makeArrowTable(rs, { schema });

const QUERIES = [
  ["id = 77", "id_idx", "BTree"], ["id IN (5, 9, 4242, 9999)", "id_idx", "BTree"], ["id > 11000", "id_idx", "BTree"],
  ["id >= 100 AND id < 200", "id_idx", "BTree"], ["id IS NULL", "id_idx", "BTree"], ["f > 99.5", "f_idx", "BTree"],
  ["f < 0.5", "f_idx", "BTree"], ["s = 'k42'", "s_idx", "BTree"], ["s LIKE 'k12%'", "s_idx", "BTree"],
  ["cat = 3", "cat_idx", "Bitmap"], ["cat IN (1, 2)", "cat_idx", "Bitmap"], ["cat IS NULL", "cat_idx", "Bitmap"],
  ["array_has_any(tags, ['fox', 'echo'])", "tags_idx", "LabelList"], ["array_has(tags, 'apple')", "tags_idx", "LabelList"],
  ["id < 50 OR cat = 7", null, null], ["NOT (id > 100)", null, null], ["id = 5 AND f > 50", null, null],
];
const LANCET_ONLY = [
  ["seq >= 4000 AND seq < 4100", "seq_idx", "ZoneMap"], ["seq = 9123", "seq_idx", "ZoneMap"],
  ["h = 7", "h_idx", "BloomFilter"], ["h IN (14, 21)", "h_idx", "BloomFilter"],
];

// Rows are compared by seq (unique per row), which survives the compaction inside the
// reference's optimize() where row addresses do not.
async function peerIds(t, q) {
  const r = await t.query().where(q).select(["seq"]).toArray();
  return r.map((x) => String(x.seq)).sort();
}
function lancetIds(ds, q) {
  const { out } = run(["scan", ds, "--where", q, "-c", "seq", "-f", "json"], `lancet scan ${q}`);
  return out.split("\n").filter((l) => l).map((l) => String(JSON.parse(l).seq)).sort();
}
function same(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  report(g === w, what, g === w ? `${got.length} rows` : `lancet ${g.slice(0, 300)} vs reference ${w.slice(0, 300)}`);
}
const planUses = (plan) => [...plan.matchAll(/ScalarIndexQuery: query=(.*)$/gm)].map((m) => m[1].trim());

const db = await lancedb.connect(path.join(work, "db"));
const T = await db.createTable("t", table(rows(0, 6000, 1)));
await T.add(table(rows(6000, 6000, 2)));
const TW = await db.createTable("tw", table(rows(0, 6000, 1)));
await TW.add(table(rows(6000, 6000, 2)));
const tDir = path.join(work, "db", "t.lance"), twDir = path.join(work, "db", "tw.lance");
const lDir = path.join(work, "db", "l.lance");
fs.cpSync(twDir, lDir, { recursive: true });

// ---- A: the reference's indexes, used by lancet.
for (const [col, make] of [["id", "btree"], ["f", "btree"], ["s", "btree"], ["cat", "bitmap"], ["tags", "labelList"]]) {
  await T.createIndex(col, { config: lancedb.Index[make]() });
}
await T.add(table(rows(12000, 1500, 3)));
await TW.add(table(rows(12000, 1500, 3)));
{
  const { out } = run(["index", "list", tDir], "lancet index list");
  for (const [name, type] of [["id_idx", "BTree"], ["f_idx", "BTree"], ["s_idx", "BTree"], ["cat_idx", "Bitmap"],
                              ["tags_idx", "LabelList"]]) {
    const line = out.split("\n").find((l) => l.startsWith(`${name}\t`)) ?? "";
    const cols = line.split("\t");
    report(cols[1] === type && cols[4] === "12000" && cols[5] === "1500", `A: lancet lists the reference's ${name}`, line);
  }
  for (const [q, name, type] of QUERIES) {
    same(lancetIds(tDir, q), await peerIds(TW, q), `A: lancet on the reference's indexes: ${q}`);
    if (!name) continue;
    const { out: plan } = run(["scan", tDir, "--where", q, "--explain"], "explain");
    report(plan.includes(`@${name}(${type})`), `A: lancet's plan uses ${name} for ${q}`, plan.trim().split("\n")[0]);
  }
  const bytes = (ds) => {
    const { err } = run(["scan", ds, "--where", "id = 77", "-c", "id", "--io-stats"], "io-stats");
    const line = err.split("\n").find((l) => l.startsWith("{\"requests\""));
    return line ? JSON.parse(line).bytes : NaN;
  };
  const withIdx = bytes(tDir), without = bytes(twDir);
  // Small data: fixed costs (manifest, file metadata) dominate here; bench/index_bench
  // measures the ratio at 1M rows.
  report(withIdx < without, "A: id = 77 reads fewer bytes through the reference's BTree",
         `${withIdx} vs ${without} bytes`);
}

// ---- B: lancet's indexes, used by the reference.
const L = await db.openTable("l");
for (const [col, type] of [["id", "btree"], ["f", "btree"], ["s", "btree"], ["cat", "bitmap"], ["tags", "label_list"],
                           ["seq", "zonemap"], ["h", "bloomfilter"]]) {
  run(["index", "create", lDir, col, "--type", type], `lancet index create ${col}`);
}
await L.checkoutLatest();
{
  const listed = await L.listIndices();
  const by = Object.fromEntries(listed.map((x) => [x.name, x]));
  for (const [name, type, version] of [["id_idx", "BTree", 0], ["f_idx", "BTree", 0], ["s_idx", "BTree", 0],
                                       ["cat_idx", "Bitmap", 0], ["tags_idx", "LabelList", 1]]) {
    const x = by[name];
    report(x && x.indexType === type && x.indexVersion === version && x.numIndexedRows === 12000 &&
           x.numUnindexedRows === 0 && x.sizeBytes > 0, `B: the reference lists lancet's ${name}`, JSON.stringify(x));
  }
  for (const name of ["seq_idx", "h_idx"]) {
    const st = await L.indexStats(name);
    report(st && st.numIndexedRows === 12000, `B: the reference's indexStats of lancet's ${name}`, JSON.stringify(st));
  }
  const twAt12k = await db.openTable("tw");
  await twAt12k.checkout(2);
  for (const [q, name, type] of [...QUERIES, ...LANCET_ONLY]) {
    const uses = planUses(await L.query().where(q).explainPlan(true));
    if (name) report(uses.some((u) => u.includes(`]@${name}(${type})`)), `B: the reference uses lancet's ${name}: ${q}`,
                     uses.join("; ") || "no ScalarIndexQuery");
    same(await peerIds(L, q), await peerIds(twAt12k, q), `B: the reference's rows through lancet's indexes: ${q}`);
  }
  await L.add(table(rows(12000, 1500, 3)));
  await L.delete("id % 7 = 0");
  await TW.delete("id % 7 = 0");
  for (const [q] of [...QUERIES, ...LANCET_ONLY]) {
    same(await peerIds(L, q), await peerIds(TW, q), `B: after the reference's add and delete: ${q}`);
  }
  await L.optimize();
  const after = await L.listIndices();
  const live = await L.countRows();
  report(after.filter((x) => x.numUnindexedRows === 0 && x.numIndexedRows === live).length === 5,
         "B: the reference's optimize() merges the appended rows into lancet's indexes",
         JSON.stringify(after.map((x) => [x.name, x.numIndexedRows, x.numUnindexedRows])));
  for (const [q] of [...QUERIES, ...LANCET_ONLY]) {
    same(await peerIds(L, q), await peerIds(TW, q), `B: after the reference's optimize: ${q}`);
    same(lancetIds(lDir, q), await peerIds(TW, q), `B: lancet reads the reference's optimized indexes: ${q}`);
  }
}

// ---- C: lancet optimizes the reference's indexes over the appended fragment.
{
  run(["index", "optimize", tDir], "lancet index optimize");
  await T.checkoutLatest();
  const listed = await T.listIndices();
  report(listed.length === 5 && listed.every((x) => x.numUnindexedRows === 0 && x.numIndexedRows === 13500),
         "C: the reference sees lancet's optimize cover every row",
         JSON.stringify(listed.map((x) => [x.name, x.numIndexedRows, x.numUnindexedRows])));
  const TWnow = await db.openTable("tw");
  await TWnow.checkout(3);  // before the delete
  for (const [q] of QUERIES) same(await peerIds(T, q), await peerIds(TWnow, q), `C: the reference's rows after lancet's optimize: ${q}`);
}

process.stdout.write(failures ? `${failures} index interop check(s) failed\n` : "all index interop checks passed\n");
process.exit(failures ? 1 : 0);
