#!/usr/bin/env node
// filter_check.mjs PREDICATES_FILE OURS.jsonl REFERENCE.jsonl
//
// Compares filter_interop's answers with filter_oracle.mjs's, predicate by predicate:
//   - a plain line must give the same rows (row ids and ids) on both sides, or be refused
//     by both;
//   - a line starting with "! " is one Lancet refuses on purpose (docs/filters.md): our
//     answer must be an error naming a position, whatever the reference does.
// Prints PASS/FAIL per predicate, then "N passed, M failed"; exit 0 only when none failed.
import fs from "node:fs";

const [file, oursPath, refPath] = process.argv.slice(2);
const lines = (p) => fs.readFileSync(p, "utf8").split("\n").filter((l) => l.trim() !== "");
const wanted = lines(file).filter((l) => !l.startsWith("#"));
const ours = lines(oursPath).map((l) => JSON.parse(l));
const ref = lines(refPath).map((l) => JSON.parse(l));
let passed = 0;
let failed = 0;
const pass = (m) => {
  passed++;
  process.stdout.write(`PASS ${m}\n`);
};
const fail = (m) => {
  failed++;
  process.stdout.write(`FAIL ${m}\n`);
};
if (ours.length !== wanted.length || ref.length !== wanted.length) {
  fail(`answer counts differ: ${wanted.length} predicates, ${ours.length} ours, ${ref.length} reference`);
}
for (let i = 0; i < Math.min(wanted.length, ours.length, ref.length); i++) {
  const refused = wanted[i].startsWith("! ");
  const where = refused ? wanted[i].slice(2) : wanted[i];
  const o = ours[i];
  const r = ref[i];
  if (o.where !== where || r.where !== where) {
    fail(`answer ${i} is for '${o.where}' / '${r.where}', not '${where}'`);
    continue;
  }
  if (refused) {
    if (o.error && /at position \d+/.test(o.error)) pass(`${where} (refused: ${o.error.slice(0, 120)})`);
    else fail(`${where}: expected our refusal naming a position, got ${JSON.stringify(o).slice(0, 200)}`);
  } else if (o.error || r.error) {
    if (o.error && r.error) pass(`${where} (both refuse)`);
    else fail(`${where}: ours ${o.error ?? `${o.rows.length} rows`}; reference ${r.error ?? `${r.rows.length} rows`}`);
  } else if (JSON.stringify(o.rows) === JSON.stringify(r.rows)) {
    pass(`${where} (${o.rows.length} rows)`);
  } else {
    const key = (x) => x.join(":");
    const so = new Set(o.rows.map(key));
    const sr = new Set(r.rows.map(key));
    const extra = [...so].filter((k) => !sr.has(k)).slice(0, 5);
    const missing = [...sr].filter((k) => !so.has(k)).slice(0, 5);
    fail(`${where}: ${o.rows.length} rows vs reference ${r.rows.length}; extra [${extra}] missing [${missing}]`);
  }
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
