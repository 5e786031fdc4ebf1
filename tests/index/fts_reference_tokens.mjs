// Builds, with the reference (the pinned LanceDB peer), full-text indexes over one table
// of generated text under several analyzer settings, for fts_reference_tokens_test.
//
//   node fts_reference_tokens.mjs <peer lib/peer.mjs> <out dir>
//
// Writes <out dir>/texts.json (the rows' text), one <out dir>/<variant>.lance per variant
// below with its FTS index, and <out dir>/variants.json: [{name, params}] where params use
// the names of Lancet's TokenizerParams.
import fs from "node:fs";

const [peerLib, out] = process.argv.slice(2);
const { lancedb } = (await import(peerLib)).loadPeer();

// English inflections over stems that exercise the Porter2 steps.
const stems = [
  "connect", "relate", "generate", "nation", "ration", "happy", "run", "hop", "agree", "fly", "try",
  "cry", "lie", "die", "tie", "sky", "news", "generous", "universe", "caress", "pony", "sing", "feed",
  "plaster", "bleed", "motor", "file", "condition", "sensitive", "digit", "valence", "hesitate",
  "operate", "feudal", "decisive", "hope", "callous", "formal", "sense", "triple", "electric", "good",
  "revive", "allow", "infer", "air", "gyroscope", "adjust", "defend", "irritate", "replace", "depend",
  "adopt", "commune", "active", "angular", "effect", "bowdlerize", "gentle", "able", "fluent", "quick",
  "exceed", "proceed", "succeed", "idle", "early", "only", "single", "inn", "out", "can", "herring",
  "earring", "atlas", "cosmos", "bias", "andes", "ugly", "skate", "skis", "dying", "lying", "tying",
  "gener", "commun", "arsen", "past", "univers", "organize", "analyze", "rational", "conditional",
  "valency", "digitizer", "conformability", "radically", "differently", "vilely", "analogously",
  "vietnamization", "predication", "operator", "feudalism", "decisiveness", "hopefulness",
  "callousness", "formality", "sensitivity", "sensibility", "triplicate", "formative", "formalize",
  "electricity", "electrical", "hopeful", "goodness", "revival", "allowance", "inference", "airliner",
  "gyroscopic", "adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent",
  "adoption", "homologous", "communism", "activate", "angularity", "effective", "dog", "cat", "box",
  "church", "baby", "city", "study", "party", "key", "toy", "play", "stop", "plan", "big", "wet",
  "program", "code", "index", "search", "query", "table", "column", "vector", "token", "stem",
  "yell", "yearly", "ooze", "eye", "aye", "yes", "bye", "say", "lay", "pay", "obey", "deny",
];
const suffixes = ["", "s", "es", "ed", "ing", "er", "ers", "est", "ly", "ness", "ful", "fully", "ation",
  "ational", "ations", "ize", "ized", "izing", "ization", "ies", "ied", "'s", "s'", "ment", "ments",
  "able", "ability", "ible", "ism", "ist", "ive", "iveness", "ous", "ousness", "al", "ally", "ence",
  "ance", "ent", "ant", "ic", "ical", "ically", "ate", "iti", "bli", "li", "logi", "alli", "entli",
  "eed", "eedly", "ingly", "edly", "y", "ee", "eer"];
const words = [];
for (const s of stems) for (const x of suffixes) words.push(s + x);

// Stop words of the candidate English lists (Lucene's and Snowball's/NLTK's) in several
// cases, and words whose stems are stop words.
const stopish = ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
  "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
  "this", "to", "was", "will", "with", "i", "me", "my", "myself", "we", "our", "ours", "ourselves",
  "you", "your", "yours", "he", "him", "his", "she", "her", "hers", "its", "itself", "them", "what",
  "which", "who", "whom", "those", "am", "were", "been", "being", "have", "has", "had", "having", "do",
  "does", "did", "doing", "because", "until", "while", "about", "against", "between", "through",
  "during", "before", "after", "above", "below", "from", "up", "down", "out", "off", "over", "under",
  "again", "further", "once", "here", "when", "where", "why", "how", "all", "any", "both", "each",
  "few", "more", "most", "other", "some", "nor", "only", "own", "same", "so", "than", "too", "very",
  "s", "t", "can", "just", "don", "should", "now", "would", "could", "ought", "i'm", "isn't",
  "The", "THE", "And", "IS", "thes", "thing", "things", "willing", "wills", "beings", "doings"];

// Special shapes: lengths around the 40-byte limit (ASCII and 2-byte letters), accents,
// scripts, digits, punctuation, apostrophes, hyphens, CJK, emoji, combining marks.
const special = [
  "x".repeat(39), "y".repeat(40), "z".repeat(41), "é".repeat(19) + "a", "é".repeat(20), "é".repeat(21),
  "Q".repeat(39), "İ".repeat(13) + "i", "İ".repeat(20),
  "café", "Café", "CAFÉ", "cafés", "naïve", "naïvely", "résumé", "résumés", "Ærø", "ærøskøbing", "Straße",
  "STRASSE", "ﬁnance", "ﬂower", "Œuvre", "œuvres", "Ångström", "Dvořák", "Łódź", "Ørsted", "façade",
  "jalapeño", "Mötley", "Crüe", "über", "coöperate", "þorn", "Ðað", "ĳssel", "Ĳ", "ǅemal", "ŉ", "ſt",
  "ΣΟΦΙΑ", "σοφία", "Ὀδυσσεύς", "İstanbul", "ISTANBUL", "ıi", "Москва", "москвы", "Ünïcödé", "ＡＢＣ",
  "ｆｕｌｌ", "①②", "²³", "½", "Ⅻ", "٣٤٥", "१२३", "x²", "H₂O", "™", "©2024", "ℌ", "ℓ", "µ", "º", "ª",
  "中文字", "日本語のテキスト", "한국어", "漢字かな交じり", "😀", "smile😀face", "a🎉b", "👍🏽",
  "cafe\u0301", "e\u0301", "n\u0303o", "zero\u200bwidth", "soft\u00adhyphen", "nbsp\u00a0here",
  "abc123", "123abc", "a1b2c3", "3.14", "1,000,000", "v2.0-rc1", "0x1F", "007", "2024-01-01",
  "don't", "John's", "rock'n'roll", "o'clock", "it’s", "state-of-the-art", "e-mail", "co-operate",
  "foo_bar", "foo.bar", "foo/bar", "a+b=c", "C++", "C#", ".NET", "#hashtag", "@mention", "user@example.com",
  "http://example.com/path?q=1", "--double--dash--", "...", "!!!", "?!", "(parens)", "[brackets]",
  "{braces}", "\"quoted\"", "«guillemets»", "„Anführung“", "tab\tseparated", "new\nline", "cr\rhere",
  "form\ffeed", "vertical\u000btab", "ideographic\u3000space", "em\u2003space", "line\u2028sep",
  "universe", "universal", "university", "pasted", "past", "paste", "later", "lateral", "organic",
  "organize", "emergency", "interfere", "geologist", "added", "egged", "dying", "vying", "evening",
  "inning", "proceed", "exceeding", "succeedingly", "communism", "'tis", "Yes", "controlling",
  "MixedCase", "camelCaseWord", "HTTPServer", "iPhone", "eBay", "ALLCAPS", "Title",
];

let license = "";
for (const f of ["GPL-3", "Apache-2.0", "MPL-2.0", "GFDL-1.3"]) {
  try { license += fs.readFileSync(`/usr/share/common-licenses/${f}`, "utf8") + "\n"; } catch {}
}

const texts = [];
for (let i = 0; i < words.length; i += 3) texts.push(words.slice(i, i + 3).join(" "));
for (const w of stopish) texts.push(w);
texts.push(stopish.join(" "));
for (const w of special) texts.push(w);
texts.push(special.join(" "));
for (const line of license.split("\n")) if (line.trim()) texts.push(line);
texts.push("");
fs.writeFileSync(`${out}/texts.json`, JSON.stringify(texts));

const defaults = { base_tokenizer: "simple", language: "English", max_token_length: 40, lower_case: true,
  stem: true, remove_stop_words: true, ascii_folding: true, custom_stop_words: null };
const variants = [
  ["default", {}, {}],
  ["no_stem", { stem: false }, { stem: false }],
  ["no_stop", { removeStopWords: false }, { remove_stop_words: false }],
  ["no_fold", { asciiFolding: false }, { ascii_folding: false }],
  ["no_lower", { lowercase: false }, { lower_case: false }],
  ["plain", { stem: false, removeStopWords: false, asciiFolding: false, lowercase: false },
    { stem: false, remove_stop_words: false, ascii_folding: false, lower_case: false }],
  ["whitespace", { baseTokenizer: "whitespace" }, { base_tokenizer: "whitespace" }],
  ["custom_stop", { customStopWords: ["quick", "connect", "caf", "licens"] },
    { custom_stop_words: ["quick", "connect", "caf", "licens"] }],
  ["short", { maxTokenLength: 6 }, { max_token_length: 6 }],
];
const db = await lancedb.connect(out);
const manifest = [];
for (const [name, fts, params] of variants) {
  const tbl = await db.createTable(name, texts.map((text, id) => ({ id, text })), { mode: "overwrite" });
  await tbl.createIndex("text", { config: lancedb.Index.fts({ withPosition: false, ...fts }) });
  manifest.push({ name, params: { ...defaults, ...params } });
}
fs.writeFileSync(`${out}/variants.json`, JSON.stringify(manifest));
