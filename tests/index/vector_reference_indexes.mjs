// Builds, with the reference (the pinned LanceDB peer), vector indexes over one
// clustered 32-d float32 table (two fragments) and answers fixed queries with them,
// for vector_reference_test.
//
//   node vector_reference_indexes.mjs <peer lib/peer.mjs> <out dir>
//
// Writes <out dir>/<table>.lance for each table below and <out dir>/queries.json (the
// query vectors); prints one JSON line per (table, query, nprobes):
//   {"table":..,"query":i,"nprobes":n,"k":k,"rows":[..],"distances":[..]}
import fs from "node:fs";

const [peerLib, out] = process.argv.slice(2);
const { lancedb, arrow } = (await import(peerLib)).loadPeer();

const DIM = 32;
let seed = 12345;
function rand() {
  // xorshift32: the same vectors on every run.
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}
function gauss() {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}
const centers = [];
for (let c = 0; c < 12; ++c) centers.push(Array.from({ length: DIM }, () => gauss() * 4));
function vector() {
  const c = centers[Math.floor(rand() * centers.length)];
  return c.map((x) => x + gauss());
}
function rows(begin, end) {
  const r = [];
  for (let i = begin; i < end; ++i) r.push({ id: i, vec: vector() });
  return r;
}
const first = rows(0, 3000);
const second = rows(3000, 4000);
const queries = [];
for (let q = 0; q < 6; ++q) queries.push(vector());
queries.push(Array.from({ length: DIM }, () => gauss() * 3));
fs.writeFileSync(`${out}/queries.json`, JSON.stringify(queries));

const schemaOf = (item) =>
  new arrow.Schema([
    new arrow.Field("id", new arrow.Int32(), false),
    new arrow.Field("vec", new arrow.FixedSizeList(DIM, new arrow.Field("item", item, true)), true),
  ]);
const f32 = schemaOf(new arrow.Float32());
const f16 = schemaOf(new arrow.Float16());
const P = { numPartitions: 8, maxIterations: 50, sampleRate: 256 };
const tables = {
  flat_l2: ["l2", lancedb.Index.ivfFlat({ ...P, distanceType: "l2" })],
  flat_cos: ["cosine", lancedb.Index.ivfFlat({ ...P, distanceType: "cosine" })],
  flat_dot: ["dot", lancedb.Index.ivfFlat({ ...P, distanceType: "dot" })],
  pq_l2: ["l2", lancedb.Index.ivfPq({ ...P, distanceType: "l2", numSubVectors: 4, numBits: 8 })],
  pq_cos: ["cosine", lancedb.Index.ivfPq({ ...P, distanceType: "cosine", numSubVectors: 4, numBits: 8 })],
  pq_dot: ["dot", lancedb.Index.ivfPq({ ...P, distanceType: "dot", numSubVectors: 4, numBits: 8 })],
  hnsw_sq: ["l2", lancedb.Index.hnswSq({ numPartitions: 2, distanceType: "l2" })],
  // float16 vectors: float16 centroids, codebook and flat storage.
  flat_f16: ["l2", lancedb.Index.ivfFlat({ ...P, distanceType: "l2" }), f16],
  pq_f16: ["l2", lancedb.Index.ivfPq({ ...P, distanceType: "l2", numSubVectors: 4, numBits: 8 }), f16],
  plain_f16: ["l2", null, f16],
};
const only = process.env.VECTOR_TABLES ? process.env.VECTOR_TABLES.split(",") : Object.keys(tables);
const db = await lancedb.connect(out);
for (const name of only) {
  const [metric, config, schema = f32] = tables[name];
  const t = await db.createTable(name, lancedb.makeArrowTable(first, { schema }), { mode: "overwrite" });
  await t.add(lancedb.makeArrowTable(second, { schema }));
  if (!config) continue;  // Lancet indexes it
  await t.createIndex("vec", { config });
  // hnsw_sq: its SQ storage is what IVF_SQ stores; a wide beam over both partitions.
  const hnsw = name === "hnsw_sq";
  for (let q = 0; q < queries.length; ++q) {
    for (const nprobes of hnsw ? [2] : [1, 3, 8]) {
      const k = 10;
      let search = t.vectorSearch(queries[q]).column("vec").distanceType(metric).nprobes(nprobes).limit(k);
      if (hnsw) search = search.ef(400);
      const got = await search.withRowId().select(["id", "_distance"]).toArray();
      const line = {
        table: name,
        query: q,
        nprobes,
        k,
        ef: hnsw ? 400 : 0,
        rows: got.map((r) => String(r._rowid)),
        distances: got.map((r) => r._distance),
      };
      process.stdout.write(JSON.stringify(line) + "\n");
    }
  }
}
