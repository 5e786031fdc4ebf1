// English-like documents for the full-text tests and benchmarks: words built from
// syllables and English suffixes (so stemming matters), drawn with Zipf frequencies,
// with stop words, capitals, punctuation and a few accented words mixed in.
// Deterministic for a seed.
export function makeTextCorpus(n, seed0 = 7) {
  let seed = seed0 >>> 0;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  const syllables = ["ba", "con", "de", "pro", "ter", "mi", "sta", "lo", "ra", "ven", "cu", "pol", "an", "ex", "tri",
    "gra", "nor", "sen", "vi", "mar"];
  const suffixes = ["", "", "", "s", "ing", "ed", "er", "ly", "ation", "ness", "ies", "ment", "able", "ful"];
  const stop = ["the", "a", "of", "and", "to", "in", "is", "it", "that", "with", "for", "on", "as", "was", "by"];
  const extra = ["café", "naïve", "résumé", "Ærø", "über", "running", "runs", "ran", "happily", "connection"];
  const vocab = [];
  for (let i = 0; i < 8000; i++) {
    let w = "";
    let x = Math.imul(i + 1, 2654435761) >>> 0;
    const parts = 1 + (i % 3) + (i % 7 === 0 ? 1 : 0);
    for (let s = 0; s < parts; s++) {
      w += syllables[x % syllables.length];
      x = Math.floor(x / syllables.length) + s * 7;
    }
    vocab.push(w + suffixes[(i * 7) % suffixes.length]);
  }
  vocab.splice(40, 0, ...extra);
  const cumulative = [];
  let total = 0;
  for (let i = 0; i < vocab.length; i++) {
    total += 1 / Math.pow(i + 1, 1.05);
    cumulative.push(total);
  }
  const pick = () => {
    const r = rnd() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo];
  };
  const docs = [];
  for (let d = 0; d < n; d++) {
    const len = 3 + Math.floor(rnd() * 40);
    const words = [];
    for (let j = 0; j < len; j++) {
      let w = rnd() < 0.3 ? stop[Math.floor(rnd() * stop.length)] : pick();
      if (rnd() < 0.05) w = w[0].toUpperCase() + w.slice(1);
      words.push(w);
    }
    docs.push(words.join(rnd() < 0.1 ? ", " : " ") + (rnd() < 0.3 ? "." : ""));
  }
  return { docs, vocab };
}
