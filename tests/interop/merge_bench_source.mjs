#!/usr/bin/env node
// merge_bench_source.mjs DATASET OUT.arrows [--source-rows N] [--match-fraction F] [--seed S]
//
// Writes, as an Arrow IPC stream, the merge-insert source `bench.mjs --op merge-insert`
// builds for DATASET (tests/peer/README.md, "merge-insert source"): round(N * F)
// distinct scan positions Rand(seed, "bench/merge-insert").u32() % rows (repeats
// skipped) give existing ids, then new ids max(id)+1, +2, ...; the rows are DATASET's
// recipe rows for those ids with the seed "<seed>/merge-insert", in 65,536-row batches.
// Defaults: N 100000, F 0.5, S 42 (bench.mjs's). Prints "rows matched bytes".
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peer = process.env.LANCET_PEER_HARNESS || path.join(here, "../peer");
const { loadPeer } = await import(path.join(peer, "lib/peer.mjs"));
const { Rand } = await import(path.join(peer, "lib/build.mjs"));
const BD = await import(path.join(peer, "lib/benchdata.mjs"));
const { arrow: A, lancedb } = loadPeer();

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const [dataset, out] = args;
if (!dataset || !out || dataset.startsWith("--")) {
  process.stderr.write("usage: merge_bench_source.mjs DATASET OUT.arrows [--source-rows N] [--match-fraction F] [--seed S]\n");
  process.exit(64);
}
const n = opt("--source-rows", 100000);
const fraction = opt("--match-fraction", 0.5);
const seed = opt("--seed", 42);

const dir = path.resolve(dataset);
const db = await lancedb.connect(path.dirname(dir));
const t = await db.openTable(path.basename(dir).replace(/\.lance$/, ""));
const meta = BD.benchMeta(await t.schema());
if (!BD.RECIPE_KINDS.includes(meta?.kind)) {
  process.stderr.write(`merge_bench_source: ${dataset} was not written by bench.mjs make-dataset\n`);
  process.exit(64);
}
const idVec = (await t.query().select(["id"]).toArrow()).getChild("id");
const ids = Float64Array.from(idVec.toArray(), Number);
const matched = Math.round(n * fraction);
if (matched > ids.length) {
  process.stderr.write(`merge_bench_source: ${matched} existing ids wanted, ${dataset} has ${ids.length} rows\n`);
  process.exit(64);
}
const rnd = new Rand(seed, "bench/merge-insert");
const picked = new Set();
while (picked.size < matched) picked.add(rnd.u32() % ids.length);
const maxId = ids.reduce((m, x) => Math.max(m, x), -1);
const keys = new Float64Array(n);
let k = 0;
for (const p of picked) keys[k++] = ids[p];
for (let j = 1; k < n; j++) keys[k++] = maxId + j;
const batches = [];
for (let s = 0; s < n; s += 65536) batches.push(BD.recipeBatch(meta, `${seed}/merge-insert`, keys.subarray(s, Math.min(n, s + 65536))));
const source = new A.Table(batches[0].schema, batches);
fs.writeFileSync(out, A.tableToIPC(source, "stream"));
process.stdout.write(`${n} ${matched} ${BD.arrowBytes(source)}\n`);
