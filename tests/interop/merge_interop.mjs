#!/usr/bin/env node
// merge_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// merge_insert by both implementations on the same history. One table (stable row ids
// on, three fragments) is created twice, by the reference and by `lancet import`; each
// is copied, so that the reference and Lancet both merge into each creator's table:
//   RR reference into reference's   RL Lancet into reference's
//   LR reference into Lancet's      LL Lancet into Lancet's
// Every step merges the same source into all four; after it the reference's reads must
// give RL = RR and LL = LR (user columns, _rowid, _row_created_at_version,
// _row_last_updated_at_version, by id) and LR = RR without the two version columns
// (Lancet's appends do not write version sequences yet, so the appended rows of
// Lancet's table read created/updated 1), and Lancet's counts must be the reference's. At the end the
// reference's and Lancet's dumps of every version of each copy must agree.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";

import { openInterop } from "./harness.mjs";

const { lancet, peerHome, work, A, lancedb, makeTable, columnsOf, report, run, compareDumps, finish } =
  await openInterop("merge_interop");

const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const full = new A.Schema([
  F("id", new A.Int64()),
  F("name", new A.Utf8()),
  F("value", new A.Float64()),
  F("tags", new A.List(F("item", new A.Int32()))),
]);
const partial = new A.Schema([F("id", new A.Int64()), F("value", new A.Float64())]);
const nameOf = (i) => (i % 13 === 0 ? null : `n${i}`);
const row = (i, gen) => ({
  id: BigInt(i),
  name: nameOf(i),
  value: gen === 0 ? i * 0.5 : i * 0.5 + gen * (i % 3 === 0 ? -1 : 1),
  tags: i % 5 === 4 ? null : Array.from({ length: (i + gen) % 4 }, (_, k) => i * 10 + k + gen),
});
const table = (schema, rows) => makeTable(schema, columnsOf(schema, rows));
const range = (a, b) => Array.from({ length: b - a }, (_, k) => a + k);

let fileNo = 0;
function ipcFile(t) {
  const file = path.join(work, `src-${fileNo++}.arrows`);
  fs.writeFileSync(file, A.tableToIPC(t, "stream"));
  return file;
}

const LINEAGE = ["_rowid", "_row_created_at_version", "_row_last_updated_at_version"];
async function readAll(root, lineage = LINEAGE) {
  const db = await lancedb.connect(root);
  const t = await db.openTable("t");
  const rows = await t.query().select(["id", "name", "value", "tags", ...lineage]).toArray();
  return rows
    .map((r) => JSON.stringify(r.toJSON(), (_, v) => (typeof v === "bigint" ? v.toString() : v?.toArray ? [...v] : v)))
    .sort();
}

// The steps: [what, source table, reference builder, lancet flags, on].
const steps = [
  ["upsert (update all, insert all)", table(full, range(250, 350).map((i) => row(i, 1))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), []],
  ["insert only", table(full, range(340, 360).map((i) => row(i, 2))),
   (m) => m.whenNotMatchedInsertAll(), ["--when-matched", "skip"]],
  ["update only, delete unmatched where id >= 300", table(full, range(0, 50).map((i) => row(i, 3))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedBySourceDelete({ where: "id >= 300" }),
   ["--when-not-matched", "skip", "--when-not-matched-by-source", "delete", "--delete-if", "id >= 300"]],
  ["conditional update target.value < source.value", table(full, range(10, 30).map((i) => row(i, 4)).concat([row(500, 4)])),
   (m) => m.whenMatchedUpdateAll({ where: "target.value < source.value" }).whenNotMatchedInsertAll(),
   ["--matched-if", "target.value < source.value"]],
  ["partial-schema source", table(partial, range(100, 120).concat(range(400, 405)).map((i) => ({ id: BigInt(i), value: -i }))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), []],
  ["two-column key (id, name) with null names", table(full, range(120, 131).map((i) => ({ ...row(i, 5), name: i === 125 ? "other" : nameOf(i) }))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), [], ["id", "name"]],
  ["large source, spilled by Lancet (--memory-mb 1)", table(full, range(0, 40000).map((i) => row(i, 7))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), ["--memory-mb", "1"], ["id"], /spilled \d+ MiB/],
  ["delete every unmatched row", table(full, range(200, 210).map((i) => row(i, 6))),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedBySourceDelete(), ["--when-not-matched", "skip", "--when-not-matched-by-source", "delete"]],
];

fs.mkdirSync(work, { recursive: true });
try {
  const base = [range(0, 100), range(100, 200), range(200, 300)].map((r) => table(full, r.map((i) => row(i, 0))));
  const roots = { RR: "rr", RL: "rl", LR: "lr", LL: "ll" };
  for (const k of Object.keys(roots)) roots[k] = path.join(work, roots[k]);
  const refRoot = path.join(work, "ref-created");
  const db = await lancedb.connect(refRoot);
  const t0 = await db.createTable("t", base[0], {
    mode: "create", storageOptions: { new_table_enable_stable_row_ids: "true", new_table_data_storage_version: "2.2" },
  });
  await t0.add(base[1]);
  await t0.add(base[2]);
  const lanRoot = path.join(work, "lancet-created");
  const lanDir = path.join(lanRoot, "t.lance");
  run(lancet, ["import", ipcFile(base[0]), lanDir, "--enable-stable-row-ids"], "lancet import");
  run(lancet, ["import", ipcFile(base[1]), lanDir, "--mode", "append"], "lancet append");
  run(lancet, ["import", ipcFile(base[2]), lanDir, "--mode", "append"], "lancet append");
  for (const [k, from] of [["RR", refRoot], ["RL", refRoot], ["LR", lanRoot], ["LL", lanRoot]]) {
    fs.cpSync(from, roots[k], { recursive: true });
  }
  const created = await Promise.all([readAll(refRoot, ["_rowid"]), readAll(lanRoot, ["_rowid"])]);
  report(JSON.stringify(created[0]) === JSON.stringify(created[1]), "both creators give the same rows and row ids");

  for (const [what, src, build, flags, on = ["id"], expectOut] of steps) {
    const counts = {};
    for (const k of ["RR", "LR"]) {
      const t = await (await lancedb.connect(roots[k])).openTable("t");
      const r = await build(t.mergeInsert(on.length === 1 ? on[0] : on)).execute(src);
      counts[k] = [r.numInsertedRows, r.numUpdatedRows, r.numDeletedRows].join("/");
    }
    const file = ipcFile(src);
    for (const k of ["RL", "LL"]) {
      const out = run(lancet, ["merge", path.join(roots[k], "t.lance"), file, "--on", on.join(","), ...flags], `lancet merge (${what})`);
      const m = out.match(/(\d+) inserted, (\d+) updated, (\d+) deleted/);
      if (expectOut) report(expectOut.test(out), `${what}: ${k} output says ${expectOut}`, out.trim());
      counts[k] = m ? [m[1], m[2], m[3]].join("/") : out.trim();
    }
    report(new Set(Object.values(counts)).size === 1, `${what}: inserted/updated/deleted counts`, JSON.stringify(counts));
    const rows = {};
    for (const k of Object.keys(roots)) rows[k] = await readAll(roots[k]);
    const ids = {};
    for (const k of ["RR", "LR"]) ids[k] = await readAll(roots[k], ["_rowid"]);
    const same = (what2, a, b) => {
      const ok = JSON.stringify(a) === JSON.stringify(b);
      const diff = ok ? "" : `first difference: ${a.find((r, i) => r !== b[i]) ?? "(row count)"} vs ${b.find((r, i) => r !== a[i])}`;
      report(ok, `${what}: ${what2} (${b.length} rows)`, diff);
    };
    same("RL reads as RR, lineage columns included", rows.RL, rows.RR);
    same("LL reads as LR, lineage columns included", rows.LL, rows.LR);
    same("LR reads as RR, _rowid included", ids.LR, ids.RR);
  }

  for (const k of Object.keys(roots)) {
    compareDumps(path.join(roots[k], "t.lance"), k, "Lancet and the reference read every version alike");
  }
} catch (e) {
  report(false, "run", e.stack || String(e));
}
finish();
