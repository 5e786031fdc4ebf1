// The reference's full-text analyzer: base tokenizer, then the filters InvertedIndexParams
// switch on. Tokens must equal the reference's byte for byte: the index stores them as
// FST keys and queries look them up. Internal to the index layer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lancet/result.h"

namespace lancet::index::fts {

/// The analyzer options of InvertedIndexParams (the index's `params` metadata).
struct TokenizerParams {
  std::string base_tokenizer = "simple";  // "simple" | "whitespace" | "raw"
  std::string language = "English";
  uint32_t max_token_length = 40;  // 0: no limit (the reference's null)
  bool lower_case = true;
  bool stem = true;
  bool remove_stop_words = true;
  std::optional<std::vector<std::string>> custom_stop_words;
  bool ascii_folding = true;
};

/// One token: its text after every filter and its position (what phrase queries compare).
struct Token {
  std::string text;
  uint32_t position = 0;
};

/// \brief Turns text into tokens as the reference does for the same params.
///
/// Thread-safe: Tokenize keeps no state between calls.
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  /// InvalidArgument naming the option for params the reference would refuse or that
  /// Lancet does not support (e.g. an unknown language or base tokenizer).
  static Result<std::unique_ptr<Tokenizer>> Make(const TokenizerParams& params);
  /// Appends the tokens of `text` (UTF-8; invalid bytes are handled as the reference's
  /// String conversion would see them) to `out`.
  virtual void Tokenize(std::string_view text, std::vector<Token>* out) const = 0;
};

}  // namespace lancet::index::fts
