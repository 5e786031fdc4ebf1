// Searches tables with the reference (the pinned LanceDB peer), for
// vector_reference_test: Lancet built their vector indexes.
//
//   node vector_reference_search.mjs <peer lib/peer.mjs> <db dir> <queries.json> <table:metric[:recall]>...
//
// Prints one JSON line per (table, query, nprobes), as vector_reference_indexes.mjs,
// and first one line per table: {"table":..,"indices":[listIndices],"stats":{..},"plan":".."}.
// With ":recall" that line also has "recall": the mean recall@10 of the indexed search
// (nprobes 2, the default ef) against the exact search, over 60 queries near stored rows.
// VECTOR_FILTER=EXPR prefilters the answers' searches with `where(EXPR)`.
import fs from "node:fs";

const [peerLib, dbDir, queriesFile, ...tables] = process.argv.slice(2);
const { lancedb } = (await import(peerLib)).loadPeer();
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
const db = await lancedb.connect(dbDir);
for (const spec of tables) {
  const [name, metric, extra] = spec.split(":");
  const t = await db.openTable(name);
  const indices = await t.listIndices();
  const stats = indices.length ? await t.indexStats(indices[0].name) : null;
  const plan = await t.vectorSearch(queries[0]).column("vec").distanceType(metric).nprobes(2).limit(5).explainPlan(true);
  const report = { table: name, indices, stats, plan };
  if (extra === "recall") {
    const sample = await t.query().select(["id", "vec"]).limit(4000).toArray();
    let recall = 0;
    const n = 60;
    for (let q = 0; q < n; ++q) {
      const v = Array.from(sample[(q * 61) % sample.length].vec).map((x, i) => x + (((q + i) % 3) - 1) * 0.2);
      const search = () => t.vectorSearch(v).column("vec").distanceType(metric).limit(10).withRowId();
      const exact = new Set((await search().bypassVectorIndex().toArray()).map((r) => String(r._rowid)));
      const ann = await search().nprobes(2).toArray();
      recall += ann.filter((r) => exact.has(String(r._rowid))).length / 10 / n;
    }
    report.recall = recall;
  }
  process.stdout.write(JSON.stringify(report) + "\n");
  for (let q = 0; q < queries.length; ++q) {
    for (const nprobes of [1, 3, 8]) {
      const k = 10;
      let search = t.vectorSearch(queries[q]).column("vec").distanceType(metric).nprobes(nprobes).limit(k);
      if (process.env.VECTOR_FILTER) search = search.where(process.env.VECTOR_FILTER);
      const got = await search.withRowId().select(["id", "_distance"]).toArray();
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
