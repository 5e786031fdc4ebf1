#!/usr/bin/env node
// filter_oracle.mjs PEER_HOME DATASET PREDICATES_FILE
//
// The reference's answer to each predicate (one per line; blank lines and lines starting
// with '#' skipped): query().where(EXPR).withRowId() on DATASET. Prints one JSON line per
// predicate: {"where": EXPR, "rows": [[rowid, id], ...]} with rows sorted by row id, or
// {"where": EXPR, "error": MESSAGE} when the reference refuses it.
import fs from "node:fs";
import path from "node:path";

const [peerHome, dataset, file] = process.argv.slice(2);
if (!peerHome || !dataset || !file) {
  process.stderr.write("usage: filter_oracle.mjs PEER_HOME DATASET PREDICATES_FILE\n");
  process.exit(64);
}
const { openTable } = await import(path.join(peerHome, "lib/benchstore.mjs"));
const handle = await openTable(dataset);
const table = handle.table;
const predicates = fs
  .readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("#"));
for (const where of predicates) {
  let line;
  try {
    const t = await table.query().where(where).select(["id"]).withRowId().toArrow();
    // An empty answer has no columns at all.
    const ids = t.numRows ? t.getChild("id").toArray() : [];
    const rowids = t.numRows ? t.getChild("_rowid").toArray() : [];
    const rows = Array.from(rowids, (r, i) => [String(r), String(ids[i])]);
    rows.sort((a, b) => (BigInt(a[0]) < BigInt(b[0]) ? -1 : BigInt(a[0]) > BigInt(b[0]) ? 1 : 0));
    line = { where, rows };
  } catch (e) {
    line = { where, error: String(e.message ?? e).split("\n")[0] };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
handle.close();
