// The analyzer the reference (lance 12's lance-tokenizer, derived from tantivy) builds
// from InvertedIndexParams: a base tokenizer, then in this order RemoveLong, LowerCaser,
// Stemmer, StopWordFilter and AsciiFolding, each when switched on. Filters that drop a
// token leave the others' positions alone: a position is the base token's index.
#include "index/fts_tokenizer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "index/fts_english_stemmer.h"
#include "index/fts_stop_words.h"
#include "index/fts_unicode_data.h"

namespace lancet::index::fts {
namespace {

// The reference's Language enum (it refuses other names when parsing params).
constexpr std::array<std::string_view, 18> kLanguages = {
    "Arabic",  "Danish",    "Dutch",      "English",  "Finnish", "French",  "German",  "Greek", "Hungarian",
    "Italian", "Norwegian", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Tamil", "Turkish"};

enum class Base { kSimple, kWhitespace, kRaw };

// Rust's char::is_ascii_whitespace: no vertical tab, unlike C's isspace.
bool IsAsciiWhitespace(uint32_t cp) { return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\f' || cp == '\r'; }

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<uint8_t>(c) < 0x80; });
}

class Analyzer final : public Tokenizer {
 public:
  Analyzer(const TokenizerParams& p, Base base, std::unordered_set<std::string> stop_words)
      : p_(p), base_(base), stop_words_(std::move(stop_words)) {}

  void Tokenize(std::string_view text, std::vector<Token>* out) const override {
    std::string valid;
    if (!IsValidUtf8(text)) {
      // The reference only ever sees valid UTF-8; hostile bytes get what a lossy
      // conversion to a Rust String would give.
      for (size_t i = 0; i < text.size();) AppendUtf8(NextCodePoint(text, &i), &valid);
      text = valid;
    }
    uint32_t position = 0;
    if (base_ == Base::kRaw) {
      Emit(text, position, out);
      return;
    }
    size_t start = std::string_view::npos;
    for (size_t i = 0; i < text.size();) {
      const size_t at = i;
      const uint32_t cp = NextCodePoint(text, &i);
      const bool in_token = base_ == Base::kSimple ? IsAlphanumeric(cp) : !IsAsciiWhitespace(cp);
      if (in_token && start == std::string_view::npos) {
        start = at;
      } else if (!in_token && start != std::string_view::npos) {
        Emit(text.substr(start, at - start), position++, out);
        start = std::string_view::npos;
      }
    }
    if (start != std::string_view::npos) Emit(text.substr(start), position, out);
  }

 private:
  static bool IsValidUtf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
      const uint8_t b = static_cast<uint8_t>(s[i]);
      if (b < 0x80) {
        ++i;
        continue;
      }
      const size_t before = i;
      if (NextCodePoint(s, &i) == 0xFFFD) {
        // A real U+FFFD is 3 bytes EF BF BD; anything else decoding to it was invalid.
        if (i - before != 3 || s.substr(before, 3) != "\xEF\xBF\xBD") return false;
      }
    }
    return true;
  }

  void Emit(std::string_view base_token, uint32_t position, std::vector<Token>* out) const {
    // Text repeats its words (Zipf): the filters' outcome per base token is remembered
    // per thread, which saves most of the stemming.
    thread_local Memo memo;
    if (memo.owner != this || memo.generation != generation_ || memo.map.size() >= kMemoEntries) {
      memo.map.clear();
      memo.owner = this;
      memo.generation = generation_;
    }
    auto it = memo.map.find(base_token);
    if (it == memo.map.end()) it = memo.map.emplace(std::string(base_token), Filter(base_token)).first;
    if (it->second) out->push_back(Token{*it->second, position});
  }

  // The filters on one base token: its final text, or nullopt when a filter drops it.
  std::optional<std::string> Filter(std::string_view base_token) const {
    // RemoveLongFilter: tokens of `max_token_length` bytes or more go.
    if (p_.max_token_length != 0 && base_token.size() >= p_.max_token_length) return std::nullopt;
    std::string text(base_token);
    if (p_.lower_case) text = Lower(text);
    if (p_.stem) text = StemEnglish(text);
    if (stop_words_.count(text) != 0) return std::nullopt;
    if (p_.ascii_folding && !IsAscii(text)) text = Fold(text);
    return text;
  }

  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Memo {
    const Analyzer* owner = nullptr;
    uint64_t generation = 0;
    std::unordered_map<std::string, std::optional<std::string>, StringHash, std::equal_to<>> map;
  };
  static constexpr size_t kMemoEntries = 1 << 16;
  // Tells analyzers apart that reuse a freed one's address.
  static inline std::atomic<uint64_t> next_generation_{1};
  const uint64_t generation_ = next_generation_++;

  static std::string Lower(const std::string& s) {
    std::string r;
    r.reserve(s.size());
    for (size_t i = 0; i < s.size();) AppendLower(NextCodePoint(s, &i), &r);
    return r;
  }

  static std::string Fold(const std::string& s) {
    std::string r;
    r.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      const uint32_t cp = NextCodePoint(s, &i);
      const char* folded = cp < 0x80 ? nullptr : FoldToAscii(cp);
      if (folded != nullptr) {
        r += folded;
      } else {
        AppendUtf8(cp, &r);
      }
    }
    return r;
  }

  TokenizerParams p_;
  Base base_;
  std::unordered_set<std::string> stop_words_;
};

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::Make(const TokenizerParams& params) {
  Base base;
  if (params.base_tokenizer == "simple") {
    base = Base::kSimple;
  } else if (params.base_tokenizer == "whitespace") {
    base = Base::kWhitespace;
  } else if (params.base_tokenizer == "raw") {
    base = Base::kRaw;
  } else {
    return Status::InvalidArgument("base_tokenizer: Lancet supports simple, whitespace and raw, not '" +
                                   params.base_tokenizer + "'");
  }
  if (std::find(kLanguages.begin(), kLanguages.end(), params.language) == kLanguages.end()) {
    return Status::InvalidArgument("language: unknown language '" + params.language + "'");
  }
  // Other languages' stemmers and lists exist in the reference, but only English is
  // checked against it; refusing beats writing tokens the reference would not match.
  const bool english = params.language == "English";
  if (params.stem && !english) {
    return Status::InvalidArgument("language: Lancet stems only English, not " + params.language);
  }
  std::unordered_set<std::string> stop_words;
  if (params.remove_stop_words) {
    if (params.custom_stop_words) {
      stop_words.insert(params.custom_stop_words->begin(), params.custom_stop_words->end());
    } else {
      const auto words = BuiltInStopWords(params.language);
      if (words.empty()) {
        return Status::InvalidArgument("language: Lancet has no stop words for " + params.language);
      }
      for (std::string_view w : words) stop_words.emplace(w);
    }
  }
  return std::unique_ptr<Tokenizer>(new Analyzer(params, base, std::move(stop_words)));
}

}  // namespace lancet::index::fts
