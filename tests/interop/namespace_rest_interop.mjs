#!/usr/bin/env node
// namespace_rest_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// The reference's REST namespace client (LanceDB 0.39 connectNamespace("rest")) against
// `lancet serve --root WORK/wh --port 0`: the 17-step checklist of the shared namespace
// notes §5. Each step checks what the client returns and, from the server's access log
// (method, raw path, status per request), which requests it made. Every step is bounded
// in time; the server is stopped with SIGTERM at the end. One PASS/FAIL line per check,
// then "N passed, N failed"; exits 0 only when all pass.
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: namespace_rest_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { arrow: A, lancedb } = loadPeer();

let passed = 0;
let failed = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} ns-rest ${what}${detail ? `: ${detail}` : ""}\n`);
  if (ok) passed++;
  else failed++;
}
const withTimeout = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms).unref())]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---- the server: a token file, a free port, its access log collected from stderr.
const wh = path.join(work, "wh");
const tokenFile = path.join(work, "token");
const TOKEN = "k-" + Math.random().toString(36).slice(2);
fs.writeFileSync(tokenFile, TOKEN + "\n", { mode: 0o600 });
const server = spawn(lancet, ["serve", "--root", wh, "--port", "0", "--token-file", tokenFile, "--threads", "4"], {
  stdio: ["ignore", "pipe", "pipe"],
});
const log = []; // {method, path, status}
let serverErr = "";
let stderrTail = "";
server.stderr.setEncoding("utf8");
server.stderr.on("data", (chunk) => {
  serverErr += chunk;
  stderrTail += chunk;
  let nl;
  while ((nl = stderrTail.indexOf("\n")) >= 0) {
    const line = stderrTail.slice(0, nl);
    stderrTail = stderrTail.slice(nl + 1);
    const m = /^lancet serve: (\S+) (\S+) (\d+)$/.exec(line);
    if (m) log.push({ method: m[1], path: m[2], status: Number(m[3]) });
  }
});
process.on("exit", () => { try { server.kill("SIGKILL"); } catch { /* already gone */ } });
let port;
try {
  port = await withTimeout(new Promise((resolve, reject) => {
    let out = "";
    server.stdout.setEncoding("utf8");
    server.stdout.on("data", (c) => {
      out += c;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (code) => reject(new Error(`lancet serve exited (${code}): ${serverErr}`)));
  }), 15000, "server start");
  report(true, "server started", `port ${port}`);
} catch (e) {
  report(false, "server started", e.message);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(1);
}
const uri = `http://127.0.0.1:${port}`;
const connect = (headers = { "x-api-key": TOKEN }) => lancedb.connectNamespace("rest", { uri, headers });

// The requests one step made: the log after it, once the server has written it.
async function requestsOf(fn) {
  await sleep(100); // lines of earlier requests, logged after their responses
  const mark = log.length;
  const value = await fn();
  await sleep(100);
  return { value, reqs: log.slice(mark).map((r) => `${r.method} ${r.path} ${r.status}`) };
}
async function step(name, fn, ms = 60000) {
  try {
    await withTimeout(fn(), ms, name);
  } catch (e) {
    report(false, name, e.stack || String(e));
  }
}
async function rejects(promise, pattern) {
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return pattern.test(String(e.message)) ? null : String(e.message);
  }
}
const lancetCount = (dir) => {
  const r = spawnSync(lancet, ["count", dir], { encoding: "utf8", timeout: 60000 });
  return r.status === 0 ? Number(r.stdout.trim()) : `exit ${r.status}: ${r.stderr}`;
};

const db = await connect();
let t1Location;

await step("1 tableNames on an empty root", async () => {
  const { value, reqs } = await requestsOf(() => db.tableNames());
  report(eq(value, []), "1 tableNames() is []", JSON.stringify(value));
  report(eq(reqs, ["GET /v1/namespace/%24/table/list 200"]), "1 one GET table/list at the root (%24), authorized", reqs.join(", "));
});

await step("2 createTable declares, the client writes", async () => {
  const { reqs } = await requestsOf(() => db.createTable("t1", [{ id: 1, name: "a" }, { id: 2, name: "b" }]));
  report(eq(reqs, ["POST /v1/table/t1/declare 201"]), "2 createTable sends one declare", reqs.join(", "));
  t1Location = path.join(wh, "t1.lance");
  const versions = fs.existsSync(path.join(t1Location, "_versions")) ? fs.readdirSync(path.join(t1Location, "_versions")) : [];
  report(versions.some((f) => f.endsWith(".manifest")), "2 the data landed at <root>/t1.lance", versions.join(" "));
  report(lancetCount(t1Location) === 2, "2 lancet count reads 2 rows there", String(lancetCount(t1Location)));
  const dump = spawnSync("node", [path.join(peerHome, "dump.mjs"), t1Location, "--no-history"], { encoding: "utf8", timeout: 60000 });
  let rows = -1;
  try { rows = JSON.parse(dump.stdout).snapshots?.[0]?.num_rows ?? JSON.parse(dump.stdout).num_rows ?? -1; } catch { /* below */ }
  report(dump.status === 0, "2 the peer's dump.mjs reads the table", dump.status === 0 ? `rows ${rows}` : dump.stderr);
});

await step("3 list after create", async () => {
  report(eq(await db.tableNames(), ["t1"]), "3 tableNames() is [t1]");
  const lt = await db.listTables();
  report(eq(lt.tables, ["t1"]), "3 listTables() is {tables:[t1]}", JSON.stringify(lt));
});

let t1;
await step("4 open, count, query", async () => {
  const { value, reqs } = await requestsOf(async () => {
    const t = await db.openTable("t1");
    const n = await t.countRows();
    const q = (await t.query().where("id > 1").toArray()).length;
    return { t, n, q };
  });
  t1 = value.t;
  report(value.n === 2 && value.q === 1, "4 countRows 2, where id > 1 gives 1", `${value.n}, ${value.q}`);
  report(eq(reqs, ["POST /v1/table/t1/describe 200"]), "4 one describe, reads go to storage", reqs.join(", "));
});

await step("5 add through the location", async () => {
  const { value, reqs } = await requestsOf(() => t1.add([{ id: 3, name: "c" }]));
  report(reqs.length === 0, "5 add makes no request", reqs.join(", "));
  report(value?.version === 2, "5 add gives version 2", JSON.stringify(value));
  const fresh = await connect();
  const n = await (await fresh.openTable("t1")).countRows();
  report(n === 3, "5 a fresh connection counts 3", String(n));
});

await step("6 createTable on an existing name", async () => {
  const { value, reqs } = await requestsOf(() => rejects(db.createTable("t1", [{ id: 9 }]), /already exists/));
  report(value === null, "6 rejects with 'already exists'", value ?? "");
  report(reqs[0] === "POST /v1/table/t1/declare 409", "6 declare answered 409", reqs.join(", "));
});

await step("7 missing table and namespace", async () => {
  const a = await rejects(db.openTable("nope"), /was not found/);
  report(a === null, "7 openTable(nope) rejects 'was not found'", a ?? "");
  const b = await rejects(db.tableNames(["nope"]), /Namespace not found/i);
  report(b === null, "7 tableNames([nope]) rejects 'Namespace not found'", b ?? "");
});

await step("8 namespaces", async () => {
  const c = await db.createNamespace(["ns1"], { properties: { owner: "me" } });
  report(eq(c.properties, { owner: "me" }), "8 createNamespace returns its properties", JSON.stringify(c));
  const l = await db.listNamespaces();
  report(eq(l.namespaces, ["ns1"]), "8 listNamespaces() is [ns1]", JSON.stringify(l));
  const d = await db.describeNamespace(["ns1"]);
  report(eq(d.properties, { owner: "me" }), "8 describeNamespace([ns1])", JSON.stringify(d));
  const { reqs } = await requestsOf(() => db.createTable("t2", [{ id: 1 }], ["ns1"]));
  report(eq(reqs, ["POST /v1/table/ns1%24t2/declare 201"]), "8 createTable in ns1 declares ns1%24t2", reqs.join(", "));
  report(eq(await db.tableNames(["ns1"]), ["t2"]), "8 tableNames([ns1]) is [t2]");
  const n = await (await db.openTable("t2", ["ns1"])).countRows();
  report(n === 1, "8 openTable(t2, [ns1]).countRows() is 1", String(n));
});

await step("9 namespace errors", async () => {
  let r = await rejects(db.createNamespace(["ns1"]), /Namespace already exists/i);
  report(r === null, "9 createNamespace twice: already exists", r ?? "");
  r = await rejects(db.dropNamespace(["ns1"]), /Namespace not empty/i);
  report(r === null, "9 dropNamespace of a non-empty one: not empty", r ?? "");
  try {
    await db.createNamespace(["x"], { mode: "exist_ok" });
    await db.createNamespace(["x"], { mode: "exist_ok" });
    report(true, "9 createNamespace exist_ok twice");
  } catch (e) { report(false, "9 createNamespace exist_ok twice", e.message); }
  try {
    await db.dropNamespace(["zz"], { mode: "skip" });
    report(true, "9 dropNamespace skip of a missing one resolves");
  } catch (e) { report(false, "9 dropNamespace skip of a missing one resolves", e.message); }
  r = await rejects(db.dropNamespace(["zz"]), /Namespace not found/i);
  report(r === null, "9 dropNamespace fail of a missing one: not found", r ?? "");
});

await step("10 nested namespaces and the root", async () => {
  const { reqs } = await requestsOf(() => db.createNamespace(["ns1", "sub"]));
  report(eq(reqs, ["POST /v1/namespace/ns1%24sub/create 201"]), "10 nested create is ns1%24sub", reqs.join(", "));
  const l = await db.listNamespaces(["ns1"]);
  report(eq(l.namespaces, ["sub"]), "10 listNamespaces([ns1]) is [sub]", JSON.stringify(l));
  const { value, reqs: r2 } = await requestsOf(() => db.describeNamespace([]));
  report(eq(r2, ["POST /v1/namespace/%24/describe 200"]), "10 describeNamespace([]) goes to %24", `${r2} ${JSON.stringify(value)}`);
  await db.createTable("t3", [{ id: 1 }, { id: 2 }], ["ns1", "sub"]);
  const n = await (await db.openTable("t3", ["ns1", "sub"])).countRows();
  report(n === 2, "10 a table two levels down", String(n));
});

await step("11 pagination", async () => {
  await db.createTable("a", [{ id: 1 }]);
  await db.createTable("b", [{ id: 1 }]);
  const one = await db.tableNames({ limit: 1 });
  report(one.length === 1, "11 tableNames({limit:1}) gives one name", JSON.stringify(one));
  const after = await db.tableNames({ startAfter: "a" });
  report(eq(after, ["b", "t1"]), "11 tableNames({startAfter:a}) gives the names after a", JSON.stringify(after));
  const p1 = await db.listTables({ limit: 1 });
  report(p1.tables.length === 1 && !!p1.pageToken, "11 listTables({limit:1}) gives one name and a token", JSON.stringify(p1));
  const p2 = await db.listTables({ pageToken: p1.pageToken });
  report(eq([...p1.tables, ...p2.tables], ["a", "b", "t1"]) && !p2.pageToken, "11 the token gives the rest", JSON.stringify(p2));
  const { reqs } = await requestsOf(() => db.tableNames({ startAfter: "a", limit: 5 }));
  report(reqs.length === 1 && reqs[0].startsWith("GET /v1/namespace/%24/table/list "), "11 one list request", reqs.join(", "));
});

await step("12 overwrite and exist_ok", async () => {
  const { value: n1, reqs } = await requestsOf(async () => (await db.createTable("a", [{ id: 7 }], { mode: "overwrite" })).countRows());
  report(n1 === 1, "12 overwrite leaves 1 row", String(n1));
  report(!reqs.some((r) => r.includes("/declare")), "12 overwrite sends no declare", reqs.join(", "));
  await (await db.openTable("a")).add([{ id: 8 }]);
  const n2 = await (await db.createTable("a", [{ id: 9 }], { mode: "exist_ok" })).countRows();
  report(n2 === 2, "12 exist_ok keeps the table", String(n2));
});

await step("13 drop", async () => {
  const { reqs } = await requestsOf(() => db.dropTable("t1"));
  report(eq(reqs, ["POST /v1/table/t1/drop 200"]), "13 dropTable sends one drop", reqs.join(", "));
  report(!fs.existsSync(t1Location), "13 the server removed the directory");
  report(!(await db.tableNames()).includes("t1"), "13 t1 no longer listed");
  try {
    const n = await (await db.createTable("t1", [{ id: 1 }, { id: 2 }])).countRows();
    report(n === 2, "13 t1 can be created again", String(n));
  } catch (e) { report(false, "13 t1 can be created again", e.message); }
  await db.dropTable("t1");
  const r = await rejects(db.dropTable("t1"), /was not found|not found/i);
  report(r === null, "13 dropping a missing table: not found", r ?? "");
  await db.createTable("t4", [{ id: 1 }], ["ns1"]);
  const { reqs: r2 } = await requestsOf(() => db.dropAllTables(["ns1"]));
  report(r2.length === 3 && r2[0].startsWith("GET /v1/namespace/ns1/table/list") && r2.slice(1).every((x) => x.includes("/drop 200")),
    "13 dropAllTables([ns1]) lists, then drops each", r2.join(", "));
  report(eq(await db.tableNames(["ns1"]), []), "13 ns1 has no tables left");
});

await step("14 rename", async () => {
  const { value, reqs } = await requestsOf(async () => {
    try { await db.renameTable("a", "a2"); return null; } catch (e) { return e.message; }
  });
  report(eq(reqs.slice(0, 1), ["POST /v1/table/a/rename 200"]) && value === null, "14 renameTable(a, a2)", `${reqs} ${value ?? ""}`);
  if (value === null) {
    const names = await db.tableNames();
    report(names.includes("a2") && !names.includes("a"), "14 listed under the new name", JSON.stringify(names));
    const n = await (await db.openTable("a2")).countRows();
    report(n === 2, "14 opened under the new name", String(n));
  }
});

await step("15 encodings", async () => {
  const { reqs } = await requestsOf(() => db.createNamespace(["a b"]));
  report(eq(reqs, ["POST /v1/namespace/a+b/create 201"]), "15 a space travels as '+'", reqs.join(", "));
  report((await db.listNamespaces()).namespaces.includes("a b"), "15 and is decoded to 'a b'");
  await db.createTable("t\u00fc", [{ id: 1 }], ["a b"]);
  report(eq(await db.tableNames(["a b"]), ["t\u00fc"]), "15 a UTF-8 table name in it");
  const { value, reqs: r2 } = await requestsOf(() => rejects(db.createTable("a$b", [{ id: 1 }]), /./));
  report(value === null && r2[0] === "POST /v1/table/a%24b/declare 400", "15 a name holding the delimiter is refused (400)", `${r2} ${value ?? ""}`);
  for (const bad of ["..", "x/y", "..\\..\\etc"]) {
    const r = await rejects(db.createTable(bad, [{ id: 1 }]), /./);
    report(r === null, `15 table name ${JSON.stringify(bad)} refused`, r ?? "");
    const r3 = await rejects(db.createNamespace([bad]), /./);
    report(r3 === null, `15 namespace name ${JSON.stringify(bad)} refused`, r3 ?? "");
  }
  const outside = fs.readdirSync(work).sort();
  report(eq(outside, ["token", "wh"]), "15 nothing written next to the root", JSON.stringify(outside));
});

await step("16 credentials", async () => {
  const noKey = await connect({});
  const { value: r, reqs } = await requestsOf(() => rejects(noKey.tableNames(), /./));
  report(r === null, "16 no key: rejected");
  report(eq(reqs, ["GET /v1/namespace/%24/table/list 401"]), "16 the server answered 401", reqs.join(", "));
  const wrongKey = await connect({ "x-api-key": TOKEN + "x" });
  const { value: wrong, reqs: r2 } = await requestsOf(() => rejects(wrongKey.tableNames(), /./));
  report(wrong === null && eq(r2, ["GET /v1/namespace/%24/table/list 401"]), "16 a wrong key: 401", r2.join(", "));
  try {
    const names = await (await connect({ authorization: `Bearer ${TOKEN}` })).tableNames();
    report(Array.isArray(names), "16 Authorization: Bearer works too");
  } catch (e) { report(false, "16 Authorization: Bearer works too", e.message); }
  report(!serverErr.includes(TOKEN), "16 the server log never shows the token");
});

await step("17 the reference reads the warehouse directly", async () => {
  const local = await lancedb.connect(wh);
  const names = await local.tableNames();
  // connect(dir) lists <name>.lance directories: the renamed table's moved to a2.lance.
  report(names.includes("b") && names.includes("a2") && !names.includes("a"), "17 connect(dir) lists the root tables, a2 renamed", JSON.stringify(names));
  const n = await (await local.openTable("b")).countRows();
  report(n === 1, "17 connect(dir) opens one", String(n));
  const dir = await lancedb.connectNamespace("dir", { root: wh });
  const ns = await dir.listNamespaces();
  report(ns.namespaces.includes("ns1"), "17 connectNamespace(dir) lists the namespaces", JSON.stringify(ns));
  const dirNames = await dir.tableNames();
  report(dirNames.includes("b"), "17 connectNamespace(dir) lists the root tables", JSON.stringify(dirNames));
  // lance 12's dir namespace cannot rename and finds root tables by <name>.lance, which is
  // where Lancet's rename moved the directory.
  report(dirNames.includes("a2") && !dirNames.includes("a"), "17 connectNamespace(dir) sees the renamed a2, not a", JSON.stringify(dirNames));
  const n2 = await (await dir.openTable("a2")).countRows();
  const n2local = await (await local.openTable("a2")).countRows();
  report(n2 > 0 && n2 === n2local, "17 both reference views open a2 with its rows", `${n2} ${n2local}`);
  const n3 = await (await dir.openTable("t3", ["ns1", "sub"])).countRows();
  report(n3 === 2, "17 connectNamespace(dir) opens a nested table", String(n3));
});

// ---- beyond the reference client: the data routes a thin client uses, with Arrow JS
// decoding the query's IPC stream and encoding the insert's.
await step("18 data routes with Arrow JS", async () => {
  const headers = { "x-api-key": TOKEN, "content-type": "application/json" };
  const post = (route, body, query = "delimiter=%24", extra = {}) =>
    fetch(`${uri}/v1/table/${route}?${query}`, { method: "POST", headers: { ...headers, ...extra }, body, signal: AbortSignal.timeout(30000) });
  let res = await post("b/count_rows", JSON.stringify({ id: ["b"] }));
  report(res.status === 200 && (await res.text()) === "1", "18 count_rows of b is 1");
  const ipc = A.tableToIPC(A.tableFromArrays({ id: Float64Array.from([10, 11, 12]) }), "stream");
  res = await post("b/insert", ipc, "delimiter=%24&mode=Append", { "content-type": "application/vnd.apache.arrow.stream" });
  const ins = await res.json();
  report(res.status === 200 && ins.num_inserted_rows === 3, "18 insert of an Arrow JS stream", JSON.stringify(ins));
  const viaClient = await (await db.openTable("b")).countRows();
  report(viaClient === 4, "18 the reference client counts the inserted rows", String(viaClient));
  res = await post("b/query", JSON.stringify({ id: ["b"], filter: "id >= 11", columns: ["id"], k: 10 }));
  report(res.headers.get("content-type") === "application/vnd.apache.arrow.stream", "18 query answers an Arrow IPC stream", res.headers.get("content-type"));
  const table = A.tableFromIPC(new Uint8Array(await res.arrayBuffer()));
  const ids = table.getChild("id").toArray();
  report(eq(Array.from(ids).sort(), [11, 12]), "18 Arrow JS decodes the query's rows", JSON.stringify(Array.from(ids)));
  res = await post("b/query", JSON.stringify({ filter: "nope > 1" }));
  report(res.status === 400 && (await res.json()).code === 13, "18 a bad filter is 400 code 13");
});

// ---- Lancet's own REST client (the CLI with --namespace http://...) next to the
// reference's: the same listing, counts through the locations the server hands out, and a
// table Lancet creates that the reference client then opens.
await step("19 lancet as the REST client", async () => {
  const run = (args, env = {}) =>
    spawnSync(lancet, ["--namespace", uri, ...args], { encoding: "utf8", timeout: 60000, env: { ...process.env, ...env } });
  const keyed = { LANCET_NAMESPACE_TOKEN: TOKEN };
  const denied = run(["ns", "tables"]);
  report(denied.status !== 0 && /error 16/.test(denied.stderr), "19 without the token the CLI is refused (code 16)", denied.stderr.trim());
  const listed = run(["ns", "tables"], keyed);
  const mine = listed.stdout.split("\n").filter(Boolean);
  const theirs = await db.tableNames();
  report(listed.status === 0 && eq(mine, theirs), "19 ns tables equals the reference's tableNames", `${JSON.stringify(mine)} vs ${JSON.stringify(theirs)}`);
  const counted = run(["count", "b"], keyed);
  const refCount = await (await db.openTable("b")).countRows();
  report(counted.status === 0 && Number(counted.stdout.trim()) === refCount, "19 count through the REST namespace", `${counted.stdout.trim()} vs ${refCount} ${counted.stderr}`);
  const src = path.join(work, "from_lancet.ndjson");
  const schema = path.join(work, "from_lancet.schema.json");
  fs.writeFileSync(src, [1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: i, s: `v${i}` })).join("\n") + "\n");
  fs.writeFileSync(schema, JSON.stringify({ fields: [{ name: "id", type: "int64" }, { name: "s", type: "utf8" }] }));
  const imported = run(["import", src, "from_lancet", "--schema", schema], keyed);
  report(imported.status === 0, "19 lancet import declares and writes a new table", imported.stderr.trim());
  const t = await db.openTable("from_lancet");
  const rows = await t.query().where("id > 2").toArray();
  report(eq(rows.map((r) => Number(r.id)).sort(), [3, 4, 5]), "19 the reference client opens and queries it", JSON.stringify(rows.map((r) => Number(r.id))));
});

// ---- stop the server: SIGTERM, then it must exit on its own.
const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })));
server.kill("SIGTERM");
try {
  const { code } = await withTimeout(exited, 10000, "server stop");
  report(code === 0 && /shutting down/.test(serverErr), "server stops on SIGTERM", `exit ${code}`);
} catch (e) {
  report(false, "server stops on SIGTERM", e.message);
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
