// Has the reference (the pinned LanceDB peer) build an IVF_HNSW_SQ index, for
// hnsw_reference_test: 3000 clustered 16-d float32 vectors, 2 partitions, m=20,
// ef_construction=300.
//
//   node hnsw_reference.mjs <peer lib/peer.mjs> <out dir>
//
// Writes <out dir>/vectors.f32 (row-major, row i = table row i) and the table
// <out dir>/db/t.lance with one index segment.
//
//   node hnsw_reference.mjs <peer lib/peer.mjs> <dir> query
//
// Prints the recall@10 of the reference's indexed search (both partitions probed)
// against its exact search, over 100 queries near stored vectors; then whether a
// filtered indexed search returned 10 rows that all pass the filter.
import fs from "node:fs";

const [peerLib, out, mode] = process.argv.slice(2);
const { lancedb, arrow: A } = (await import(peerLib)).loadPeer();

if (mode === "query") {
  const buf = fs.readFileSync(`${out}/vectors.f32`);
  const v = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const t = await (await lancedb.connect(`${out}/db`)).openTable("t");
  let recall = 0;
  for (let q = 0; q < 100; ++q) {
    const at = ((q * 29) % 3000) * 16;
    const query = Array.from(v.slice(at, at + 16)).map((x, i) => x + (((q + i) % 3) - 1) * 0.3);
    const search = () => t.vectorSearch(query).column("vec").limit(10).withRowId();
    const ann = await search().nprobes(2).toArray();
    const exact = new Set((await search().bypassVectorIndex().toArray()).map((r) => Number(r._rowid)));
    recall += ann.filter((r) => exact.has(Number(r._rowid))).length / 10;
  }
  const filtered = await t.vectorSearch(Array.from(v.slice(0, 16))).column("vec").limit(10).where("id % 2 = 0").toArray();
  process.stdout.write(`${recall / 100} ${filtered.length === 10 && filtered.every((r) => r.id % 2 === 0)}\n`);
  process.exit(0);
}

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
