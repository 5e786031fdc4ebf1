#!/usr/bin/env node
// branch_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Branches and shallow clones against the reference, both ways:
//   A: lancet creates a table, a branch, writes on it (append, delete, update, merge, compact,
//      add-columns), a nested branch forked from the branch and a tag on a branch
//      version; the reference must list the branches, read every branch version as
//      lancet does (and a column lancet added on a branch), check out the tag, and see
//      main unchanged.
//   B: the reference writes branches the same way; lancet must read every version.
//   C: mixed histories: the reference writes on lancet's branch, lancet on the
//      reference's; both read the result the same.
//   D: shallow clones: the reference reads lancet's clone (and lancet's deep clone),
//      lancet reads the reference's; writes to a clone leave the source alone.
//   E: lancet cleanup on main, with everything old, leaves every branch readable by
//      the reference.
//   F: a btree index the reference built works on lancet's branch (after main is
//      overwritten and cleaned up) and on lancet's shallow and deep clones.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: branch_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { arrow: A, lancedb } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} branch ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
function run(args, what) {
  const r = spawnSync(lancet, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr || r.error}`);
  return r.stdout;
}

const COLS = ["id", "val"];
const norm = (v) => (v === null || v === undefined ? null : String(v));
const rowsText = (rows, cols) =>
  rows.map((r) => JSON.stringify(cols.map((c) => norm(r[c])))).sort();

function lancetRows(ds, { branch, version, tag } = {}, cols = COLS) {
  const args = ["scan", ds, "-c", cols.join(","), "-f", "json"];
  if (branch) args.push("--branch", branch);
  if (version) args.push("--version", String(version));
  if (tag) args.push("--tag", tag);
  const out = run(args, `lancet scan ${ds} ${branch ?? "main"} v${version ?? "latest"}`);
  return rowsText(out.split("\n").filter((l) => l).map((l) => JSON.parse(l)), cols);
}
async function peerRows(table, cols = COLS) {
  const t = await table.query().select(cols).toArrow();
  return rowsText(t.toArray().map((r) => r.toJSON()), cols);
}
function same(got, want, what) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  report(g === w, what, g === w ? "" : `lancet ${g.slice(0, 400)} vs reference ${w.slice(0, 400)}`);
}
function lancetVersions(ds, branch) {
  const out = run(["info", ds, "--branch", branch], "lancet info");
  return out.split("\n").filter((l) => /^\s+\d+\s+\d+ rows/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
}

const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([F("id", new A.Int64(), false), F("val", new A.Utf8())]);
const mk = (ids, tag) => lancedb.makeArrowTable(ids.map((i) => ({ id: i, val: `${tag}${i}` })), { schema });
const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
const STABLE = { new_table_enable_stable_row_ids: "true" };

const schemaJson = path.join(work, "schema.json");
fs.writeFileSync(schemaJson, JSON.stringify({
  fields: [{ name: "id", type: "int64", nullable: false }, { name: "val", type: "utf8" }], metadata: {} }));
let ndCount = 0;
function nd(ids, tag) {
  const p = path.join(work, `rows${ndCount++}.ndjson`);
  fs.writeFileSync(p, ids.map((i) => JSON.stringify({ id: i, val: `${tag}${i}` })).join("\n") + "\n");
  return p;
}

// ---- A: lancet writes branches, the reference reads them.
{
  fs.mkdirSync(path.join(work, "a"));
  const ds = path.join(work, "a", "t.lance");
  run(["import", "--schema", schemaJson, "--enable-stable-row-ids", "--max-rows-per-file", "4", nd(range(0, 10), "a"), ds],
      "import");
  run(["import", "--schema", schemaJson, "--mode", "append", nd(range(10, 13), "b"), ds], "append");
  run(["branch", "create", ds, "exp"], "branch create");
  run(["import", "--schema", schemaJson, "--mode", "append", "--branch", "exp", nd(range(100, 104), "x"), ds],
      "branch append");
  run(["delete", ds, "--branch", "exp", "--where", "id < 3"], "branch delete");
  run(["update", ds, "--branch", "exp", "--where", "id = 5", "--set", "val='five'"], "branch update");
  run(["compact", ds, "--branch", "exp", "--target-rows", "100"], "branch compact");
  run(["merge", ds, nd([4, 150], "m"), "--on", "id", "--schema", schemaJson, "--branch", "exp"], "branch merge");
  run(["tag", ds, "--branch", "exp", "create", "exp-tag"], "tag on branch");
  run(["branch", "create", ds, "exp/nested", "--branch", "exp", "--version", "4"], "nested branch");
  run(["import", "--schema", schemaJson, "--mode", "append", "--branch", "exp/nested", nd([500], "n"), ds],
      "nested append");
  const extraSchema = path.join(work, "extra.json");
  fs.writeFileSync(extraSchema, JSON.stringify({ fields: [{ name: "extra", type: "int32" }], metadata: {} }));
  const nestedRows = lancetRows(ds, { branch: "exp/nested" }).length;
  const extra = path.join(work, "extra.ndjson");
  fs.writeFileSync(extra, range(0, nestedRows).map((i) => JSON.stringify({ extra: i })).join("\n") + "\n");
  run(["add-columns", "--schema", extraSchema, ds, extra, "--branch", "exp/nested"], "nested add-columns");

  const db = await lancedb.connect(path.join(work, "a"));
  const t = await db.openTable("t");
  const branches = await (await t.branches()).list();
  report(JSON.stringify(Object.keys(branches).sort()) === JSON.stringify(["exp", "exp/nested"]),
         "A: the reference lists lancet's branches", JSON.stringify(Object.keys(branches)));
  report(branches["exp/nested"]?.parentBranch === "exp" && Number(branches["exp/nested"]?.parentVersion) === 4,
         "A: the nested branch's parent as the reference reads it", JSON.stringify(branches["exp/nested"]));
  for (const name of ["exp", "exp/nested"]) {
    for (const v of lancetVersions(ds, name)) {
      const b = await (await t.branches()).checkout(name, v);
      same(lancetRows(ds, { branch: name, version: v }), await peerRows(b), `A: ${name} v${v} read by the reference`);
    }
  }
  const nestedNow = await (await t.branches()).checkout("exp/nested");
  same(lancetRows(ds, { branch: "exp/nested" }, ["id", "extra"]), await peerRows(nestedNow, ["id", "extra"]),
       "A: a column lancet added on a branch, read by the reference");
  same(lancetRows(ds, {}), await peerRows(t), "A: main untouched by the branch writes");
  report((await t.countRows()) === 13, "A: main still has its 13 rows");
  await t.checkout("exp-tag");
  same(lancetRows(ds, { tag: "exp-tag" }), await peerRows(t), "A: the tag on a branch version, checked out by the reference");
  await t.checkoutLatest();

  // ---- C (1): the reference writes on lancet's branch; lancet reads it.
  const b = await (await t.branches()).checkout("exp");
  await b.add(mk([200, 201], "r"));
  await b.delete("id = 100");
  same(lancetRows(ds, { branch: "exp" }), await peerRows(b), "C: the reference's writes on lancet's branch, read by lancet");
  run(["import", "--schema", schemaJson, "--mode", "append", "--branch", "exp", nd([300], "l"), ds], "append after ref");
  const b2 = await (await t.branches()).checkout("exp");
  same(lancetRows(ds, { branch: "exp" }), await peerRows(b2), "C: lancet appends after the reference on one branch");

  // ---- E: cleanup on main must keep what the branches read.
  run(["cleanup", ds, "--older-than", "0s", "--delete-unverified"], "cleanup main");
  for (const name of ["exp", "exp/nested"]) {
    const bb = await (await t.branches()).checkout(name);
    same(lancetRows(ds, { branch: name }), await peerRows(bb), `E: ${name} after lancet cleans up main`);
  }
  run(["branch", "delete", ds, "exp/nested"], "branch delete");
  // Local stores keep empty directories; what counts is that no file is left.
  const filesUnder = (dir) => !fs.existsSync(dir) ? [] :
    fs.readdirSync(dir, { recursive: true }).filter((f) => fs.statSync(path.join(dir, f)).isFile());
  report(filesUnder(path.join(ds, "tree", "exp", "nested")).length === 0 &&
         filesUnder(path.join(ds, "tree", "exp", "_versions")).length > 0,
         "A: deleting the nested branch removes its files only");
  const left = await (await t.branches()).list();
  report(JSON.stringify(Object.keys(left)) === JSON.stringify(["exp"]), "A: the reference sees the deletion",
         JSON.stringify(Object.keys(left)));
}

// ---- B: the reference writes branches, lancet reads them.
{
  const db = await lancedb.connect(path.join(work, "b"));
  const t = await db.createTable("t", mk(range(0, 10), "a"), { storageOptions: STABLE });
  await t.add(mk(range(10, 14), "b"));
  const br = await t.branches();
  const b = await br.create("feat");
  await b.add(mk(range(100, 103), "x"));
  await b.delete("id < 2");
  await b.update({ where: "id = 5", values: { val: "five" } });
  await b.optimize();
  const ds = path.join(work, "b", "t.lance");
  const versions = lancetVersions(ds, "feat");
  report(versions.length >= 5 && versions[0] === 2, "B: lancet lists the branch's versions", versions.join(","));
  for (const v of versions) {
    const at = await (await t.branches()).checkout("feat", v);
    same(lancetRows(ds, { branch: "feat", version: v }), await peerRows(at), `B: feat v${v} read by lancet`);
  }
  const sub = await (await t.branches()).create("feat2", "feat");
  await sub.add(mk([900], "s"));
  same(lancetRows(ds, { branch: "feat2" }), await peerRows(sub), "B: a branch of a branch read by lancet");
  same(lancetRows(ds, {}), await peerRows(t), "B: main as lancet reads it");
  const listed = run(["branch", "list", ds], "branch list").trim().split("\n");
  report(listed.length === 2 && listed[0].startsWith("feat\tmain\t2") && listed[1].startsWith("feat2\tfeat\t"),
         "B: lancet lists the reference's branches", listed.join(" | "));
  // ---- C (2): lancet writes on the reference's branch; the reference reads it.
  run(["update", ds, "--branch", "feat", "--where", "id = 6", "--set", "val='six'"], "update on ref branch");
  run(["import", "--schema", schemaJson, "--mode", "append", "--branch", "feat", nd([700], "l"), ds], "append");
  const again = await (await t.branches()).checkout("feat");
  same(lancetRows(ds, { branch: "feat" }), await peerRows(again), "C: lancet's writes on the reference's branch");
  await again.add(mk([701], "r"));
  same(lancetRows(ds, { branch: "feat" }), await peerRows(again), "C: the reference appends after lancet");
  same(lancetRows(ds, {}), await peerRows(await db.openTable("t")), "C: main untouched");
}

// ---- D: shallow clones both ways.
{
  const src = path.join(work, "a", "t.lance");
  const clone = path.join(work, "d", "lclone.lance");
  fs.mkdirSync(path.join(work, "d"));
  run(["clone", src, clone, "--version", "2"], "lancet clone");
  report(!fs.existsSync(path.join(clone, "data")) || fs.readdirSync(path.join(clone, "data")).length === 0,
         "D: a shallow clone writes no data files");
  const db = await lancedb.connect(path.join(work, "d"));
  const c = await db.openTable("lclone");
  same(lancetRows(src, { version: 2 }), await peerRows(c), "D: the reference reads lancet's shallow clone");
  await c.add(mk([800], "c"));
  same(lancetRows(clone, {}), await peerRows(c), "D: lancet reads the reference's write to lancet's clone");
  same(lancetRows(src, {}), await peerRows(await (await lancedb.connect(path.join(work, "a"))).openTable("t")),
       "D: the source is untouched by writes to the clone");
  run(["clone", src, path.join(work, "d", "deep.lance"), "--version", "2", "--deep"], "lancet deep clone");
  same(lancetRows(src, { version: 2 }), await peerRows(await db.openTable("deep")), "D: the reference reads lancet's deep clone");
  const rc = await db.cloneTable("rclone", path.join(work, "b", "t.lance"), { sourceVersion: 2 });
  same(lancetRows(path.join(work, "d", "rclone.lance"), {}), await peerRows(rc), "D: lancet reads the reference's clone");
  run(["import", "--schema", schemaJson, "--mode", "append", nd([801], "l"), path.join(work, "d", "rclone.lance")],
      "append to ref clone");
  same(lancetRows(path.join(work, "d", "rclone.lance"), {}), await peerRows(await db.openTable("rclone")),
       "D: the reference reads lancet's write to its clone");
}

// ---- F: an index the reference built is carried by lancet's branch and clones (base
// ids on IndexMetadata, index directories copied by --deep, kept by cleanup of main).
{
  const db = await lancedb.connect(path.join(work, "f"));
  const t = await db.createTable("t", mk(range(0, 1000), "a"));
  await t.createIndex("id", { config: lancedb.Index.btree() });
  const ds = path.join(work, "f", "t.lance");
  run(["branch", "create", ds, "ix"], "branch of an indexed table");
  run(["clone", ds, path.join(work, "f", "shallow.lance")], "shallow clone of an indexed table");
  run(["clone", ds, path.join(work, "f", "deep.lance"), "--deep"], "deep clone of an indexed table");
  run(["import", "--schema", schemaJson, "--mode", "overwrite", nd([1], "o"), ds], "overwrite main");
  run(["cleanup", ds, "--older-than", "0s", "--delete-unverified"], "cleanup main");
  const probe = async (table, what) => {
    const idx = await table.listIndices();
    const rows = await table.query().where("id = 500").toArray();
    report(idx.length === 1 && idx[0].name === "id_idx" && rows.length === 1 && rows[0].val === "a500",
           `F: the reference uses the index through ${what}`, `${idx.length} indices, ${rows.length} rows`);
  };
  await probe(await (await t.branches()).checkout("ix"), "lancet's branch after main's cleanup");
  await probe(await db.openTable("shallow"), "lancet's shallow clone");
  await probe(await db.openTable("deep"), "lancet's deep clone");
}

process.exit(failures === 0 ? 0 : 1);
