#include "index/fts_tokenizer.h"

#include <libstemmer.h>

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "index/fts_english_stemmer.h"
#include "util/test_macros.h"

namespace lancet::index::fts {
namespace {

using Pairs = std::vector<std::pair<std::string, uint32_t>>;

TokenizerParams Plain() {
  TokenizerParams p;
  p.lower_case = p.stem = p.remove_stop_words = p.ascii_folding = false;
  return p;
}

Pairs Analyze(const TokenizerParams& p, std::string_view text) {
  auto t = Tokenizer::Make(p);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  std::vector<Token> tokens;
  (*t)->Tokenize(text, &tokens);
  Pairs out;
  for (auto& tok : tokens) out.emplace_back(std::move(tok.text), tok.position);
  return out;
}

std::vector<std::string> Texts(const TokenizerParams& p, std::string_view text) {
  std::vector<std::string> out;
  for (auto& [t, pos] : Analyze(p, text)) out.push_back(t);
  return out;
}

TEST(FtsTokenizerTest, SimpleSplitsOnNonAlphanumerics) {
  EXPECT_EQ(Analyze(Plain(), "Hello, happy tax payer!"), (Pairs{{"Hello", 0}, {"happy", 1}, {"tax", 2}, {"payer", 3}}));
  EXPECT_TRUE(Analyze(Plain(), "").empty());
  EXPECT_TRUE(Analyze(Plain(), " ,.;-- !?").empty());
  EXPECT_EQ(Texts(Plain(), "abc123 3.14 foo_bar don't x²"),
            (std::vector<std::string>{"abc123", "3", "14", "foo", "bar", "don", "t", "x²"}));
  // Letters of any script and numbers of any kind are alphanumeric; emoji and combining
  // accents (not Alphabetic) split.
  EXPECT_EQ(Texts(Plain(), "中文字 Москва ١٢٣ Ⅻ smile😀face cafe\u0301"),
            (std::vector<std::string>{"中文字", "Москва", "١٢٣", "Ⅻ", "smile", "face", "cafe"}));
}

TEST(FtsTokenizerTest, WhitespaceAndRawBaseTokenizers) {
  TokenizerParams p = Plain();
  p.base_tokenizer = "whitespace";
  // Rust's ASCII whitespace: no vertical tab, no Unicode spaces.
  EXPECT_EQ(Analyze(p, " Hello,\tworld!\nv\x0btab a\u00a0b\r\x0c"),
            (Pairs{{"Hello,", 0}, {"world!", 1}, {"v\x0btab", 2}, {"a\u00a0b", 3}}));
  p.base_tokenizer = "raw";
  EXPECT_EQ(Analyze(p, "Hello, world"), (Pairs{{"Hello, world", 0}}));
  EXPECT_EQ(Analyze(p, ""), (Pairs{{"", 0}}));
}

TEST(FtsTokenizerTest, RemoveLongCountsBytes) {
  TokenizerParams p = Plain();
  const std::string a39(39, 'a'), a40(40, 'a'), a41(41, 'a');
  EXPECT_EQ(Analyze(p, a39 + " " + a40 + " " + a41 + " x"), (Pairs{{a39, 0}, {"x", 3}}));
  std::string e19, e20;
  for (int i = 0; i < 19; ++i) e19 += "é";
  e20 = e19 + "é";
  EXPECT_EQ(Texts(p, e19 + "a " + e20), (std::vector<std::string>{e19 + "a"}));  // 39 bytes stay, 40 go
  p.max_token_length = 0;
  EXPECT_EQ(Texts(p, a41), (std::vector<std::string>{a41}));
  p.max_token_length = 3;
  EXPECT_EQ(Texts(p, "ab abc abcd"), (std::vector<std::string>{"ab"}));
}

TEST(FtsTokenizerTest, LowerCaseIsUnicodeAndContextFree) {
  TokenizerParams p = Plain();
  p.lower_case = true;
  // Σ lower-cases to σ even at a word's end (Rust's char::to_lowercase has no context);
  // İ becomes i plus a combining dot.
  EXPECT_EQ(Texts(p, "HeLLo ΣΟΦΙΑΣ İstanbul ÆRØ ＡＢＣ"),
            (std::vector<std::string>{"hello", "σοφιασ", "i\u0307stanbul", "ærø", "ａｂｃ"}));
}

TEST(FtsTokenizerTest, StopWordsRunAfterStemmingAndKeepPositions) {
  TokenizerParams p;
  EXPECT_EQ(Analyze(p, "I am a cat; as yet I have no name"), (Pairs{{"cat", 3}, {"yet", 5}, {"name", 9}}));
  // "having" stems to the stop word "have"; "does" stems to "doe", which is not one.
  EXPECT_EQ(Texts(p, "having does"), (std::vector<std::string>{"doe"}));
  p.custom_stop_words = std::vector<std::string>{"cat", "name"};
  EXPECT_EQ(Texts(p, "the cat's name"), (std::vector<std::string>{"the", "s"}));
  p.custom_stop_words = std::vector<std::string>{};
  EXPECT_EQ(Texts(p, "the cat"), (std::vector<std::string>{"the", "cat"}));
  p.custom_stop_words.reset();
  p.remove_stop_words = false;
  EXPECT_EQ(Texts(p, "the cat"), (std::vector<std::string>{"the", "cat"}));
}

TEST(FtsTokenizerTest, AsciiFoldingKeepsNfkdAscii) {
  TokenizerParams p = Plain();
  p.ascii_folding = true;
  EXPECT_EQ(Texts(p, "café naïve Straße Ærø ﬁne ½ ① ＡＢＣ ǅemal µ 中文 한국어 が"),
            (std::vector<std::string>{"cafe", "naive", "Strasse", "AEro", "fine", "12", "1", "ABC", "Dzemal", "µ",
                                      "中文", "한국어", "が"}));
  EXPECT_EQ(Texts(TokenizerParams{}, "Résumés ÆRØSKØBING"), (std::vector<std::string>{"resume", "aeroskobing"}));
}

TEST(FtsTokenizerTest, InvalidUtf8BecomesReplacementCharacters) {
  TokenizerParams p = Plain();
  // U+FFFD is not alphanumeric, so invalid bytes split tokens like punctuation.
  EXPECT_EQ(Texts(p,
                  "ab\xff"
                  "cd\xc3"),
            (std::vector<std::string>{"ab", "cd"}));
  EXPECT_EQ(Texts(p, "x\xc0\xafy\xed\xa0\x80z\xf4\x90\x80\x80w"), (std::vector<std::string>{"x", "y", "z", "w"}));
  p.base_tokenizer = "whitespace";
  // One U+FFFD per maximal invalid subsequence, as Rust's from_utf8_lossy.
  EXPECT_EQ(Texts(p, "a\xe2\x82z \xf0\x9f"), (std::vector<std::string>{"a\uFFFDz", "\uFFFD"}));
  EXPECT_EQ(Texts(p, "\xc0\xaf"), (std::vector<std::string>{"\uFFFD\uFFFD"}));
  EXPECT_EQ(Texts(p, "ok\uFFFD"), (std::vector<std::string>{"ok\uFFFD"}));
  TokenizerParams d;
  for (int b = 0; b < 256; ++b) {
    std::string s = "word" + std::string(1, static_cast<char>(b)) + "\xe0\x80" + std::string(1, static_cast<char>(b));
    (void)Analyze(d, s);
  }
}

TEST(FtsTokenizerTest, MakeRefusesWhatLancetCannotMatch) {
  TokenizerParams p;
  p.base_tokenizer = "ngram";
  EXPECT_TRUE(Tokenizer::Make(p).status().IsInvalidArgument());
  p = {};
  p.language = "Klingon";
  EXPECT_TRUE(Tokenizer::Make(p).status().IsInvalidArgument());
  p.language = "German";
  EXPECT_TRUE(Tokenizer::Make(p).status().IsInvalidArgument());  // German stemming
  p.stem = false;
  EXPECT_TRUE(Tokenizer::Make(p).status().IsInvalidArgument());  // German stop words
  p.custom_stop_words = std::vector<std::string>{"der"};
  EXPECT_TRUE(Tokenizer::Make(p).ok());
  p.remove_stop_words = false;
  p.custom_stop_words.reset();
  EXPECT_TRUE(Tokenizer::Make(p).ok());
}

TEST(FtsEnglishStemmerTest, KnownStems) {
  const std::pair<const char*, const char*> cases[] = {
      {"caresses", "caress"},
      {"ponies", "poni"},
      {"ties", "tie"},
      {"cats", "cat"},
      {"gas", "gas"},
      {"gaps", "gap"},
      {"feed", "feed"},
      {"agreed", "agre"},
      {"plastered", "plaster"},
      {"motoring", "motor"},
      {"sing", "sing"},
      {"conflated", "conflat"},
      {"hopping", "hop"},
      {"falling", "fall"},
      {"hissing", "hiss"},
      {"filing", "file"},
      {"happy", "happi"},
      {"sky", "sky"},
      {"skies", "sky"},
      {"generously", "generous"},
      {"generate", "generat"},
      {"communism", "communism"},
      {"relational", "relat"},
      {"conditional", "condit"},
      {"rational", "ration"},
      {"digitizer", "digit"},
      {"operator", "oper"},
      {"hopefulness", "hope"},
      {"formality", "formal"},
      {"sensitivity", "sensit"},
      {"electricity", "electr"},
      {"adjustment", "adjust"},
      {"adoption", "adopt"},
      {"effective", "effect"},
      {"controlling", "control"},
      {"rolled", "roll"},
      {"saying", "say"},
      {"yes", "yes"},
      {"Yes", "Yes"},
      {"ab", "ab"},
      {"'tis", "tis"},
      {"john's", "john"},
      {"a\u00e9s", "a\u00e9"},
      {"running", "run"},
      // Snowball's 2025 English changes, which the reference has and libstemmer 2.2 lacks
      // (fts_reference_tokens.mjs indexes these words, so the reference confirms them).
      {"universe", "univers"},
      {"universal", "universal"},
      {"university", "universiti"},
      {"pasted", "paste"},
      {"past", "past"},
      {"later", "later"},
      {"lateral", "lateral"},
      {"organic", "organic"},
      {"organize", "organiz"},
      {"emergency", "emergenc"},
      {"interfere", "interfer"},
      {"geologist", "geolog"},
      {"added", "add"},
      {"egged", "egg"},
      {"dying", "die"},
      {"vying", "vie"},
      {"evening", "evening"},
      {"inning", "inning"},
      {"proceed", "proceed"},
      {"exceeding", "exceed"},
      {"succeedingly", "succeed"}};
  for (const auto& [word, stem] : cases) EXPECT_EQ(StemEnglish(word), stem) << word;
}

// Outside the cases Snowball changed after 2.2, the stemmer agrees with Debian's libstemmer.
TEST(FtsEnglishStemmerTest, AgreesWithLibstemmerOutsideThe2025Changes) {
  sb_stemmer* oracle = sb_stemmer_new("english", "UTF_8");
  ASSERT_NE(oracle, nullptr);
  const char* stems[] = {"connect", "relate",   "generate", "nation",    "happy",     "run",     "hop",      "agree",
                         "fly",     "cry",      "news",     "generous",  "caress",    "pony",    "sing",     "feed",
                         "plaster", "motor",    "file",     "condition", "sensitive", "digit",   "hesitate", "operate",
                         "feudal",  "decisive", "hope",     "callous",   "formal",    "sense",   "triple",   "electric",
                         "good",    "revive",   "allow",    "infer",     "adjust",    "defend",  "irritate", "replace",
                         "depend",  "adopt",    "active",   "angular",   "effect",    "gentle",  "able",     "fluent",
                         "quick",   "idle",     "early",    "single",    "herring",   "atlas",   "bias",     "ugly",
                         "skate",   "church",   "baby",     "city",      "study",     "party",   "key",      "toy",
                         "play",    "stop",     "plan",     "big",       "wet",       "program", "code",     "index",
                         "search",  "query",    "table",    "vector",    "token",     "yell",    "ooze",     "eye",
                         "say",     "obey",     "deny",     "café",      "naïve",     "ÆRØ",     "Yak",      "y"};
  const char* suffixes[] = {"",      "s",       "es",      "ed",      "ing",   "er",      "ers",  "est",   "ly",
                            "ness",  "ful",     "ation",   "ational", "ize",   "ization", "ies",  "ied",   "'s",
                            "ment",  "able",    "ability", "ible",    "ism",   "ist",     "ive",  "ous",   "al",
                            "ally",  "ence",    "ance",    "ent",     "ant",   "ic",      "ical", "ate",   "iti",
                            "bli",   "li",      "logi",    "alli",    "entli", "y",       "ee",   "ingly", "edly",
                            "ousli", "iveness", "fulness", "lessli"};
  size_t checked = 0;
  for (const char* s : stems) {
    for (const char* x : suffixes) {
      const std::string word = std::string(s) + x;
      // Words the 2025 changes reach: -eed forms, y-ing, [aeo] + double consonant + suffix.
      if (word.find("eed") != std::string::npos || word.find("ying") != std::string::npos ||
          word.find("ogist") != std::string::npos) {
        continue;
      }
      if (word.size() >= 3 && std::string("aeo").find(word[0]) != std::string::npos && word[1] == word[2]) continue;
      const sb_symbol* r =
          sb_stemmer_stem(oracle, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
      ASSERT_NE(r, nullptr);
      const std::string want(reinterpret_cast<const char*>(r), static_cast<size_t>(sb_stemmer_length(oracle)));
      EXPECT_EQ(StemEnglish(word), want) << word;
      ++checked;
    }
  }
  sb_stemmer_delete(oracle);
  EXPECT_GT(checked, 4000u);
}

}  // namespace
}  // namespace lancet::index::fts
