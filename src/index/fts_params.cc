#include "index/fts_params.h"

#include <nlohmann/json.hpp>

namespace lancet::index::fts {
namespace {

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void PutString(std::string& out, uint32_t field, const std::string& s) {
  PutVarint(out, (field << 3) | 2);
  PutVarint(out, s.size());
  out += s;
}
void PutUint(std::string& out, uint32_t field, uint64_t v) {
  PutVarint(out, field << 3);
  PutVarint(out, v);
}

Result<bool> ParseBool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return Status::InvalidArgument("fts parameter " + key + " takes true or false, not '" + v + "'");
}

}  // namespace

std::string ParamsJson(const IndexParams& params) {
  const TokenizerParams& t = params.tokenizer;
  nlohmann::ordered_json j;
  j["lance_tokenizer"] = "text";
  j["base_tokenizer"] = t.base_tokenizer;
  j["language"] = t.language;
  j["with_position"] = params.with_position;
  if (t.max_token_length > 0) {
    j["max_token_length"] = t.max_token_length;
  } else {
    j["max_token_length"] = nullptr;
  }
  j["lower_case"] = t.lower_case;
  j["stem"] = t.stem;
  j["remove_stop_words"] = t.remove_stop_words;
  if (t.custom_stop_words) {
    j["custom_stop_words"] = *t.custom_stop_words;
  } else {
    j["custom_stop_words"] = nullptr;
  }
  j["ascii_folding"] = t.ascii_folding;
  // Ngram settings apply only to the ngram base tokenizer, which Lancet does not write;
  // they are recorded with the reference's defaults.
  j["min_ngram_length"] = 3;
  j["max_ngram_length"] = 3;
  j["prefix_only"] = false;
  j["block_size"] = 128;
  j["split_identifiers"] = false;
  j["split_on_numerics"] = false;
  j["preserve_original"] = false;
  j["index_operators"] = false;
  return j.dump();
}

Result<IndexParams> ParseParamsJson(const std::string& json, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption(what + ": params are not a JSON object");
  IndexParams p;
  TokenizerParams& t = p.tokenizer;
  auto get_bool = [&](const char* key, bool& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::OK();
    if (!it->is_boolean()) return Status::Corruption(what + ": params." + key + " is not a boolean");
    out = it->get<bool>();
    return Status::OK();
  };
  auto get_string = [&](const char* key, std::string& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::OK();
    if (!it->is_string()) return Status::Corruption(what + ": params." + key + " is not a string");
    out = it->get<std::string>();
    return Status::OK();
  };
  RETURN_IF_ERROR(get_string("base_tokenizer", t.base_tokenizer));
  RETURN_IF_ERROR(get_string("language", t.language));
  RETURN_IF_ERROR(get_bool("with_position", p.with_position));
  RETURN_IF_ERROR(get_bool("lower_case", t.lower_case));
  RETURN_IF_ERROR(get_bool("stem", t.stem));
  RETURN_IF_ERROR(get_bool("remove_stop_words", t.remove_stop_words));
  RETURN_IF_ERROR(get_bool("ascii_folding", t.ascii_folding));
  auto len = j.find("max_token_length");
  if (len != j.end()) {
    if (len->is_null()) {
      t.max_token_length = 0;
    } else if (len->is_number_unsigned() && len->get<uint64_t>() <= UINT32_MAX) {
      t.max_token_length = len->get<uint32_t>();
    } else {
      return Status::Corruption(what + ": params.max_token_length is not a length");
    }
  }
  auto stop = j.find("custom_stop_words");
  if (stop != j.end() && !stop->is_null()) {
    if (!stop->is_array()) return Status::Corruption(what + ": params.custom_stop_words is not a list");
    std::vector<std::string> words;
    for (const auto& w : *stop) {
      if (!w.is_string()) return Status::Corruption(what + ": params.custom_stop_words holds a non-string");
      words.push_back(w.get<std::string>());
    }
    t.custom_stop_words = std::move(words);
  }
  std::string lance_tokenizer = "text";
  RETURN_IF_ERROR(get_string("lance_tokenizer", lance_tokenizer));
  if (lance_tokenizer != "text") {
    return Status::NotSupported(what + ": the '" + lance_tokenizer + "' document tokenizer is not supported");
  }
  for (const char* flag :
       {"prefix_only", "split_identifiers", "split_on_numerics", "preserve_original", "index_operators"}) {
    bool on = false;
    RETURN_IF_ERROR(get_bool(flag, on));
    if (on) return Status::NotSupported(what + ": the tokenizer option " + std::string(flag) + " is not supported");
  }
  return p;
}

std::string SerializeDetails(const IndexParams& params) {
  const TokenizerParams& t = params.tokenizer;
  std::string out;
  PutString(out, 1, t.base_tokenizer);
  // The reference stores the language as its JSON form, quotes included.
  PutString(out, 2, nlohmann::json(t.language).dump());
  if (params.with_position) PutUint(out, 3, 1);
  if (t.max_token_length > 0) PutUint(out, 4, t.max_token_length);
  PutUint(out, 5, t.lower_case ? 1 : 0);
  PutUint(out, 6, t.stem ? 1 : 0);
  PutUint(out, 7, t.remove_stop_words ? 1 : 0);
  PutUint(out, 8, t.ascii_folding ? 1 : 0);
  PutUint(out, 9, 3);
  PutUint(out, 10, 3);
  PutUint(out, 12, 128);
  PutUint(out, 15, 2);
  return out;
}

Result<IndexParams> ParamsFromOptions(const std::map<std::string, std::string>& options) {
  IndexParams p;
  TokenizerParams& t = p.tokenizer;
  for (const auto& [key, value] : options) {
    if (key == "base_tokenizer") {
      t.base_tokenizer = value;
    } else if (key == "language") {
      t.language = value;
    } else if (key == "with_position") {
      ASSIGN_OR_RETURN(p.with_position, ParseBool(key, value));
    } else if (key == "lower_case") {
      ASSIGN_OR_RETURN(t.lower_case, ParseBool(key, value));
    } else if (key == "stem") {
      ASSIGN_OR_RETURN(t.stem, ParseBool(key, value));
    } else if (key == "remove_stop_words") {
      ASSIGN_OR_RETURN(t.remove_stop_words, ParseBool(key, value));
    } else if (key == "ascii_folding") {
      ASSIGN_OR_RETURN(t.ascii_folding, ParseBool(key, value));
    } else if (key == "max_token_length") {
      char* end = nullptr;
      const unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n > UINT32_MAX) {
        return Status::InvalidArgument("fts parameter max_token_length takes a whole number (0: no limit)");
      }
      t.max_token_length = static_cast<uint32_t>(n);
    } else if (key == "custom_stop_words") {
      std::vector<std::string> words;
      size_t begin = 0;
      while (begin <= value.size()) {
        const size_t comma = value.find(',', begin);
        const size_t end = comma == std::string::npos ? value.size() : comma;
        if (end > begin) words.push_back(value.substr(begin, end - begin));
        begin = end + 1;
      }
      t.custom_stop_words = std::move(words);
    } else {
      return Status::InvalidArgument("unknown fts parameter '" + key +
                                     "' (base_tokenizer, language, with_position, max_token_length, lower_case, "
                                     "stem, remove_stop_words, ascii_folding, custom_stop_words)");
    }
  }
  // Refuse what the tokenizer cannot do before anything is built.
  RETURN_IF_ERROR(Tokenizer::Make(t).status());
  return p;
}

}  // namespace lancet::index::fts
