#!/usr/bin/env node
// lineage_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Row lineage and CDC against the reference, both ways:
//   A: the reference (stable row ids on) writes create, append, two updates, a full
//      and a partial-schema merge_insert, a computed column, a column cast, a rename,
//      a delete and optimize. At every version
//      `lancet scan` must give the _rowid, _rowaddr, _row_created_at_version and
//      _row_last_updated_at_version the reference's select() gives, and `lancet diff`
//      for every pair of versions must equal a brute-force diff of the reference's
//      snapshots by _rowid.
//   B: lancet writes create, append, delete, compaction, an added column and another
//      append; the reference must read the same lineage values as lancet at every
//      version, and the added column must count as an update of every row, as the
//      reference's own addColumns does in A.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: lineage_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { arrow: A, lancedb } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} lineage ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}

function run(args, what) {
  const r = spawnSync(lancet, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr || r.error}`);
  return r.stdout;
}

const META = ["_rowid", "_rowaddr", "_row_created_at_version", "_row_last_updated_at_version"];
// Values as text (64-bit integers arrive as BigInt from the reference and as strings
// from lancet's JSON), nulls kept.
const norm = (v) => (v === null || v === undefined ? null : String(v));
function normRow(row, columns) {
  const out = {};
  for (const c of columns) out[c] = norm(row[c]);
  return out;
}
const byRowId = (a, b) => (BigInt(a._rowid) < BigInt(b._rowid) ? -1 : BigInt(a._rowid) > BigInt(b._rowid) ? 1 : 0);

async function peerSnapshot(table, version, columns) {
  await table.checkout(version);
  const t = await table.query().select([...columns, ...META]).toArrow();
  const rows = t.toArray().map((r) => normRow(r.toJSON(), [...columns, ...META]));
  return rows.sort(byRowId);
}

function lancetSnapshot(ds, version, columns) {
  const out = run(["scan", ds, "--version", String(version), "-c", [...columns, ...META].join(","), "-f", "json"],
                  `lancet scan ${ds} v${version}`);
  return out.split("\n").filter((l) => l).map((l) => normRow(JSON.parse(l), [...columns, ...META])).sort(byRowId);
}

function diffText(rows) {
  return rows.map((r) => JSON.stringify(r)).sort();
}

// The changes between snapshots[from] and snapshots[to] by _rowid, as `lancet diff
// --old-values` prints them.
function bruteForceDiff(snaps, columns, from, to) {
  const index = (rows) => new Map(rows.map((r) => [r._rowid, r]));
  const a = index(snaps[from]);
  const b = index(snaps[to]);
  const firstWith = (id, has) => {
    let v = from + 1;
    while (index(snaps[v]).has(id) !== has) v++;
    return v;
  };
  const rec = (op, id, version, now, old) => {
    const r = { op, _rowid: id, version: String(version) };
    for (const c of columns) r[c] = now ? now[c] : null;
    for (const c of columns) r[`old_${c}`] = old ? old[c] : null;
    return r;
  };
  const out = [];
  for (const [id, row] of b) {
    const was = a.get(id);
    if (!was) {
      out.push(rec("insert", id, firstWith(id, true), row, null));
    } else if (columns.some((c) => was[c] !== row[c]) ||
               was._row_last_updated_at_version !== row._row_last_updated_at_version) {
      out.push(rec("update", id, row._row_last_updated_at_version, row, was));
    }
  }
  for (const [id, row] of a) {
    if (!b.has(id)) out.push(rec("delete", id, firstWith(id, false), null, row));
  }
  return out;
}

function lancetDiff(ds, from, to, columns) {
  const out = run(["diff", ds, String(from), String(to), "-f", "json", "--old-values", "-c", columns.join(",")],
                  `lancet diff ${ds} ${from} ${to}`);
  return out.split("\n").filter((l) => l).map((l) => {
    const r = JSON.parse(l);
    const o = { op: r.op, _rowid: norm(r._rowid), version: norm(r.version) };
    for (const c of columns) o[c] = norm(r[c]);
    for (const c of columns) o[`old_${c}`] = norm(r[`old_${c}`]);
    return o;
  });
}

function sameRows(got, want) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  return [g === w, g === w ? "" : `lancet ${g.slice(0, 600)} vs reference ${w.slice(0, 600)}`];
}

const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([F("id", new A.Int64(), false), F("val", new A.Utf8()), F("n", new A.Int32())]);
const rows = (ids, tag) => ids.map((i) => ({ id: i, val: `${tag}${i}`, n: i * 10 }));
const STABLE = { new_table_enable_stable_row_ids: "true" };

// ---- A: the reference writes, lancet reads.
{
  const db = await lancedb.connect(path.join(work, "a"));
  const t = await db.createTable("hist", lancedb.makeArrowTable(rows([0, 1, 2, 3, 4], "a"), { schema }),
                                 { mode: "create", storageOptions: STABLE });
  await t.add(lancedb.makeArrowTable(rows([5, 6, 7], "b"), { schema }));
  await t.update({ where: "id = 6", values: { val: "u3" } });
  await t.update({ where: "id = 1", valuesSql: { n: "n + 100" } });
  await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
    .execute(lancedb.makeArrowTable(rows([2, 6, 8], "m"), { schema }));
  const partial = new A.Schema([F("id", new A.Int64(), false), F("val", new A.Utf8())]);
  await t.mergeInsert("id").whenMatchedUpdateAll()
    .execute(lancedb.makeArrowTable([{ id: 3, val: "p3" }, { id: 4, val: "p4" }], { schema: partial }));
  // Column writes count as updates of every row; renames do not.
  await t.addColumns([{ name: "m", valueSql: "id * 2" }]);
  await t.alterColumns([{ path: "n", dataType: new A.Int64() }]);
  await t.alterColumns([{ path: "m", rename: "mm" }]);
  await t.delete("id = 0");
  await t.optimize();
  const latest = await t.version();
  const ds = path.join(work, "a", "hist.lance");
  const columns = ["id", "val", "n"];
  const snaps = [null];
  for (let v = 1; v <= latest; v++) {
    snaps.push(await peerSnapshot(t, v, columns));
    const [ok, why] = sameRows(lancetSnapshot(ds, v, columns), snaps[v]);
    report(ok, `A: reference history v${v} read by lancet (${snaps[v].length} rows)`, why);
  }
  // The history must really exercise lineage: moved rows and versions other than 1.
  report(snaps[latest].some((r) => r._row_created_at_version !== r._row_last_updated_at_version),
         "A: some row was updated after it was created");
  report(snaps[latest].every((r) => r._rowaddr !== snaps[1].find((o) => o._rowid === r._rowid)?._rowaddr),
         "A: compaction moved every row");
  let pairs = 0, bad = 0;
  for (let from = 1; from <= latest; from++) {
    for (let to = from; to <= latest; to++) {
      const [ok, why] = sameRows(diffText(lancetDiff(ds, from, to, columns)),
                                 diffText(bruteForceDiff(snaps, columns, from, to)));
      pairs++;
      if (!ok) {
        bad++;
        report(false, `A: lancet diff ${from} ${to}`, why);
      }
    }
  }
  report(bad === 0, `A: lancet diff equals the reference's snapshot diff for all ${pairs} version pairs`);
}

// ---- B: lancet writes, the reference reads.
{
  const ds = path.join(work, "b", "hist.lance");
  fs.mkdirSync(path.join(work, "b"), { recursive: true });
  const schemaJson = path.join(work, "b", "schema.json");
  fs.writeFileSync(schemaJson, JSON.stringify({
    fields: [{ name: "id", type: "int64", nullable: false }, { name: "val", type: "utf8" },
             { name: "n", type: "int32" }], metadata: {} }));
  const nd = (name, ids, tag) => {
    const p = path.join(work, "b", name);
    fs.writeFileSync(p, rows(ids, tag).map((r) => JSON.stringify(r)).join("\n") + "\n");
    return p;
  };
  run(["import", "--schema", schemaJson, "--enable-stable-row-ids", "--max-rows-per-file", "3",
       nd("v1.ndjson", [0, 1, 2, 3, 4, 5], "a"), ds], "lancet import");
  run(["import", "--schema", schemaJson, "--mode", "append", nd("v2.ndjson", [6, 7, 8], "b"), ds], "lancet append");
  run(["delete", ds, "--where", "id = 1 OR id = 7"], "lancet delete");
  run(["compact", ds, "--target-rows", "100"], "lancet compact");
  const extraSchema = path.join(work, "b", "extra.json");
  fs.writeFileSync(extraSchema, JSON.stringify({ fields: [{ name: "extra", type: "int32" }], metadata: {} }));
  const extra = path.join(work, "b", "extra.ndjson");
  fs.writeFileSync(extra, [0, 2, 3, 4, 5, 6, 8].map((i) => JSON.stringify({ extra: i + 1000 })).join("\n") + "\n");
  run(["add-columns", "--schema", extraSchema, ds, extra], "lancet add-columns");
  const fullSchema = path.join(work, "b", "full.json");
  const full = JSON.parse(fs.readFileSync(schemaJson, "utf8"));
  full.fields.push({ name: "extra", type: "int32" });
  fs.writeFileSync(fullSchema, JSON.stringify(full));
  const last = path.join(work, "b", "v6.ndjson");
  fs.writeFileSync(last, JSON.stringify({ id: 9, val: "c9", n: 90, extra: 1009 }) + "\n");
  run(["import", "--schema", fullSchema, "--mode", "append", last, ds], "lancet append after add-columns");
  const db = await lancedb.connect(path.join(work, "b"));
  const t = await db.openTable("hist");
  const latest = await t.version();
  report(latest >= 6, `B: the reference sees ${latest} versions`);
  for (let v = 1; v <= latest; v++) {
    const mine = lancetSnapshot(ds, v, ["id"]);
    const [ok, why] = sameRows(await peerSnapshot(t, v, ["id"]), mine);
    report(ok, `B: lancet history v${v} read by the reference (${mine.length} rows)`, why);
    if (v === 5) {
      report(mine.every((r) => r._row_last_updated_at_version === "5"), "B: add-columns updated every row");
    }
    if (v === latest) {
      const created = [...new Set(mine.map((r) => r._row_created_at_version))].sort().join(",");
      report(created === `1,2,${latest}`, `B: rows keep the versions that wrote them (${created})`);
    }
  }
}

process.exit(failures === 0 ? 0 : 1);
