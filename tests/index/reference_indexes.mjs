// Builds, with the reference (the pinned LanceDB peer), one table per index over the
// same rows: two fragments, nulls, NaN, strings, lists. Then answers the queries of
// a file with the reference's row ids, for reference_index_test.
//
//   node reference_indexes.mjs <peer lib/peer.mjs> <out dir> <queries file>
//
// Queries file: lines "<table>\t<SQL filter>". Writes <out dir>/<table>.lance and
// prints one line per query: the row ids (= row addresses) it matched, space separated.
import fs from "node:fs";

const [peerLib, out, queriesFile] = process.argv.slice(2);
const { lancedb, arrow } = (await import(peerLib)).loadPeer();

function rows(begin, end) {
  const words = ["apple", "banana", "cherry", "delta", "echo", "fox"];
  const r = [];
  for (let i = begin; i < end; ++i) {
    let tags = null;
    if (i % 10 !== 0) {
      tags = [];
      if (i % 7 !== 0) for (let k = 0; k < 1 + (i % 3); ++k) tags.push(words[(i + Math.floor(i / 3) + k * 5) % 6]);
    }
    r.push({
      id: i % 20 === 0 ? null : (i * 7919) % 12000,
      f: i % 33 === 0 ? null : i % 50 === 1 ? NaN : (i % 1000) / 8 - 30,
      s: i % 25 === 0 ? null : "k" + String((i * 31) % 12000).padStart(5, "0"),
      cat: i % 17 === 0 ? null : ["red", "green", "blue"][i % 3],
      tags,
    });
  }
  return r;
}

const schema = new arrow.Schema([
  new arrow.Field("id", new arrow.Int32(), true),
  new arrow.Field("f", new arrow.Float64(), true),
  new arrow.Field("s", new arrow.Utf8(), true),
  new arrow.Field("cat", new arrow.Utf8(), true),
  new arrow.Field("tags", new arrow.List(new arrow.Field("item", new arrow.Utf8(), true)), true),
]);
const indexes = {
  id: ["id", lancedb.Index.btree()],
  f: ["f", lancedb.Index.btree()],
  s: ["s", lancedb.Index.btree()],
  cat: ["cat", lancedb.Index.bitmap()],
  tags: ["tags", lancedb.Index.labelList()],
};
const db = await lancedb.connect(out);
const tables = {};
for (const [name, [column, config]] of Object.entries(indexes)) {
  const t = await db.createTable(name, lancedb.makeArrowTable(rows(0, 10000), { schema }), { mode: "overwrite" });
  await t.add(lancedb.makeArrowTable(rows(10000, 12000), { schema }));
  await t.createIndex(column, { config });
  tables[name] = t;
}
for (const line of fs.readFileSync(queriesFile, "utf8").split("\n")) {
  if (!line) continue;
  const [name, filter] = line.split("\t");
  const got = await tables[name].query().where(filter).withRowId().select(["_rowid"]).toArray();
  process.stdout.write(got.map((r) => String(r._rowid)).join(" ") + "\n");
}
