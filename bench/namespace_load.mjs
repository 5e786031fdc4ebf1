#!/usr/bin/env node
// namespace_load.mjs LANCET_BIN [CLIENTS] [REQUESTS]
//
// Load on `lancet serve`: CLIENTS (16) concurrent HTTP clients on 127.0.0.1, each sending
// REQUESTS (500) mixed requests — list tables, describe, count_rows, query (an Arrow IPC
// stream back), insert (an Arrow IPC stream in; one in ten) — against a namespace of 4
// tables. Prints requests/s and p50/p99 latency per kind and in all, the error count, and
// whether every inserted row is there at the end (no lost inserts). Exits 1 on any error
// or lost row. Needs apache-arrow (the peer's, via LANCE_PEER_DIR) for the insert bodies.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";

const [lancet, clientsArg, requestsArg] = process.argv.slice(2);
if (!lancet) {
  process.stderr.write("usage: namespace_load.mjs LANCET_BIN [CLIENTS] [REQUESTS]\n");
  process.exit(64);
}
const CLIENTS = Number(clientsArg || 16);
const REQUESTS = Number(requestsArg || 500);
const peer = process.env.LANCE_PEER_DIR || path.join(os.homedir(), ".cache/lance-peer");
const A = createRequire(path.join(peer, "package.json"))("apache-arrow");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "lancet-ns-load-"));
process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));
const root = path.join(work, "wh");
const TABLES = ["t0", "t1", "t2", "t3"];
// Each table starts with 1000 rows written by Lancet itself.
fs.mkdirSync(root);
const schemaFile = path.join(work, "schema.json");
fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: "id", type: "int64", nullable: true },
  { name: "v", type: "int64", nullable: true }] }));
for (const t of TABLES) {
  const rows = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: i, v: i % 97 })).join("\n") + "\n";
  const src = path.join(work, `${t}.ndjson`);
  fs.writeFileSync(src, rows);
  const r = spawnSync(lancet, ["import", src, path.join(root, `${t}.lance`), "--schema", schemaFile], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`lancet import failed: ${r.stderr}`);
}

const token = "load-" + Math.random().toString(36).slice(2);
fs.writeFileSync(path.join(work, "token"), token + "\n");
const server = spawn(lancet, ["serve", "--root", root, "--port", "0", "--quiet", "--threads", String(CLIENTS),
  "--token-file", path.join(work, "token")], { stdio: ["ignore", "pipe", "inherit"] });
process.on("exit", () => { try { server.kill("SIGKILL"); } catch { /* gone */ } });
const port = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.setEncoding("utf8");
  server.stdout.on("data", (c) => {
    out += c;
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  server.on("exit", (code) => reject(new Error(`lancet serve exited (${code})`)));
  setTimeout(() => reject(new Error("server start timed out")), 15000).unref();
});
const base = `http://127.0.0.1:${port}`;
const headers = { "x-api-key": token, "content-type": "application/json" };

let seed = 99;
const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
const inserted = Object.fromEntries(TABLES.map((t) => [t, 0]));
const lat = {};
let errors = 0;
const firstErrors = [];

async function one(kind, t) {
  const t0 = performance.now();
  let res;
  if (kind === "list") {
    res = await fetch(`${base}/v1/namespace/%24/table/list?delimiter=%24`, { headers });
  } else if (kind === "describe") {
    res = await fetch(`${base}/v1/table/${t}/describe?delimiter=%24`, { method: "POST", headers, body: JSON.stringify({ id: [t] }) });
  } else if (kind === "count") {
    res = await fetch(`${base}/v1/table/${t}/count_rows?delimiter=%24`, { method: "POST", headers, body: JSON.stringify({ id: [t] }) });
  } else if (kind === "query") {
    res = await fetch(`${base}/v1/table/${t}/query?delimiter=%24`, {
      method: "POST", headers, body: JSON.stringify({ id: [t], filter: `v = ${Math.floor(rnd() * 97)}`, columns: ["id"], k: 100 }),
    });
  } else {
    const n = 1 + Math.floor(rnd() * 20);
    const body = A.tableToIPC(A.tableFromArrays({
      id: BigInt64Array.from({ length: n }, (_, i) => BigInt(100000 + i)),
      v: BigInt64Array.from({ length: n }, () => 1000n),
    }), "stream");
    res = await fetch(`${base}/v1/table/${t}/insert?delimiter=%24&mode=Append`, {
      method: "POST", headers: { ...headers, "content-type": "application/vnd.apache.arrow.stream" }, body,
    });
    if (res.ok) inserted[t] += n;
  }
  const body = await res.arrayBuffer();
  if (kind === "query" && res.ok) A.tableFromIPC(new Uint8Array(body)); // must decode
  (lat[kind] ??= []).push(performance.now() - t0);
  if (!res.ok) {
    errors++;
    if (firstErrors.length < 5) firstErrors.push(`${kind} ${t}: ${res.status} ${Buffer.from(body).toString().slice(0, 200)}`);
  }
}

const kinds = () => {
  const r = rnd();
  return r < 0.2 ? "list" : r < 0.4 ? "describe" : r < 0.6 ? "count" : r < 0.9 ? "query" : "insert";
};
const start = performance.now();
await Promise.all(Array.from({ length: CLIENTS }, async () => {
  for (let i = 0; i < REQUESTS; i++) {
    const t = TABLES[Math.floor(rnd() * TABLES.length)];
    try {
      await one(kinds(), t);
    } catch (e) {
      errors++;
      if (firstErrors.length < 5) firstErrors.push(String(e));
    }
  }
}));
const seconds = (performance.now() - start) / 1000;

const q = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const all = Object.values(lat).flat();
console.log(`${CLIENTS} clients x ${REQUESTS} requests on 127.0.0.1: ${all.length} requests in ${seconds.toFixed(2)} s = ${(all.length / seconds).toFixed(0)} req/s`);
console.log(`${"kind".padEnd(10)} ${"count".padStart(7)} ${"p50_ms".padStart(8)} ${"p99_ms".padStart(8)}`);
for (const [k, v] of [...Object.entries(lat), ["all", all]]) {
  console.log(`${k.padEnd(10)} ${String(v.length).padStart(7)} ${q(v, 0.5).toFixed(2).padStart(8)} ${q(v, 0.99).toFixed(2).padStart(8)}`);
}
let lost = 0;
for (const t of TABLES) {
  const res = await fetch(`${base}/v1/table/${t}/count_rows?delimiter=%24`, { method: "POST", headers, body: JSON.stringify({ id: [t] }) });
  const n = Number(await res.text());
  if (n !== 1000 + inserted[t]) lost += 1000 + inserted[t] - n;
}
console.log(`errors: ${errors}; inserted rows: ${Object.values(inserted).reduce((a, b) => a + b, 0)}; lost: ${lost}`);
for (const e of firstErrors) console.log(`  ${e}`);
server.kill("SIGTERM");
process.exit(errors || lost ? 1 : 0);
