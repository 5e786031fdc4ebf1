#!/usr/bin/env node
// mixed_history.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Histories written by both implementations in turn, each read back by both:
//   A: lancet imports v1, the reference appends (v2) and deletes (v3), lancet
//      appends again (v4); `lancet dump --all-versions` must match dump.mjs.
//   B: the reference creates v1, lancet appends (v2) and deletes --where (v3), the
//      reference appends (v4); dump.mjs must match `lancet dump --all-versions`, and
//      the reference's row count and ids must be the ones the operations imply.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

import { openInterop } from "./harness.mjs";

const { lancet, peerHome, work, A, lancedb, makeTable, columnsOf, report, run, finish } =
  await openInterop("mixed_history");

// The rows of both histories: every type family the CLI's NDJSON path handles.
const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([
  F("id", new A.Int64(), false),
  F("name", new A.Utf8()),
  F("value", new A.Float64()),
  F("tags", new A.List(F("item", new A.Int32()))),
  F("point", new A.Struct([F("x", new A.Float32()), F("y", new A.Int16())])),
]);
const schemaJson = {
  fields: [
    { name: "id", type: "int64", nullable: false },
    { name: "name", type: "utf8" },
    { name: "value", type: "float64" },
    { name: "tags", type: "list", children: [{ name: "item", type: "int32" }] },
    { name: "point", type: "struct", children: [{ name: "x", type: "float32" }, { name: "y", type: "int16" }] },
  ],
  metadata: {},
};
function row(i) {
  return {
    id: i,
    name: i % 7 === 3 ? null : `name-${i}-\u00e9`,
    value: i % 11 === 0 ? null : i * 0.25 - 3,
    tags: i % 5 === 4 ? null : Array.from({ length: i % 4 }, (_, k) => i * 10 + k),
    point: i % 9 === 8 ? null : { x: i / 8, y: (i % 200) - 100 },
  };
}
const rows = (from, to) => Array.from({ length: to - from }, (_, k) => row(from + k));
const jsRows = (from, to) => makeTable(schema, columnsOf(schema, rows(from, to).map((r) => ({ ...r, id: BigInt(r.id) }))));

function writeNdjson(file, from, to) {
  fs.writeFileSync(file, rows(from, to).map((r) => JSON.stringify(r)).join("\n") + "\n");
}

async function openTable(dir, name) {
  const db = await lancedb.connect(dir);
  return db.openTable(name);
}

// check.mjs of two dumps; `expected` is the side whose reading is the reference point.
function compare(what, expected, actual) {
  const r = spawnSync("node", [path.join(peerHome, "check.mjs"), expected, actual, "--max-diffs", "10"], {
    encoding: "utf8",
  });
  const last = (r.stdout || "").trim().split("\n").pop();
  report(r.status === 0, what, r.status === 0 ? last : `${r.stdout}${r.stderr}`);
}

function dumpBoth(dir, tag) {
  const ours = path.join(work, `${tag}.lancet.json`);
  const ref = path.join(work, `${tag}.peer.json`);
  run(lancet, ["dump", dir, "--all-versions", "--out", ours], `lancet dump of ${tag}`);
  fs.writeFileSync(ref, run("node", [path.join(peerHome, "dump.mjs"), dir, "--all-versions"], `dump.mjs of ${tag}`));
  return { ours, ref };
}

fs.mkdirSync(work, { recursive: true });
const schemaFile = path.join(work, "schema.json");
fs.writeFileSync(schemaFile, JSON.stringify(schemaJson));

try {
  // A: lancet creates, the reference changes it, lancet appends on top.
  const rootA = path.join(work, "a");
  const dirA = path.join(rootA, "mixed_a.lance");
  fs.mkdirSync(rootA, { recursive: true });
  writeNdjson(path.join(work, "a1.ndjson"), 0, 300);
  run(lancet, ["import", path.join(work, "a1.ndjson"), dirA, "--schema", schemaFile, "--max-rows-per-file", "128"], "lancet import A");
  let t = await openTable(rootA, "mixed_a");
  await t.add(jsRows(300, 400));
  await t.delete("id % 4 = 1 OR (id >= 310 AND id < 320)");
  writeNdjson(path.join(work, "a4.ndjson"), 400, 450);
  run(lancet, ["import", path.join(work, "a4.ndjson"), dirA, "--mode", "append", "--schema", schemaFile], "lancet append A");
  t = await openTable(rootA, "mixed_a");
  const countA = await t.countRows();
  const wantA = rows(0, 450).filter((r) => !(r.id < 400 && (r.id % 4 === 1 || (r.id >= 310 && r.id < 320)))).length;
  report(countA === wantA, "A: reference row count after lancet's append", `${countA} vs ${wantA}`);
  const a = dumpBoth(dirA, "a");
  compare("A: lancet reads the reference's append/delete (all versions)", a.ref, a.ours);

  // B: the reference creates, lancet changes it, the reference appends on top.
  const rootB = path.join(work, "b");
  fs.mkdirSync(rootB, { recursive: true });
  const db = await lancedb.connect(rootB);
  await db.createTable("mixed_b", jsRows(0, 200), { mode: "create", storageOptions: { new_table_data_storage_version: "2.2" } });
  const dirB = path.join(rootB, "mixed_b.lance");
  writeNdjson(path.join(work, "b2.ndjson"), 200, 260);
  run(lancet, ["import", path.join(work, "b2.ndjson"), dirB, "--mode", "append", "--schema", schemaFile], "lancet append B");
  run(lancet, ["delete", dirB, "--where", "id < 30 OR (id >= 100 AND id < 130) OR id = 205 OR name IS NULL"], "lancet delete B");
  t = await openTable(rootB, "mixed_b");
  await t.add(jsRows(260, 280));
  t = await openTable(rootB, "mixed_b");
  const gone = (r) => r.id < 260 && (r.id < 30 || (r.id >= 100 && r.id < 130) || r.id === 205 || r.name === null);
  const want = rows(0, 280).filter((r) => !gone(r)).map((r) => r.id);
  const got = (await t.query().select(["id"]).toArray()).map((r) => Number(r.id)).sort((x, y) => x - y);
  report(JSON.stringify(got) === JSON.stringify(want), "B: reference sees exactly the rows lancet kept",
         `${got.length} rows vs ${want.length}`);
  const b = dumpBoth(dirB, "b");
  compare("B: the reference reads lancet's append/delete (all versions)", b.ours, b.ref);
} catch (e) {
  report(false, "run", e.stack || String(e));
}
finish();
