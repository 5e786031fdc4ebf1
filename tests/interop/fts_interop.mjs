#!/usr/bin/env node
// fts_interop.mjs LANCET_BIN PEER_HOME WORK_DIR
//
// Full-text search both ways against the reference, over generated English-like text
// (FTS_ROWS documents, default 100000): a table indexed by the reference and the same
// table indexed by `lancet index create --type fts`. For every query, `lancet search
// --text` on either table and the reference on Lancet's index must return the rows and
// BM25 scores the reference returns on its own index (scores within 1e-5 relative, rows
// equal up to ties); the reference's plan must show MatchQuery on Lancet's index. Then
// the same after deletions, with filters, phrases (indexes with positions), fuzzy and
// boolean queries, seven partitions, an appended fragment no index covers, optimize,
// Lancet's flat scan of a table without index, and hybrid (RRF) search. Prints PASS/FAIL lines; exits 0 only if all pass.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { makeTextCorpus } from "./text_corpus.mjs";

const [lancet, peerHome, work] = process.argv.slice(2);
if (!lancet || !peerHome || !work) {
  process.stderr.write("usage: fts_interop.mjs LANCET_BIN PEER_HOME WORK_DIR\n");
  process.exit(64);
}
const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
const { lancedb, arrow: A } = loadPeer();

let failures = 0;
function report(ok, what, detail = "") {
  process.stdout.write(`${ok ? "PASS" : "FAIL"} fts ${what}${detail ? `: ${detail}` : ""}\n`);
  if (!ok) failures++;
}
function run(args) {
  const r = spawnSync(lancet, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`lancet ${args.join(" ")} failed (exit ${r.status}): ${r.stderr}`);
  return r.stdout;
}

const N = Number(process.env.FTS_ROWS || 100000);
const { docs, vocab } = makeTextCorpus(N);
const rows = (begin, texts) => texts.map((text, i) => ({ id: begin + i, cat: (begin + i) % 5, text }));
const db = await lancedb.connect(work);

// Reference-indexed tables (default params; with positions) and Lancet-indexed twins.
const tables = {};
for (const name of ["ref", "refpos", "ours", "ourspos", "oursparts", "plain"]) {
  tables[name] = await db.createTable(name, rows(0, docs));
}
let t0 = Date.now();
await tables.ref.createIndex("text", { config: lancedb.Index.fts() });
const refBuild = Date.now() - t0;
await tables.refpos.createIndex("text", { config: lancedb.Index.fts({ withPosition: true }) });
t0 = Date.now();
run(["index", "create", path.join(work, "ours.lance"), "text", "--type", "fts"]);
const ourBuild = Date.now() - t0;
run(["index", "create", path.join(work, "ourspos.lance"), "text", "--type", "fts", "--param", "with_position=true"]);
// A build over budget writes several partitions; the statistics stay index-wide.
run(["index", "create", path.join(work, "oursparts.lance"), "text", "--type", "fts", "--memory-budget", "2"]);
process.stdout.write(`INFO fts build of ${N} docs: reference ${refBuild} ms, lancet (CLI) ${ourBuild} ms\n`);
for (const name of ["ours", "ourspos", "oursparts"]) await tables[name].checkoutLatest();
const partFiles = fs.readdirSync(path.join(work, "oursparts.lance", "_indices", fs.readdirSync(path.join(work, "oursparts.lance", "_indices"))[0]));
const parts = partFiles.filter((f) => /^part_\d+_docs\.lance$/.test(f)).length;
report(parts > 1, "a small memory budget gives several partitions", `${parts}`);

const v = (i) => vocab[i].toLowerCase();
const queries = [
  { q: v(4) }, { q: v(0) }, { q: v(50) }, { q: v(700) }, { q: v(5000) }, { q: `${v(4)} ${v(90)}` },
  { q: `${v(10)} ${v(11)} ${v(12)}` }, { q: `the ${v(200)}` }, { q: "RUNNING connections happily" },
  { q: "café naive resume" }, { q: "Ærø über" }, { q: "zzzz-not-a-word", none: true }, { q: "the of and", none: true },
  { q: `${v(20)} ${v(20)} ${v(21)}` }, { q: `${v(5)}, ${v(6)}!` }, { q: `${v(1)} ${v(400)}`, k: 50 },
  { q: `${v(8)} ${v(9)}`, op: "AND" }, { q: `${v(30)} ${v(31)} ${v(32)}`, op: "AND" },
  { q: v(2), where: "cat = 3" }, { q: `${v(4)} ${v(77)}`, where: "id % 3 = 0" },
];
// Typos the fuzzy match must undo, and boolean combinations.
const typo = (w) => w.slice(0, 1) + w.slice(2);
const fuzzy = [{ q: typo(v(4)), fuzz: 1 }, { q: `${typo(v(60))} ${v(5)}`, fuzz: 2 }, { q: `${v(70)}x`, fuzz: 1 }];
const booleans = [
  { bool: [["MUST", v(4)], ["SHOULD", v(90)]] },
  { bool: [["SHOULD", v(4)], ["SHOULD", v(5)], ["MUST_NOT", v(7)]] },
  { bool: [["MUST", `${v(10)} ${v(11)}`], ["MUST_NOT", v(0)]], k: 30 },
];
const phrases = [
  { q: `${v(4)} ${v(7)}`, phrase: true }, { q: `"the ${v(16)}"`, phrase: true },
  { q: `${v(0)} of ${v(1)}`, phrase: true, slop: 1 },
];

async function peerSearch(table, c) {
  let query;
  const occur = { MUST: lancedb.Occur.Must, SHOULD: lancedb.Occur.Should, MUST_NOT: lancedb.Occur.MustNot };
  if (c.bool) {
    query = table.query().fullTextSearch(new lancedb.BooleanQuery(c.bool.map(([o, t]) => [occur[o], new lancedb.MatchQuery(t, "text")])));
  } else if (c.fuzz) {
    query = table.query().fullTextSearch(new lancedb.MatchQuery(c.q, "text", { fuzziness: c.fuzz }));
  } else if (c.phrase) {
    const text = c.q.replace(/^"|"$/g, "");
    query = table.query().fullTextSearch(new lancedb.PhraseQuery(text, "text", { slop: c.slop ?? 0 }));
  } else if (c.op) {
    query = table.query().fullTextSearch(new lancedb.MatchQuery(c.q, "text", { operator: c.op === "AND" ? lancedb.Operator.And : lancedb.Operator.Or }));
  } else {
    query = table.search(c.q, "fts");
  }
  query = query.limit(c.k ?? 10).select(["id"]);
  if (c.where) query = query.where(c.where);
  return (await query.toArray()).map((r) => ({ id: r.id, s: r._score }));
}
function lancetSearch(name, c) {
  const args = ["search", path.join(work, `${name}.lance`), "-k", String(c.k ?? 10), "--columns", "id", "--format", "json"];
  if (c.q) args.push("--text", c.q);
  for (const [o, t] of c.bool ?? []) args.push({ MUST: "--must", SHOULD: "--should", MUST_NOT: "--must-not" }[o], t);
  if (c.fuzz) args.push("--fuzziness", String(c.fuzz));
  if (c.op === "AND") args.push("--all-terms");
  if (c.phrase) args.push("--phrase");
  if (c.slop) args.push("--slop", String(c.slop));
  if (c.where) args.push("--where", c.where);
  return run(args).split("\n").filter(Boolean).map((l) => JSON.parse(l)).map((r) => ({ id: r.id, s: r._score }));
}

// Rows equal up to ties: the same scores rank by rank, and the same rows wherever the
// score is not tied with the last one returned.
function compare(got, want) {
  if (got.length !== want.length) return `${got.length} rows, the reference ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    if (Math.abs(got[i].s - want[i].s) > 1e-5 * Math.abs(want[i].s) + 1e-7) {
      return `rank ${i}: score ${got[i].s} vs ${want[i].s}`;
    }
  }
  if (!want.length) return "";
  const last = want[want.length - 1].s;
  const firm = (list) => list.filter((r) => Math.abs(r.s - last) > 1e-5 * Math.abs(last)).map((r) => r.id).sort((a, b) => a - b);
  const a = firm(got).join(",");
  const b = firm(want).join(",");
  if (a !== b) return `rows differ above the last score: [${a}] vs [${b}]`;
  const wantScore = new Map(want.map((r) => [r.id, r.s]));
  for (const r of got) {
    if (wantScore.has(r.id) && Math.abs(wantScore.get(r.id) - r.s) > 1e-5 * Math.abs(r.s) + 1e-7) {
      return `row ${r.id}: score ${r.s} vs ${wantScore.get(r.id)}`;
    }
  }
  return "";
}

async function checkAll(label, cases, refName, ourName) {
  for (const c of cases) {
    const what = `${label} ${JSON.stringify(c)}`;
    try {
      const want = await peerSearch(tables[refName], c);
      if (!c.none && !want.length) report(false, `the reference finds rows (else the case proves nothing): ${what}`);
      const d1 = compare(lancetSearch(refName, c), want);
      report(!d1, `lancet on the reference's index: ${what}`, d1);
      const d2 = compare(lancetSearch(ourName, c), want);
      report(!d2, `lancet on its own index: ${what}`, d2);
      const d3 = compare(await peerSearch(tables[ourName], c), want);
      report(!d3, `the reference on lancet's index: ${what}`, d3);
    } catch (e) {
      report(false, what, e.message.split("\n")[0]);
    }
  }
}

await checkAll("match", queries, "ref", "ours");
// Without any index (the reference refuses), Lancet's flat scan is the ground truth: the
// reference's scores on its index.
for (const c of queries.filter((x) => !x.where).slice(0, 10)) {
  try {
    const d = compare(lancetSearch("plain", c), await peerSearch(tables.ref, c));
    report(!d, `lancet's flat scan (no index) equals the reference's index: ${JSON.stringify(c)}`, d);
  } catch (e) {
    report(false, `flat ${JSON.stringify(c)}`, e.message.split("\n")[0]);
  }
}
await checkAll("fuzzy", fuzzy, "ref", "ours");
await checkAll("boolean", booleans, "ref", "ours");
await checkAll("phrase", phrases, "refpos", "ourspos");
await checkAll("several partitions", queries, "ref", "oursparts");
const plan = await tables.ours.search(v(4), "fts").limit(5).explainPlan(true);
report(/MatchQuery: column=text/.test(plan) && !/FlatMatchQuery/.test(plan), "the reference plans MatchQuery on lancet's index",
  plan.split("\n").find((l) => /Match/.test(l)) ?? plan);

// Deleted rows never come back.
for (const name of ["ref", "ours"]) await tables[name].delete("id % 97 = 5");
for (const name of ["ref", "ours"]) await tables[name].checkoutLatest();
await checkAll("after deletes", queries.slice(0, 8), "ref", "ours");

// Lancet reads an index whose files it did not write, byte layout and all: the invert
// file of its own index names the same columns and metadata as the reference's.
const indexDir = (name) => {
  const base = path.join(work, `${name}.lance`, "_indices");
  return path.join(base, fs.readdirSync(base)[0]);
};
const refFiles = fs.readdirSync(indexDir("ref")).sort().join(",");
const ourFiles = fs.readdirSync(indexDir("ours")).sort().join(",");
report(refFiles === ourFiles, "lancet writes the reference's files", `${ourFiles} vs ${refFiles}`);

// Appended rows no index covers are scored at query time.
const more = makeTextCorpus(2000, 99).docs;
for (const name of ["ref", "ours"]) await tables[name].add(rows(N, more));
for (const name of ["ref", "ours"]) await tables[name].checkoutLatest();
await checkAll("with an unindexed fragment", queries.slice(0, 6), "ref", "ours");

// optimize: Lancet's rebuilds its index over every fragment, the reference updates its
// own; each side's index then answers alike in both engines.
run(["index", "optimize", path.join(work, "ours.lance")]);
await tables.ref.optimize();
for (const name of ["ref", "ours"]) await tables[name].checkoutLatest();
const stats = await tables.ours.indexStats("text_idx");
report(stats && stats.numUnindexedRows === 0, "optimize leaves no row unindexed", JSON.stringify(stats));
for (const c of queries.slice(0, 6)) {
  for (const name of ["ref", "ours"]) {
    try {
      const d = compare(lancetSearch(name, c), await peerSearch(tables[name], c));
      report(!d, `after optimize, lancet and the reference on ${name}'s index: ${JSON.stringify(c)}`, d);
    } catch (e) {
      report(false, `after optimize on ${name}: ${JSON.stringify(c)}`, e.message.split("\n")[0]);
    }
  }
}

// Hybrid: the reference's nearestTo(v).fullTextSearch(q), RRF-fused, against
// `lancet search --vector --text`, on a table with a vector column (no vector index).
{
  const H = 6000;
  let seed = 4242;
  const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
  const vecOf = () => Array.from({ length: 8 }, () => Math.round(rnd() * 1000) / 100);
  const hrows = docs.slice(0, H).map((text, i) => ({ id: i, cat: i % 5, text, vec: vecOf() }));
  const F = (name, type) => new A.Field(name, type, true);
  const schema = new A.Schema([F("id", new A.Int32()), F("cat", new A.Int32()), F("text", new A.Utf8()),
    F("vec", new A.FixedSizeList(8, F("item", new A.Float32())))]);
  const hyb = await db.createTable("hyb", lancedb.makeArrowTable(hrows, { schema }));
  await hyb.createIndex("text", { config: lancedb.Index.fts() });
  const hcases = [
    { q: v(4), vec: vecOf() }, { q: `${v(10)} ${v(11)}`, vec: vecOf(), k: 20 },
    { q: v(2), vec: vecOf(), where: "cat = 1" },
  ];
  for (const c of hcases) {
    const what = `hybrid ${JSON.stringify({ q: c.q, k: c.k, where: c.where })}`;
    try {
      let query = hyb.query().nearestTo(c.vec).fullTextSearch(c.q).limit(c.k ?? 10).select(["id"]);
      if (c.where) query = query.where(c.where);
      const want = (await query.toArray()).map((r) => ({ id: r.id, s: r._relevance_score }));
      if (!want.length) report(false, `the reference finds rows: ${what}`);
      const args = ["search", path.join(work, "hyb.lance"), "vec", "--vector", JSON.stringify(c.vec), "--text", c.q,
        "--text-column", "text", "-k", String(c.k ?? 10), "--columns", "id", "--format", "json"];
      if (c.where) args.push("--where", c.where);
      const got = run(args).split("\n").filter(Boolean).map((l) => JSON.parse(l)).map((r) => ({ id: r.id, s: r._relevance_score }));
      // Rows of equal BM25 score take their text ranks in either order (the reference's
      // is arbitrary), which moves their fused scores: such rows may differ, the fused
      // scores rank by rank may not.
      const textArgs = ["search", path.join(work, "hyb.lance"), "--text", c.q, "-k", String(c.k ?? 10), "--columns", "id",
        "--format", "json"];
      if (c.where) textArgs.push("--where", c.where);
      const text = run(textArgs).split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const tied = new Set(text.filter((a) => text.some((b) => b.id !== a.id && Math.abs(b._score - a._score) <= 1e-6 * a._score)).map((r) => r.id));
      let d = got.length === want.length ? "" : `${got.length} rows, the reference ${want.length}`;
      for (let i = 0; !d && i < got.length; i++) {
        if (Math.abs(got[i].s - want[i].s) > 1e-6 * want[i].s) d = `rank ${i}: relevance ${got[i].s} vs ${want[i].s}`;
      }
      const wantIds = new Set(want.map((r) => r.id));
      const gotIds = new Set(got.map((r) => r.id));
      const odd = [...got.filter((r) => !wantIds.has(r.id)), ...want.filter((r) => !gotIds.has(r.id))].filter((r) => !tied.has(r.id));
      if (!d && odd.length) d = `rows ${odd.map((r) => r.id).join(",")} differ and have no tie`;
      report(!d, `lancet's RRF fusion equals the reference's: ${what}`, d);
    } catch (e) {
      report(false, what, e.message.split("\n")[0]);
    }
  }
}

process.stdout.write(failures ? `${failures} failures\n` : "all passed\n");
process.exit(failures ? 1 : 0);
