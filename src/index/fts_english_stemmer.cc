// Written from the Snowball English algorithm's definition (snowballstem.org), including
// its 2025 changes: more prefixes that fix R1 (past, univers, later, emerg, organ, inter),
// -eed/-ing exceptions decided inside step 1b, no undoubling after a lone leading a/e/o
// ("added" -> "add"), "past" counting as a short syllable, and -ogist -> -og.
#include "index/fts_english_stemmer.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

#include "index/fts_unicode_data.h"

namespace lancet::index::fts {
namespace {

using Word = std::u32string;

bool IsVowel(char32_t c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'; }

bool EndsWith(const Word& w, size_t end, std::string_view s) {
  if (s.size() > end) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (w[end - s.size() + i] != static_cast<unsigned char>(s[i])) return false;
  }
  return true;
}
bool EndsWith(const Word& w, std::string_view s) { return EndsWith(w, w.size(), s); }

bool Equals(const Word& w, size_t end, std::string_view s) { return end == s.size() && EndsWith(w, end, s); }

// The longest of `suffixes` that `w` ends with, or "" (Snowball's `among` picks the longest).
std::string_view Longest(const Word& w, std::initializer_list<std::string_view> suffixes) {
  std::string_view best;
  for (std::string_view s : suffixes) {
    if (s.size() > best.size() && EndsWith(w, s)) best = s;
  }
  return best;
}

void Replace(Word* w, size_t suffix_len, std::string_view by) {
  w->resize(w->size() - suffix_len);
  for (char c : by) w->push_back(static_cast<unsigned char>(c));
}

class Stemmer {
 public:
  explicit Stemmer(Word w) : w_(std::move(w)) {}

  Word Run() {
    Prelude();
    MarkRegions();
    Step1a();
    Step1b();
    Step1c();
    Step2();
    Step3();
    Step4();
    Step5();
    // Only when the prelude marked a y does every Y (even one the word came with) revert.
    if (y_found_) std::replace(w_.begin(), w_.end(), U'Y', U'y');
    return std::move(w_);
  }

 private:
  void Prelude() {
    if (!w_.empty() && w_[0] == '\'') w_.erase(0, 1);
    for (size_t i = 0; i < w_.size(); ++i) {
      if (w_[i] == 'y' && (i == 0 || IsVowel(w_[i - 1]))) {
        w_[i] = 'Y';
        y_found_ = true;
      }
    }
  }

  // After the first non-vowel that follows a vowel, from `from`; the word's end if none.
  size_t RegionStart(size_t from) const {
    size_t i = from;
    while (i < w_.size() && !IsVowel(w_[i])) ++i;
    while (i < w_.size() && IsVowel(w_[i])) ++i;
    return i < w_.size() ? i + 1 : w_.size();
  }

  void MarkRegions() {
    static constexpr std::array<std::string_view, 9> kPrefixes = {"gener", "commun", "arsen", "past", "univers",
                                                                  "later", "emerg",  "organ", "inter"};
    p1_ = std::string_view::npos;
    for (std::string_view p : kPrefixes) {
      if (w_.size() >= p.size() && EndsWith(w_, p.size(), p)) p1_ = p.size();
    }
    if (p1_ == std::string_view::npos) p1_ = RegionStart(0);
    p2_ = RegionStart(p1_);
  }

  // Whether the word up to `end` ends in a short syllable.
  bool ShortSyllable(size_t end) const {
    if (EndsWith(w_, end, "past")) return true;
    if (end >= 3) {
      const char32_t a = w_[end - 3], b = w_[end - 2], c = w_[end - 1];
      if (!IsVowel(a) && IsVowel(b) && !IsVowel(c) && c != 'w' && c != 'x' && c != 'Y') return true;
    }
    return end == 2 && IsVowel(w_[0]) && !IsVowel(w_[1]);
  }

  bool HasVowelBefore(size_t end) const { return std::any_of(w_.begin(), w_.begin() + end, IsVowel); }

  void Step1a() {
    if (std::string_view s = Longest(w_, {"'", "'s", "'s'"}); !s.empty()) w_.resize(w_.size() - s.size());
    const std::string_view s = Longest(w_, {"sses", "ied", "ies", "s", "us", "ss"});
    const size_t k = w_.size() - s.size();
    if (s == "sses") {
      Replace(&w_, 4, "ss");
    } else if (s == "ied" || s == "ies") {
      Replace(&w_, 3, k >= 2 ? "i" : "ie");
    } else if (s == "s") {
      // A vowel before the letter preceding the s.
      if (k >= 1 && HasVowelBefore(k - 1)) w_.pop_back();
    }
  }

  void Step1b() {
    const std::string_view s = Longest(w_, {"eed", "eedly", "ed", "edly", "ing", "ingly"});
    if (s.empty()) return;
    const size_t k = w_.size() - s.size();
    if (s == "eed" || s == "eedly") {
      if (k >= p1_ && !Equals(w_, k, "proc") && !Equals(w_, k, "exc") && !Equals(w_, k, "succ"))
        Replace(&w_, s.size(), "ee");
      return;
    }
    if (s == "ing") {
      // dying -> die; inning, outing, canning, herring, earring, evening stay.
      if (k == 2 && w_[1] == 'y' && !IsVowel(w_[0])) {
        Replace(&w_, 4, "ie");
        return;
      }
      for (std::string_view whole : {"inn", "out", "cann", "herr", "earr", "even"}) {
        if (Equals(w_, k, whole)) return;
      }
    }
    if (!HasVowelBefore(k)) return;
    w_.resize(k);
    if (!Longest(w_, {"at", "bl", "iz"}).empty()) {
      w_.push_back('e');
      return;
    }
    const std::string_view dbl = Longest(w_, {"bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"});
    if (!dbl.empty()) {
      const bool lone_aeo = w_.size() == 3 && (w_[0] == 'a' || w_[0] == 'e' || w_[0] == 'o');
      if (!lone_aeo) w_.pop_back();
      return;
    }
    if (w_.size() == p1_ && ShortSyllable(w_.size())) w_.push_back('e');
  }

  void Step1c() {
    const size_t n = w_.size();
    if (n >= 3 && (w_[n - 1] == 'y' || w_[n - 1] == 'Y') && !IsVowel(w_[n - 2])) w_[n - 1] = 'i';
  }

  void Step2() {
    const std::string_view s =
        Longest(w_, {"tional", "enci",  "anci",  "abli", "entli",   "izer",   "ization", "ational", "ation",
                     "ator",   "alism", "aliti", "alli", "fulness", "ousli",  "ousness", "iveness", "iviti",
                     "biliti", "bli",   "ogist", "ogi",  "fulli",   "lessli", "li"});
    if (s.empty() || w_.size() - s.size() < p1_) return;
    const size_t k = w_.size() - s.size();
    static constexpr std::pair<std::string_view, std::string_view> kTo[] = {
        {"tional", "tion"}, {"enci", "ence"},   {"anci", "ance"},   {"abli", "able"},   {"entli", "ent"},
        {"izer", "ize"},    {"ization", "ize"}, {"ational", "ate"}, {"ation", "ate"},   {"ator", "ate"},
        {"alism", "al"},    {"aliti", "al"},    {"alli", "al"},     {"fulness", "ful"}, {"ousli", "ous"},
        {"ousness", "ous"}, {"iveness", "ive"}, {"iviti", "ive"},   {"biliti", "ble"},  {"bli", "ble"},
        {"ogist", "og"},    {"fulli", "ful"},   {"lessli", "less"}};
    for (const auto& [from, to] : kTo) {
      if (s == from) return Replace(&w_, s.size(), to);
    }
    if (s == "ogi") {
      if (k >= 1 && w_[k - 1] == 'l') Replace(&w_, 3, "og");
    } else if (s == "li") {
      static constexpr std::string_view kValidLi = "cdeghkmnrt";
      if (k >= 1 && w_[k - 1] < 0x80 && kValidLi.find(static_cast<char>(w_[k - 1])) != std::string_view::npos) {
        w_.resize(k);
      }
    }
  }

  void Step3() {
    const std::string_view s =
        Longest(w_, {"tional", "ational", "alize", "icate", "iciti", "ical", "ful", "ness", "ative"});
    if (s.empty() || w_.size() - s.size() < p1_) return;
    if (s == "tional") return Replace(&w_, 6, "tion");
    if (s == "ational") return Replace(&w_, 7, "ate");
    if (s == "alize") return Replace(&w_, 5, "al");
    if (s == "icate" || s == "iciti" || s == "ical") return Replace(&w_, s.size(), "ic");
    if (s == "ful" || s == "ness") return Replace(&w_, s.size(), "");
    if (w_.size() - s.size() >= p2_) Replace(&w_, s.size(), "");  // ative
  }

  void Step4() {
    const std::string_view s = Longest(w_, {"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
                                            "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion"});
    if (s.empty() || w_.size() - s.size() < p2_) return;
    const size_t k = w_.size() - s.size();
    if (s == "ion") {
      if (k >= 1 && (w_[k - 1] == 's' || w_[k - 1] == 't')) w_.resize(k);
      return;
    }
    w_.resize(k);
  }

  void Step5() {
    const size_t n = w_.size();
    if (n == 0) return;
    const size_t k = n - 1;
    if (w_[k] == 'e') {
      if (k >= p2_ || (k >= p1_ && !ShortSyllable(k))) w_.pop_back();
    } else if (w_[k] == 'l') {
      if (k >= p2_ && k >= 1 && w_[k - 1] == 'l') w_.pop_back();
    }
  }

  Word w_;
  size_t p1_ = 0;
  size_t p2_ = 0;
  bool y_found_ = false;
};

// Words the algorithm maps (or keeps) as a whole.
bool Exception(const Word& w, std::string* out) {
  static constexpr std::pair<std::string_view, std::string_view> kWords[] = {
      {"skis", "ski"},    {"skies", "sky"},   {"idly", "idl"},      {"gently", "gentl"}, {"ugly", "ugli"},
      {"early", "earli"}, {"only", "onli"},   {"singly", "singl"},  {"sky", "sky"},      {"news", "news"},
      {"howe", "howe"},   {"atlas", "atlas"}, {"cosmos", "cosmos"}, {"bias", "bias"},    {"andes", "andes"}};
  for (const auto& [from, to] : kWords) {
    if (Equals(w, w.size(), from)) {
      *out = to;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string StemEnglish(std::string_view word) {
  Word w;
  for (size_t i = 0; i < word.size();) w.push_back(NextCodePoint(word, &i));
  std::string out;
  if (Exception(w, &out)) return out;
  if (w.size() < 3) return std::string(word);
  for (char32_t c : Stemmer(std::move(w)).Run()) AppendUtf8(c, &out);
  return out;
}

}  // namespace lancet::index::fts
