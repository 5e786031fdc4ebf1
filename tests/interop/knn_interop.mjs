#!/usr/bin/env node
// knn_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Exact nearest-neighbour search against the reference: on a table the reference
// wrote (two fragments, deletions, null vectors, float32/float64/uint8 columns), every
// query gives `lancet search` the rows and distances of the reference's
// vectorSearch(...).bypassVectorIndex(): l2, cosine, dot, hamming, prefilters,
// postfilters, offsets, several queries at once, and the default column choice.
// Prints one PASS/FAIL line per check and exits 0 only when all pass.
import path from "node:path";
import { spawnSync } from "node:child_process";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: knn_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { arrow: A, lancedb } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} knn ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
function lancetSearch(args) {
  const r = spawnSync(lancet, ["search", ...args, "--format", "json"], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`lancet search ${args.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

// ---- data: 6000 rows (5000 + 1000 appended), 32-d clustered float32, its float64
// copy, 16-byte codes; every 101st vector null, one all-zero vector; rows deleted.
const DIM = 32;
let seed = 12345;
const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
const centers = Array.from({ length: 12 }, () => Array.from({ length: DIM }, () => gauss() * 3));
const F = (name, type, nullable = true) => new A.Field(name, type, nullable);
const fsl = (n, t) => new A.FixedSizeList(n, F("item", t, true));
const schema = new A.Schema([F("id", new A.Int32()), F("cat", new A.Int32()), F("vec", fsl(DIM, new A.Float32())),
  F("vec64", fsl(DIM / 2, new A.Float64())), F("code", fsl(16, new A.Uint8()))]);
function rows(begin, n) {
  return Array.from({ length: n }, (_, i) => {
    const r = begin + i;
    const c = centers[r % centers.length];
    const v = c.map((x) => Math.fround(x + gauss()));
    return {
      id: r, cat: r % 7, vec: r % 101 === 7 ? null : r === 42 ? new Array(DIM).fill(0) : v,
      vec64: v.slice(0, DIM / 2), code: Array.from({ length: 16 }, () => Math.floor(rnd() * 256)),
    };
  });
}
const db = await lancedb.connect(work);
const t = await db.createTable("t", lancedb.makeArrowTable(rows(0, 5000), { schema }));
await t.add(lancedb.makeArrowTable(rows(5000, 1000), { schema }));
await t.delete("id % 37 = 3");
const uri = path.join(work, "t.lance");
const query = (k) => { const v = rows(90000 + k, 1)[0]; return { vec: v.vec, vec64: v.vec64, code: v.code }; };

// ---- one case: the reference's exact search against lancet's.
async function check(what, { column, q, distance, k = 10, where, postfilter = false, offset = 0 }) {
  let peer = t.vectorSearch(q).column(column).limit(k).bypassVectorIndex().withRowId().select(["id"]);
  if (distance) peer = peer.distanceType(distance);
  if (where) peer = peer.where(where);
  if (postfilter) peer = peer.postfilter();
  if (offset) peer = peer.offset(offset);
  const want = (await peer.toArray()).map((r) => ({ id: r.id, d: r._distance, rowid: String(r._rowid) }));
  const args = [uri, column, "--vector", JSON.stringify(q), "-k", String(k), "--columns", "id", "--row-ids"];
  if (distance) args.push("--distance", distance);
  if (where) args.push("--where", where);
  if (postfilter) args.push("--postfilter");
  if (offset) args.push("--offset", String(offset));
  const got = lancetSearch(args).map((r) => ({ id: r.id, d: r._distance, rowid: String(r._rowid) }));
  let ok = got.length === want.length;
  let detail = ok ? "" : `${got.length} rows, the reference ${want.length}`;
  for (let i = 0; ok && i < got.length; i++) {
    const tol = 1e-4 * Math.max(1, Math.abs(want[i].d));
    if (Math.abs(got[i].d - want[i].d) > tol) { ok = false; detail = `rank ${i}: distance ${got[i].d} vs ${want[i].d}`; }
    // Equal rows, or rows whose distances tie within float noise.
    else if (got[i].rowid !== want[i].rowid && Math.abs(got[i].d - want[i].d) > 1e-6 * Math.max(1, Math.abs(want[i].d))) {
      ok = false; detail = `rank ${i}: row ${got[i].rowid} vs ${want[i].rowid}`;
    }
  }
  const sameSet = new Set(got.map((r) => r.rowid));
  if (ok && want.some((r) => !sameSet.has(r.rowid))) { ok = false; detail = "different rows"; }
  report(ok, what, detail || `${got.length} rows`);
}

const cases = [];
for (const [i, d] of [["l2", undefined], ["l2", "l2"], ["cosine", "cosine"], ["dot", "dot"]].entries()) {
  for (let k = 0; k < 3; k++) cases.push([`vec ${d[0]} query ${k}`, { column: "vec", q: query(i * 3 + k).vec, distance: d[1] }]);
}
cases.push(["vec k=100", { column: "vec", q: query(20).vec, k: 100 }]);
cases.push(["vec prefilter cat = 3", { column: "vec", q: query(21).vec, where: "cat = 3" }]);
cases.push(["vec prefilter id > 4990 (rows of both fragments)", { column: "vec", q: query(22).vec, where: "id > 4990", k: 30 }]);
cases.push(["vec postfilter cat = 3", { column: "vec", q: query(21).vec, where: "cat = 3", postfilter: true }]);
cases.push(["vec offset 5", { column: "vec", q: query(23).vec, offset: 5 }]);
cases.push(["vec cosine with filter", { column: "vec", q: query(24).vec, distance: "cosine", where: "cat < 2", k: 15 }]);
cases.push(["vec64 l2", { column: "vec64", q: query(25).vec64 }]);
cases.push(["vec64 dot", { column: "vec64", q: query(26).vec64, distance: "dot" }]);
cases.push(["code hamming", { column: "code", q: query(27).code, distance: "hamming", k: 20 }]);
cases.push(["code default metric is hamming", { column: "code", q: query(28).code, k: 20 }]);
cases.push(["everything, k = 7000", { column: "vec", q: query(29).vec, k: 7000 }]);
for (const [what, c] of cases) {
  try { await check(what, c); } catch (e) { report(false, what, e.message); }
}

// Several queries at once: query_index groups each one's rows.
try {
  const qs = [query(30).vec, query(31).vec];
  const got = lancetSearch([uri, "vec", "--vector", JSON.stringify(qs), "-k", "5", "--columns", "id"]);
  let ok = got.length === 10;
  for (let i = 0; ok && i < 2; i++) {
    const want = (await t.vectorSearch(qs[i]).column("vec").limit(5).bypassVectorIndex().select(["id"]).toArray()).map((r) => r.id);
    const mine = got.filter((r) => r.query_index === i).map((r) => r.id);
    ok = JSON.stringify(mine) === JSON.stringify(want);
  }
  report(ok, "two queries in one search (query_index)");
} catch (e) { report(false, "two queries in one search", e.message); }

// No column named: the one as wide as the query (vec is 32 wide; vec64 and code are
// both 16, which both sides refuse as ambiguous).
try {
  const q = query(32).vec;
  const want = (await t.vectorSearch(q).limit(5).bypassVectorIndex().select(["id"]).toArray()).map((r) => r.id);
  const got = lancetSearch([uri, "--vector", JSON.stringify(q), "-k", "5", "--columns", "id"]).map((r) => r.id);
  report(JSON.stringify(got) === JSON.stringify(want), "default column by query width", `${got}`);
  const q16 = query(33).vec64;
  let peerRefused = false;
  try { await t.vectorSearch(q16).limit(5).toArray(); } catch { peerRefused = true; }
  const r = spawnSync(lancet, ["search", uri, "--vector", JSON.stringify(q16)], { encoding: "utf8" });
  report(peerRefused && r.status !== 0 && /several vector columns/.test(r.stderr), "two columns of the query's width: refused",
    r.stderr.trim());
} catch (e) { report(false, "default column by query width", e.message); }

// A query of the wrong width is refused by both, naming the dimensions.
{
  const r = spawnSync(lancet, ["search", uri, "vec", "--vector", "[1,2,3]"], { encoding: "utf8" });
  report(r.status !== 0 && /query dim\(3\) doesn't match the column vec vector dim\(32\)/.test(r.stderr),
    "wrong query width is a clear error", r.stderr.trim());
}

process.stdout.write(`${failures === 0 ? "all passed" : `${failures} failed`}\n`);
process.exit(failures === 0 ? 0 : 1);
