// Searches tables with the reference (the pinned LanceDB peer), for
// vector_reference_test: Lancet built their vector indexes.
//
//   node vector_reference_search.mjs <peer lib/peer.mjs> <db dir> <queries.json> <table:metric>...
//
// Prints one JSON line per (table, query, nprobes), as vector_reference_indexes.mjs,
// and first one line per table: {"table":..,"indices":[listIndices],"stats":{..},"plan":".."}.
import fs from "node:fs";

const [peerLib, dbDir, queriesFile, ...tables] = process.argv.slice(2);
const { lancedb } = (await import(peerLib)).loadPeer();
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
const db = await lancedb.connect(dbDir);
for (const spec of tables) {
  const [name, metric] = spec.split(":");
  const t = await db.openTable(name);
  const indices = await t.listIndices();
  const stats = indices.length ? await t.indexStats(indices[0].name) : null;
  const plan = await t.vectorSearch(queries[0]).column("vec").distanceType(metric).nprobes(2).limit(5).explainPlan(true);
  process.stdout.write(JSON.stringify({ table: name, indices, stats, plan }) + "\n");
  for (let q = 0; q < queries.length; ++q) {
    for (const nprobes of [1, 3, 8]) {
      const k = 10;
      const got = await t
        .vectorSearch(queries[q])
        .column("vec")
        .distanceType(metric)
        .nprobes(nprobes)
        .limit(k)
        .withRowId()
        .select(["id", "_distance"])
        .toArray();
      const line = {
        table: name,
        query: q,
        nprobes,
        k,
        rows: got.map((r) => String(r._rowid)),
        distances: got.map((r) => r._distance),
      };
      process.stdout.write(JSON.stringify(line) + "\n");
    }
  }
}
