#!/usr/bin/env node
// update_interop.mjs LANCET_BIN PEER_HOME WORK_DIR [CORPUS_DATA_DIR]
//
// Updates by both implementations on each other's datasets:
//   A: lancet creates a table with stable row ids (import + append), the reference
//      reads its lineage, lancet updates, the reference checks values, _rowid,
//      _row_created_at_version and _row_last_updated_at_version, then updates the
//      table itself; both dumps of every version must agree.
//   B: the reference creates a plain table, lancet and the reference update it in
//      turn; the reference sees the values the updates imply, both dumps agree.
//   C: the reference creates a table with stable row ids, lancet updates it, the
//      reference's lineage columns are as its own update would leave them.
//   D: (with the corpus) lancet updates the reference's blobs_custom table, moving
//      rows of every blob placement and storing new bytes for one; the reference
//      fetches the same bytes for the moved rows and the new ones.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";

import { openInterop } from "./harness.mjs";
import crypto from "node:crypto";

const { lancet, peerHome, work, rest: [corpus], A, lancedb, makeTable, columnsOf, report, run, compareDumps, finish } =
  await openInterop("update_interop");

const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([F("id", new A.Int64(), false), F("name", new A.Utf8()), F("value", new A.Float64())]);
const schemaJson = {
  fields: [
    { name: "id", type: "int64", nullable: false },
    { name: "name", type: "utf8" },
    { name: "value", type: "float64" },
  ],
  metadata: {},
};
const row = (i) => ({ id: i, name: i % 7 === 3 ? null : `name-${i}`, value: i % 11 === 0 ? null : i * 0.25 - 3 });
const rows = (from, to) => Array.from({ length: to - from }, (_, k) => row(from + k));
const jsRows = (from, to) => makeTable(schema, columnsOf(schema, rows(from, to).map((r) => ({ ...r, id: BigInt(r.id) }))));
function writeNdjson(file, from, to) {
  fs.writeFileSync(file, rows(from, to).map((r) => JSON.stringify(r)).join("\n") + "\n");
}

async function openTable(root, name) {
  const db = await lancedb.connect(root);
  return db.openTable(name);
}

const LINEAGE = ["_rowid", "_rowaddr", "_row_created_at_version", "_row_last_updated_at_version"];
// id -> row with the lineage columns, as the reference reads the latest version.
async function readAll(t, lineage) {
  const cols = ["id", "name", "value", ...(lineage ? LINEAGE : [])];
  const out = new Map();
  for (const r of await t.query().select(cols).toArray()) {
    const o = { name: r.name ?? null, value: r.value ?? null };
    if (lineage) {
      o.rowid = BigInt(r._rowid);
      o.addr = BigInt(r._rowaddr);
      o.created = Number(r._row_created_at_version);
      o.last = Number(r._row_last_updated_at_version);
    }
    if (out.has(Number(r.id))) throw new Error(`row ${r.id} twice`);
    out.set(Number(r.id), o);
  }
  return out;
}

// Compares every row of `got` with `want(id, before)`; reports the first differences.
function checkRows(what, got, ids, want) {
  const bad = [];
  if (got.size !== ids.length) bad.push(`${got.size} rows, expected ${ids.length}`);
  for (const id of ids) {
    const g = got.get(id);
    const w = want(id);
    if (!g) {
      bad.push(`id ${id} missing`);
      continue;
    }
    for (const [k, v] of Object.entries(w)) {
      const same = typeof v === "number" && typeof g[k] === "number" ? Math.abs(v - g[k]) < 1e-9 : g[k] === v;
      if (!same) bad.push(`id ${id} ${k}: ${g[k]} vs ${v}`);
    }
    if (bad.length > 5) break;
  }
  report(bad.length === 0, what, bad.join("; "));
}

const range = (a, b) => Array.from({ length: b - a }, (_, k) => a + k);
const upper = (s) => (s === null ? null : s.toUpperCase());

fs.mkdirSync(work, { recursive: true });
const schemaFile = path.join(work, "schema.json");
fs.writeFileSync(schemaFile, JSON.stringify(schemaJson));

try {
  // A: lancet-written, stable row ids.
  const rootA = path.join(work, "a");
  const dirA = path.join(rootA, "upd_a.lance");
  fs.mkdirSync(rootA, { recursive: true });
  writeNdjson(path.join(work, "a1.ndjson"), 0, 200);
  writeNdjson(path.join(work, "a2.ndjson"), 200, 250);
  run(lancet, ["import", path.join(work, "a1.ndjson"), dirA, "--schema", schemaFile, "--max-rows-per-file", "64",
               "--enable-stable-row-ids"], "lancet import A");
  run(lancet, ["import", path.join(work, "a2.ndjson"), dirA, "--mode", "append", "--schema", schemaFile], "lancet append A");
  let t = await openTable(rootA, "upd_a");
  const before = await readAll(t, true);
  const out = run(lancet, ["update", dirA, "--where", "id % 10 = 3", "--set", "value=value * 2", "--set", "name=upper(name)"],
                  "lancet update A");
  report(out.trim() === "updated 25 rows, version 3", "A: lancet update reports rows and version", out.trim());
  t = await openTable(rootA, "upd_a");
  report((await t.version()) === 3, "A: the reference opens lancet's update as version 3");
  const hitA = (id) => id % 10 === 3;
  const afterA = await readAll(t, true);
  checkRows("A: the reference reads lancet's update (values, _rowid, created_at, last_updated)", afterA, range(0, 250),
            (id) => {
              const r = row(id), b = before.get(id);
              return {
                name: hitA(id) ? upper(r.name) : r.name,
                value: hitA(id) && r.value !== null ? r.value * 2 : r.value,
                rowid: b.rowid,
                created: b.created,
                last: hitA(id) ? 3 : b.last,
              };
            });
  const moved = range(0, 250).filter(hitA).every((id) => afterA.get(id).addr !== before.get(id).addr);
  report(moved, "A: updated rows have new _rowaddr");
  await t.update({ where: "id % 10 = 7", valuesSql: { value: "value + 1000" } });
  t = await openTable(rootA, "upd_a");
  const afterA2 = await readAll(t, true);
  checkRows("A: the reference updates lancet's table on top", afterA2, range(0, 250), (id) => {
    const r = row(id), b = before.get(id);
    let value = hitA(id) && r.value !== null ? r.value * 2 : r.value;
    if (id % 10 === 7 && value !== null) value += 1000;
    return { rowid: b.rowid, created: b.created, last: hitA(id) ? 3 : id % 10 === 7 ? 4 : b.last, value };
  });
  compareDumps(dirA, "a", "both read every version the same");

  // B: reference-written, plain; updates from both sides in turn.
  const rootB = path.join(work, "b");
  fs.mkdirSync(rootB, { recursive: true });
  let db = await lancedb.connect(rootB);
  await db.createTable("upd_b", jsRows(0, 300), { mode: "create", storageOptions: { new_table_data_storage_version: "2.2" } });
  const dirB = path.join(rootB, "upd_b.lance");
  run(lancet, ["update", dirB, "--where", "id < 40 OR id >= 290", "--set", "name='lancet'", "--set", "value=NULL"],
      "lancet update B1");
  t = await openTable(rootB, "upd_b");
  await t.update({ where: "id >= 100 AND id < 150", valuesSql: { value: "-value" } });
  run(lancet, ["update", dirB, "--where", "id % 3 = 0", "--set", "value=value + 0.5"], "lancet update B3");
  t = await openTable(rootB, "upd_b");
  checkRows("B: the reference reads the values both sides' updates imply", await readAll(t, false), range(0, 300), (id) => {
    const r = row(id);
    let name = r.name, value = r.value;
    if (id < 40 || id >= 290) {
      name = "lancet";
      value = null;
    }
    if (id >= 100 && id < 150 && value !== null) value = -value;
    if (id % 3 === 0 && value !== null) value += 0.5;
    return { name, value };
  });
  compareDumps(dirB, "b", "both read every version the same");

  // C: reference-written with stable row ids, lancet updates.
  const rootC = path.join(work, "c");
  fs.mkdirSync(rootC, { recursive: true });
  db = await lancedb.connect(rootC);
  await db.createTable("upd_c", jsRows(0, 100), {
    mode: "create",
    storageOptions: { new_table_enable_stable_row_ids: "true", new_table_data_storage_version: "2.2" },
  });
  t = await openTable(rootC, "upd_c");
  await t.add(jsRows(100, 150));
  const beforeC = await readAll(t, true);
  const dirC = path.join(rootC, "upd_c.lance");
  run(lancet, ["update", dirC, "--where", "id % 4 = 1", "--set", "value=id"], "lancet update C");
  t = await openTable(rootC, "upd_c");
  checkRows("C: the reference's lineage after lancet's update of its table", await readAll(t, true), range(0, 150),
            (id) => {
              const b = beforeC.get(id);
              const hit = id % 4 === 1;
              return {
                rowid: b.rowid,
                created: id < 100 ? 1 : 2,
                last: hit ? 3 : b.last,
                value: hit ? id : row(id).value,
              };
            });
  compareDumps(dirC, "c", "both read every version the same");
  // D: blobs of the reference's table move with lancet's update.
  const corpusDir = corpus ? path.join(corpus, "blobs_custom.lance") : "";
  if (corpusDir && fs.existsSync(corpusDir)) {
    const dirD = path.join(work, "d", "blobs_custom.lance");
    fs.cpSync(corpusDir, dirD, { recursive: true });
    const dumpD = () => JSON.parse(run("node", [path.join(peerHome, "dump.mjs"), dirD], "dump.mjs of d"));
    const rowsOf = (d) => new Map(d.snapshots.at(-1).rows.map((r) => [Number(r.id), r]));
    const before = rowsOf(dumpD());
    const ids = [...before.keys()];
    run(lancet, ["update", dirD, "--where", "id % 2 = 0", "--set", "id=id + 1000"], "lancet update D1");
    run(lancet, ["update", dirD, "--where", `id = ${ids[1]}`, "--set", "doc='fresh bytes'"], "lancet update D2");
    const after = rowsOf(dumpD());
    const bad = [];
    if (after.size !== before.size) bad.push(`${after.size} rows, expected ${before.size}`);
    const sha = (s) => crypto.createHash("sha256").update(s).digest("hex");
    for (const id of ids) {
      const moved = id % 2 === 0;
      const a = after.get(moved ? id + 1000 : id);
      const b = before.get(id);
      if (!a) {
        bad.push(`id ${id} missing`);
        continue;
      }
      for (const col of ["img", "doc"]) {
        const want = id === ids[1] && col === "doc" ? sha("fresh bytes") : b[col]?.bytes?.sha256;
        if (a[col]?.bytes?.sha256 !== want) bad.push(`id ${id} ${col}: ${a[col]?.bytes?.sha256} vs ${want}`);
      }
      if (moved && BigInt(a._rowaddr) === BigInt(b._rowaddr)) bad.push(`id ${id} did not move`);
    }
    report(bad.length === 0, "D: the reference reads the blob bytes of rows lancet moved and set", bad.slice(0, 5).join("; "));
    compareDumps(dirD, "d", "both read every version the same");
  } else {
    process.stdout.write("SKIP update_interop D: no corpus (blobs_custom.lance)\n");
  }
} catch (e) {
  report(false, "run", e.stack || String(e));
}
finish();
