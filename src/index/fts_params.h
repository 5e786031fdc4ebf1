// The options of a full-text (inverted) index as the reference records them twice: the
// JSON `params` of metadata.lance and the InvertedIndexDetails of IndexMetadata.
// Internal to the index layer.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "index/fts_tokenizer.h"
#include "lancet/result.h"

namespace lancet::index::fts {

inline constexpr const char* kInvertedTypeUrl = "/lance.table.InvertedIndexDetails";
/// The index_version lance 12 writes for format-2 postings.
inline constexpr int32_t kInvertedIndexVersion = 2;

struct IndexParams {
  TokenizerParams tokenizer;
  bool with_position = false;
};

/// `{"lance_tokenizer":"text","base_tokenizer":...}` with the reference's keys, in its order.
std::string ParamsJson(const IndexParams& params);
/// Parses metadata.lance's `params`; keys it lacks keep their defaults. Corruption naming
/// `what` for malformed JSON; NotSupported for settings Lancet cannot tokenize with.
Result<IndexParams> ParseParamsJson(const std::string& json, const std::string& what);
/// The serialized InvertedIndexDetails message.
std::string SerializeDetails(const IndexParams& params);

/// The user's `--param key=value` settings (the reference's names: base_tokenizer,
/// language, with_position, max_token_length, lower_case, stem, remove_stop_words,
/// ascii_folding, custom_stop_words as comma-separated words); InvalidArgument for
/// unknown keys or values.
Result<IndexParams> ParamsFromOptions(const std::map<std::string, std::string>& options);

}  // namespace lancet::index::fts
