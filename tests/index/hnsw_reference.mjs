// Has the reference (the pinned LanceDB peer) build an IVF_HNSW_SQ index, for
// hnsw_reference_test: 3000 clustered 16-d float32 vectors, 2 partitions, m=20,
// ef_construction=300.
//
//   node hnsw_reference.mjs <peer lib/peer.mjs> <out dir>
//
// Writes <out dir>/vectors.f32 (row-major, row i = table row i) and the table
// <out dir>/db/t.lance with one index segment.
import fs from "node:fs";

const [peerLib, out] = process.argv.slice(2);
const { lancedb, arrow: A } = (await import(peerLib)).loadPeer();

const N = 3000;
const DIM = 16;
let x = 12345;
const rnd = () => {
  x = (Math.imul(x, 1103515245) + 12345) >>> 0;
  return (x >>> 8) / (1 << 24);
};
const centres = Array.from({ length: 12 }, () => Array.from({ length: DIM }, () => rnd() * 20 - 10));
const flat = new Float32Array(N * DIM);
const rows = [];
for (let i = 0; i < N; ++i) {
  const c = centres[Math.floor(rnd() * centres.length)];
  const v = c.map((m) => Math.fround(m + (rnd() + rnd() + rnd() - 1.5) * 2));
  flat.set(v, i * DIM);
  rows.push({ id: i, vec: v });
}
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(`${out}/vectors.f32`, Buffer.from(flat.buffer));

const schema = new A.Schema([
  new A.Field("id", new A.Int32(), false),
  new A.Field("vec", new A.FixedSizeList(DIM, new A.Field("item", new A.Float32(), true)), false),
]);
const db = await lancedb.connect(`${out}/db`);
const t = await db.createTable("t", lancedb.makeArrowTable(rows, { schema }));
await t.createIndex("vec", { config: lancedb.Index.hnswSq({ numPartitions: 2, m: 20, efConstruction: 300 }) });
