#!/usr/bin/env node
// namespace_dir_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// The directory namespace both ways: `lancet ns ...` creates namespaces and tables and
// the reference's connectNamespace("dir", {root}) (and lancedb.connect(root)) lists,
// describes, opens and reads them; the reference creates them and `lancet ns ...` and
// `lancet --namespace ROOT count ID` list, describe and read them.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: namespace_dir_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { lancedb } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} namespace-dir ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
async function check(what, fn) {
  try {
    const [ok, detail] = await fn();
    report(ok, what, ok ? "" : detail);
  } catch (e) {
    report(false, what, String(e.message || e).split("\n")[0]);
  }
}
function run(args) {
  const r = spawnSync(lancet, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`lancet ${args.join(" ")} failed (exit ${r.status}): ${r.stderr.trim()}`);
  return r.stdout;
}
const lines = (text) => text.split("\n").filter(Boolean);
// Objects compare with their keys sorted: the reference returns properties in hash order.
const canon = (v) =>
  Array.isArray(v) ? v.map(canon)
    : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
const same = (a, b) => [JSON.stringify(canon(a)) === JSON.stringify(canon(b)), `got ${JSON.stringify(a)}, want ${JSON.stringify(b)}`];

// Rows through NDJSON and `lancet import` into a location the namespace declared.
const schemaFile = path.join(work, "schema.json");
fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: "id", type: "int64", nullable: true },
  { name: "name", type: "utf8", nullable: true }] }));
function lancetTable(root, id, n) {
  const out = run(["--namespace", root, "ns", "declare", id]);
  const location = out.match(/^location=(.*)$/m)[1];
  const rows = path.join(work, `${id}.ndjson`);
  fs.writeFileSync(rows, Array.from({ length: n }, (_, i) => JSON.stringify({ id: i, name: `r${i}` })).join("\n") + "\n");
  run(["import", rows, location, "--schema", schemaFile]);
  return location;
}

// ---- Lancet writes, the reference reads.
const a = path.join(work, "lancet_root");
run(["--namespace", a, "ns", "create", "ns1", "--property", "owner=me", "--property", "k=v"]);
run(["--namespace", a, "ns", "create", "ns1.ns2"]);
const t1 = lancetTable(a, "t1", 3);
lancetTable(a, "ns1.t2", 5);
lancetTable(a, "ns1.ns2.t3", 7);
await check("lancet root table is <root>/t1.lance with .lance-reserved", async () =>
  [t1 === path.join(a, "t1.lance") && fs.readFileSync(path.join(t1, ".lance-reserved"), "utf8") === "reserved", t1]);

const db = await lancedb.connectNamespace("dir", { root: a });
await check("reference lists lancet's root tables", async () => same(await db.tableNames(), ["t1"]));
await check("reference lists lancet's namespaces", async () => same((await db.listNamespaces()).namespaces, ["ns1"]));
await check("reference lists nested namespaces", async () =>
  same((await db.listNamespaces(["ns1"])).namespaces, ["ns2"]));
await check("reference describes namespace properties", async () =>
  same((await db.describeNamespace(["ns1"])).properties, { k: "v", owner: "me" }));
await check("reference lists nested tables", async () => same(await db.tableNames(["ns1"]), ["t2"]));
await check("reference counts a root table", async () => same(await (await db.openTable("t1")).countRows(), 3));
await check("reference counts ns1.t2", async () => same(await (await db.openTable("t2", ["ns1"])).countRows(), 5));
await check("reference reads ns1.ns2.t3", async () => {
  const rows = await (await db.openTable("t3", ["ns1", "ns2"])).query().where("id >= 5").toArray();
  return same(rows.map((r) => [Number(r.id), r.name]), [[5, "r5"], [6, "r6"]]);
});
await check("lancedb.connect(root) sees the root table", async () =>
  same(await (await lancedb.connect(a)).tableNames(), ["t1"]));
await check("reference drops a lancet table and its directory", async () => {
  const t2dir = run(["--namespace", a, "ns", "describe", "ns1.t2"]).match(/^location=(.*)$/m)[1];
  await db.dropTable("t2", ["ns1"]);
  return [!fs.existsSync(t2dir) && lines(run(["--namespace", a, "ns", "tables", "ns1"])).length === 0, t2dir];
});
await check("reference adds a table to lancet's manifest; lancet lists it", async () => {
  await db.createTable("r1", [{ id: 1 }, { id: 2 }], ["ns1"]);
  return same(lines(run(["--namespace", a, "ns", "tables", "ns1"])), ["r1"]);
});

// ---- The reference writes, Lancet reads.
const b = path.join(work, "peer_root");
const pdb = await lancedb.connectNamespace("dir", { root: b });
await pdb.createTable("p1", [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
await pdb.createNamespace(["rn"], { properties: { team: "x" } });
await pdb.createNamespace(["rn", "deep"]);
await pdb.createTable("p2", [{ id: 1 }, { id: 2 }], ["rn"]);
await check("lancet lists the reference's root tables", async () =>
  same(lines(run(["--namespace", b, "ns", "tables"])), ["p1"]));
await check("lancet lists the reference's namespaces", async () =>
  same(lines(run(["--namespace", b, "ns", "list"])), ["rn"]));
await check("lancet lists nested namespaces", async () =>
  same(lines(run(["--namespace", b, "ns", "list", "rn"])), ["deep"]));
await check("lancet describes the reference's namespace", async () =>
  same(lines(run(["--namespace", b, "ns", "describe", "rn"])), ["team=x"]));
await check("lancet lists the reference's nested tables", async () =>
  same(lines(run(["--namespace", b, "ns", "tables", "rn"])), ["p2"]));
await check("lancet count --namespace reads p1", async () => same(run(["--namespace", b, "count", "p1"]).trim(), "4"));
await check("lancet count --namespace reads rn.p2", async () =>
  same(run(["--namespace", b, "count", "rn.p2"]).trim(), "2"));

// A plain lancedb.connect(dir) table: no manifest at all.
const c = path.join(work, "plain_root");
await (await lancedb.connect(c)).createTable("plain", [{ id: 1 }, { id: 2 }]);
await check("lancet lists a plain connect() table", async () =>
  same(lines(run(["--namespace", c, "ns", "tables"])), ["plain"]));
await check("lancet count --namespace reads it", async () => same(run(["--namespace", c, "count", "plain"]).trim(), "2"));
await check("lancet refuses a traversal id", async () => {
  const r = spawnSync(lancet, ["--namespace", c, "count", "..plain"], { encoding: "utf8" });
  return [r.status !== 0 && /invalid name/.test(r.stderr), `exit ${r.status}: ${r.stderr.trim()}`];
});

process.stdout.write(`${failures === 0 ? "PASS" : "FAIL"} namespace-dir: ${failures} failed\n`);
process.exit(failures === 0 ? 0 : 1);
