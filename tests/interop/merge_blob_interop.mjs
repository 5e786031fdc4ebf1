#!/usr/bin/env node
// merge_blob_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// merge_insert into tables with a Blob V2 column, by both implementations. A table
// (stable row ids, two fragments, blobs of every placement) is created by the
// reference and by `lancet import`; each is copied so that both merge into both:
//   RR reference into reference's   RL Lancet into reference's
//   LR reference into Lancet's      LL Lancet into Lancet's
// After every step all four must hold the rows a model of the merge predicts (values
// and the sha256 of every blob's bytes, as the reference's dump.mjs fetches them), RL
// must read as RR and LL as LR (_rowid, both lineage columns, each blob's placement
// kind and size), and at the end both implementations' dumps of every version agree.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

import { openInterop } from "./harness.mjs";

const { lancet, peerHome, work, A, lancedb, makeTable, columnsOf, report, run, compareDumps, finish } =
  await openInterop("merge_blob_interop");

// inline up to 100 bytes, packed up to 1000, dedicated above.
const THRESHOLDS = { inlineSizeThreshold: 100, dedicatedSizeThreshold: 1000, packFileSizeThreshold: 2000 };
const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const full = new A.Schema([F("id", new A.Int64(), false), F("value", new A.Float64()), lancedb.blob("payload", THRESHOLDS)]);
const partial = new A.Schema([F("id", new A.Int64(), false), F("value", new A.Float64())]);
const bytesOf = (id, gen, size) => {
  const b = Buffer.alloc(size);
  for (let k = 0; k < size; k++) b[k] = (id * 31 + gen * 7 + k) & 0xff;
  return b;
};
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
// Sizes cycle through the placements and their borders; every 11th is null.
const SIZES = [0, 1, 99, 100, 101, 500, 999, 1000, 1001, 3000];
const row = (id, gen, size = id % 11 === 10 ? null : SIZES[(id + gen) % SIZES.length]) => ({
  id: BigInt(id),
  value: id + gen * 0.25,
  payload: size === null ? null : { data: bytesOf(id, gen, size) },
});
const range = (a, b) => Array.from({ length: b - a }, (_, k) => a + k);

let fileNo = 0;
function ipcFile(schema, rows) {
  const file = path.join(work, `src-${fileNo++}.arrows`);
  fs.writeFileSync(file, A.tableToIPC(makeTable(schema, columnsOf(schema, rows)), "stream"));
  return file;
}

// The model: id -> {value, sha} (sha null for a null blob).
const model = new Map();
const put = (r) => model.set(Number(r.id), { value: r.value, sha: r.payload ? sha(r.payload.data) : null });

function snapshot(root) {
  const dump = JSON.parse(run("node", [path.join(peerHome, "dump.mjs"), path.join(root, "t.lance")], "dump.mjs"));
  return new Map(dump.snapshots.at(-1).rows.map((r) => [Number(r.id), r]));
}
function againstModel(rows) {
  const bad = [];
  if (rows.size !== model.size) bad.push(`${rows.size} rows, the model has ${model.size}`);
  for (const [id, want] of model) {
    const got = rows.get(id);
    if (!got) bad.push(`id ${id} missing`);
    else if (got.value !== want.value) bad.push(`id ${id} value ${got.value} vs ${want.value}`);
    else if ((got.payload?.bytes?.sha256 ?? null) !== want.sha) bad.push(`id ${id} bytes ${got.payload?.bytes?.sha256} vs ${want.sha}`);
  }
  return bad;
}
const LINEAGE = ["_rowid", "_row_created_at_version", "_row_last_updated_at_version"];
async function lineage(root) {
  const t = await (await lancedb.connect(root)).openTable("t");
  const rows = await t.query().select(["id", "payload", ...LINEAGE]).toArray();
  return rows
    .map((r) => {
      const j = r.toJSON();
      const d = j.payload ? { kind: j.payload.kind, size: String(j.payload.size) } : null;
      return JSON.stringify([String(j.id), d, ...LINEAGE.map((c) => String(j[c]))]);
    })
    .sort();
}

// [what, schema, rows, reference builder, lancet flags]
const steps = [
  ["partial source (id, value): matched rows keep their blobs, inserts get null",
   partial, range(5, 15).concat(range(40, 44)).map((i) => ({ id: BigInt(i), value: -i })),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), []],
  ["full source: new bytes of every placement for matched and inserted rows",
   full, range(12, 24).concat(range(44, 50)).map((i) => row(i, 1)),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedInsertAll(), []],
  ["conditional update target.value < source.value",
   full, range(0, 30).map((i) => ({ ...row(i, 2), value: i % 2 ? 1000 : -1000 })),
   (m) => m.whenMatchedUpdateAll({ where: "target.value < source.value" }), ["--matched-if", "target.value < source.value", "--when-not-matched", "skip"]],
  ["delete unmatched rows where id >= 30",
   full, range(25, 35).map((i) => row(i, 3)),
   (m) => m.whenMatchedUpdateAll().whenNotMatchedBySourceDelete({ where: "id >= 30" }),
   ["--when-not-matched", "skip", "--when-not-matched-by-source", "delete", "--delete-if", "id >= 30"]],
];

// What each step does to the model (the reference's semantics, written out).
function apply(stepNo, rows) {
  const ids = new Set(rows.map((r) => Number(r.id)));
  if (stepNo === 0) {
    for (const r of rows) {
      const old = model.get(Number(r.id));
      model.set(Number(r.id), { value: r.value, sha: old ? old.sha : null });
    }
  } else if (stepNo === 1) {
    rows.forEach(put);
  } else if (stepNo === 2) {
    for (const r of rows) if (model.has(Number(r.id)) && model.get(Number(r.id)).value < r.value) put(r);
  } else {
    for (const r of rows) if (model.has(Number(r.id))) put(r);
    for (const id of [...model.keys()]) if (!ids.has(id) && id >= 30) model.delete(id);
  }
}

fs.mkdirSync(work, { recursive: true });
try {
  const base = [range(0, 20).map((i) => row(i, 0)), range(20, 40).map((i) => row(i, 0))];
  base.flat().forEach(put);
  const roots = { RR: "rr", RL: "rl", LR: "lr", LL: "ll" };
  for (const k of Object.keys(roots)) roots[k] = path.join(work, roots[k]);
  const refRoot = path.join(work, "ref-created");
  const db = await lancedb.connect(refRoot);
  const t0 = await db.createTable("t", makeTable(full, columnsOf(full, base[0])), {
    mode: "create", storageOptions: { new_table_enable_stable_row_ids: "true", new_table_data_storage_version: "2.2" },
  });
  await t0.add(makeTable(full, columnsOf(full, base[1])));
  const lanRoot = path.join(work, "lancet-created");
  const lanDir = path.join(lanRoot, "t.lance");
  const blobFlag = ["--blob", "payload:inline=100,dedicated=1000,pack=2000"];
  run(lancet, ["import", ipcFile(full, base[0]), lanDir, "--enable-stable-row-ids", ...blobFlag], "lancet import");
  run(lancet, ["import", ipcFile(full, base[1]), lanDir, "--mode", "append"], "lancet append");
  for (const [k, from] of [["RR", refRoot], ["RL", refRoot], ["LR", lanRoot], ["LL", lanRoot]]) {
    fs.cpSync(from, roots[k], { recursive: true });
  }
  for (const k of ["RR", "LL"]) {
    const bad = againstModel(snapshot(roots[k]));
    report(bad.length === 0, `${k === "RR" ? "the reference's" : "Lancet's"} table holds the rows written`, bad.slice(0, 5).join("; "));
  }

  for (const [stepNo, [what, schema, rows, build, flags]] of steps.entries()) {
    apply(stepNo, rows);
    const counts = {};
    for (const k of ["RR", "LR"]) {
      const t = await (await lancedb.connect(roots[k])).openTable("t");
      const r = await build(t.mergeInsert("id")).execute(makeTable(schema, columnsOf(schema, rows)));
      counts[k] = [r.numInsertedRows, r.numUpdatedRows, r.numDeletedRows].join("/");
    }
    const file = ipcFile(schema, rows);
    for (const k of ["RL", "LL"]) {
      const out = run(lancet, ["merge", path.join(roots[k], "t.lance"), file, "--on", "id", ...flags], `lancet merge (${what})`);
      const m = out.match(/(\d+) inserted, (\d+) updated, (\d+) deleted/);
      counts[k] = m ? [m[1], m[2], m[3]].join("/") : out.trim();
    }
    report(new Set(Object.values(counts)).size === 1, `${what}: inserted/updated/deleted counts`, JSON.stringify(counts));
    for (const k of Object.keys(roots)) {
      const bad = againstModel(snapshot(roots[k]));
      report(bad.length === 0, `${what}: ${k} holds the model's values and blob bytes`, bad.slice(0, 5).join("; "));
    }
    const seen = {};
    for (const k of Object.keys(roots)) seen[k] = await lineage(roots[k]);
    for (const [a, b] of [["RL", "RR"], ["LL", "LR"]]) {
      const ok = JSON.stringify(seen[a]) === JSON.stringify(seen[b]);
      const diff = ok ? "" : `${seen[a].find((r, i) => r !== seen[b][i]) ?? "(row count)"} vs ${seen[b].find((r, i) => r !== seen[a][i])}`;
      report(ok, `${what}: ${a} reads as ${b} (row ids, lineage, blob kinds and sizes)`, diff);
    }
  }

  for (const k of Object.keys(roots)) {
    compareDumps(path.join(roots[k], "t.lance"), k, "Lancet and the reference read every version alike");
  }
} catch (e) {
  report(false, "run", e.stack || String(e));
}
finish();
