// Builds, with the reference (the pinned LanceDB peer), full-text indexes over one table
// of generated English-like text, for fts_posting_reference_test.
//
//   node fts_posting_reference.mjs <peer lib/peer.mjs> <out dir>
//
// Writes <out dir>/plain.lance (Index.fts()) and <out dir>/positions.lance
// (Index.fts({withPosition: true})) over the same rows. Word frequencies follow a Zipf
// law so the posting lists cover every shape the codec has: one doc, a partial block,
// exactly one block, many blocks (more than 32, so more than one level-1 impact entry).
// A few docs repeat one word hundreds of times (large frequencies, many positions) and
// some are long (doc lengths that need two varint bytes).

const [peerLib, out] = process.argv.slice(2);
const { lancedb } = (await import(peerLib)).loadPeer();

let seed = 20240607;
function rand() {
  // xorshift32: the same text on every run.
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}

// Pronounceable made-up words: the stemmer leaves most of them alone, and none is a
// stop word. A few real stop words are mixed in so the tokenizer drops something.
const syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "bel", "qui", "dan", "po", "zef", "gri", "nol"];
const vocab = [];
const seen = new Set();
while (vocab.length < 3000) {
  let w = "";
  const n = 2 + Math.floor(rand() * 3);
  for (let i = 0; i < n; ++i) w += syllables[Math.floor(rand() * syllables.length)];
  if (!seen.has(w)) {
    seen.add(w);
    vocab.push(w);
  }
}
const stop = ["the", "of", "and", "a", "to", "in"];
// Zipf: P(rank r) ~ 1 / (r + 1).
const cdf = [];
let total = 0;
for (let r = 0; r < vocab.length; ++r) cdf.push((total += 1 / (r + 1)));
function zipfWord() {
  const x = rand() * total;
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo];
}

const NUM_DOCS = 6000;
const rows = [];
for (let i = 0; i < NUM_DOCS; ++i) {
  const words = [];
  let len = 3 + Math.floor(rand() * 40);
  if (i % 97 === 0) len += 200;  // long docs
  for (let j = 0; j < len; ++j) words.push(rand() < 0.1 ? stop[Math.floor(rand() * stop.length)] : zipfWord());
  if (i % 509 === 3) for (let j = 0; j < 300 + i / 20; ++j) words.push(vocab[7]);  // large frequencies
  if (i % 1500 === 11) words.push("solitaryterm");  // a term in a handful of docs
  if (i === 4321) words.push("uniqueterm");  // a term in one doc
  rows.push({ id: i, text: words.join(" ") });
}

const db = await lancedb.connect(out);
for (const [name, withPosition] of [["plain", false], ["positions", true]]) {
  const t = await db.createTable(name, rows, { mode: "overwrite" });
  await t.createIndex("text", { config: lancedb.Index.fts({ withPosition }) });
}
console.log(JSON.stringify({ docs: NUM_DOCS }));
