#!/usr/bin/env node
// knn_ef.mjs PEER_HOME DATASET QUERIES.json --nprobes N --ef E[,E2...] [--refine-factor R]
//            [--k 10] [--column vec]
//
// The reference's HNSW search at given ef values (bench.mjs's knn op has no ef option):
// for each ef, one timed pass over the queries, then recall@k against the same
// queries with bypassVectorIndex. Prints one JSON line per ef, shaped like bench.mjs's
// knn lines (op, index, qps, median_ms, p99_ms, recall, ef), so knn_bench --ref reads
// them. Each ef gets one untimed pass first, as bench.mjs's warm-up.
import fs from "node:fs";
import path from "node:path";

const [peerHome, dir, queriesFile, ...rest] = process.argv.slice(2);
if (!peerHome || !dir || !queriesFile) {
  process.stderr.write("usage: knn_ef.mjs PEER_HOME DATASET QUERIES.json --nprobes N --ef E[,E2...] [--refine-factor R] [--k 10] [--column vec]\n");
  process.exit(64);
}
const opts = { nprobes: 20, ef: [], k: 10, column: "vec", refine: null };
for (let i = 0; i < rest.length; i += 2) {
  const [name, value] = [rest[i], rest[i + 1]];
  if (value === undefined) throw new Error(`${name} needs a value`);
  if (name === "--nprobes") opts.nprobes = Number(value);
  else if (name === "--ef") opts.ef = value.split(",").map(Number);
  else if (name === "--k") opts.k = Number(value);
  else if (name === "--refine-factor") opts.refine = Number(value);
  else if (name === "--column") opts.column = value;
  else throw new Error(`unknown option ${name}`);
}
if (!opts.ef.length || opts.ef.some((e) => !(e > 0))) throw new Error("--ef needs positive values");

const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { lancedb } = loadPeer();
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8")).queries.map((q) => Float32Array.from(q));
const db = await lancedb.connect(path.dirname(dir));
const table = await db.openTable(path.basename(dir).replace(/\.lance$/, ""));
const ids = (r) => Array.from(r.getChild("id").toArray());
const search = (q) => table.vectorSearch(q).column(opts.column).limit(opts.k).select(["id"]);
const indexed = (q, ef) => {
  const s = search(q).nprobes(opts.nprobes).ef(ef);
  return (opts.refine ? s.refineFactor(opts.refine) : s).toArrow();
};

const truth = [];
for (const q of queries) truth.push(new Set(ids(await search(q).bypassVectorIndex().toArrow())));
const index = (await table.listIndices()).find((x) => x.columns.includes(opts.column));
for (const ef of opts.ef) {
  for (const q of queries) await indexed(q, ef);  // warm-up
  const ms = [];
  let hits = 0;
  for (const [i, q] of queries.entries()) {
    const t0 = process.hrtime.bigint();
    const r = await indexed(q, ef);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    hits += ids(r).filter((x) => truth[i].has(x)).length / Math.max(1, truth[i].size);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const total = ms.reduce((s, x) => s + x, 0);
  process.stdout.write(
    JSON.stringify({
      op: "knn", ef, nprobes: opts.nprobes, refine_factor: opts.refine, k: opts.k, queries: queries.length,
      index: index ? `${index.name}(${index.indexType})` : null,
      qps: Math.round((queries.length / (total / 1000)) * 10) / 10,
      median_ms: at(0.5), p99_ms: at(0.99), recall: Math.round((hits / queries.length) * 1e4) / 1e4,
    }) + "\n",
  );
}
