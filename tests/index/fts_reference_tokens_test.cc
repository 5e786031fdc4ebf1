// The full-text analyzer and FST map against the reference (lance 12 through the Node
// peer): for each analyzer setting, the terms of the reference's FTS index (the keys of
// its `_token_fst_bytes` FST) are exactly the tokens Lancet's Tokenizer makes of the same
// texts, and Lancet's FST builder reproduces the reference's FST. Skipped when node or the
// peer is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/peer.h"
#include "index/fst.h"
#include "index/fts_tokenizer.h"
#include "index/index_file.h"
#include "lancet/io/object_store.h"
#include "util/test_macros.h"

namespace lancet::index::fts {
namespace {

namespace fs = std::filesystem;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str(), nullptr, false);
}

std::string Printable(const std::string& s) {
  std::string r;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      r += buf;
    } else {
      r.push_back(static_cast<char>(c));
    }
  }
  return r;
}

class FtsReferenceTokensTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::PeerScratchDir("lancet-ftsref");
    if (dir_.empty()) return;
    const std::string cmd = "LANCE_PEER_DIR='" + testing::PeerInstallDir() +
                            "' node '" LANCET_SOURCE_DIR "/tests/index/fts_reference_tokens.mjs' '" +
                            testing::PeerHarnessDir() + "/lib/peer.mjs' '" + dir_ + "' >'" + dir_ + "/peer.out' 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty() && std::getenv("LANCET_KEEP_PEER_DIR") == nullptr) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "node or the reference peer is not installed";
    ASSERT_TRUE(ok_) << "the peer script failed; see " << dir_ << "/peer.out";
  }

  // The reference's FST of `variant` (its one partition's token dictionary).
  static Result<std::string> ReferenceFst(const std::string& variant) {
    std::string segment;
    for (const auto& e : fs::directory_iterator(dir_ + "/" + variant + ".lance/_indices")) segment = e.path().string();
    auto store = io::LocalFileSystem();
    ASSIGN_OR_RETURN(auto file, OpenIndexFile(*store, segment, "part_0_tokens.lance"));
    ASSIGN_OR_RETURN(Array col, ReadIndexColumn(*file, 0, 0, 1));
    return std::string(col.GetView(0));
  }

  static inline std::string dir_;
  static inline bool ok_ = false;
};

TokenizerParams ParamsOf(const nlohmann::json& j) {
  TokenizerParams p;
  p.base_tokenizer = j["base_tokenizer"].get<std::string>();
  p.language = j["language"].get<std::string>();
  p.max_token_length = j["max_token_length"].get<uint32_t>();
  p.lower_case = j["lower_case"].get<bool>();
  p.stem = j["stem"].get<bool>();
  p.remove_stop_words = j["remove_stop_words"].get<bool>();
  p.ascii_folding = j["ascii_folding"].get<bool>();
  if (!j["custom_stop_words"].is_null()) p.custom_stop_words = j["custom_stop_words"].get<std::vector<std::string>>();
  return p;
}

TEST_F(FtsReferenceTokensTest, TermsEqualLancetTokens) {
  const auto texts = ReadJson(dir_ + "/texts.json");
  const auto variants = ReadJson(dir_ + "/variants.json");
  ASSERT_TRUE(texts.is_array() && variants.is_array());
  ASSERT_GE(variants.size(), 9u);
  for (const auto& v : variants) {
    const std::string name = v["name"].get<std::string>();
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto tokenizer, Tokenizer::Make(ParamsOf(v["params"])));
    std::set<std::string> ours;
    std::vector<Token> tokens;
    for (const auto& t : texts) {
      tokens.clear();
      tokenizer->Tokenize(t.get<std::string>(), &tokens);
      for (auto& tok : tokens) ours.insert(std::move(tok.text));
    }
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReferenceFst(name));
    ASSERT_OK_AND_ASSIGN(auto map, fst::Map::Open(bytes, name + " tokens"));
    std::set<std::string> theirs;
    ASSERT_OK(map.ForEach([&](std::string_view k, uint64_t) {
      theirs.emplace(k);
      return true;
    }));
    std::string only_ours, only_theirs;
    size_t n_ours = 0, n_theirs = 0;
    for (const auto& s : ours) {
      if (!theirs.count(s) && n_ours++ < 60) only_ours += " [" + Printable(s) + "]";
    }
    for (const auto& s : theirs) {
      if (!ours.count(s) && n_theirs++ < 60) only_theirs += " [" + Printable(s) + "]";
    }
    EXPECT_EQ(n_ours + n_theirs, 0u) << n_ours << " only Lancet's:" << only_ours << "\n"
                                     << n_theirs << " only the reference's:" << only_theirs;
    EXPECT_GT(theirs.size(), 100u);
  }
}

TEST_F(FtsReferenceTokensTest, BuilderReproducesTheReferenceFst) {
  const auto variants = ReadJson(dir_ + "/variants.json");
  ASSERT_TRUE(variants.is_array());
  for (const auto& v : variants) {
    const std::string name = v["name"].get<std::string>();
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReferenceFst(name));
    ASSERT_OK_AND_ASSIGN(auto theirs, fst::Map::Open(bytes, name + " tokens"));
    std::vector<std::pair<std::string, uint64_t>> entries;
    ASSERT_OK(theirs.ForEach([&](std::string_view k, uint64_t value) {
      entries.emplace_back(std::string(k), value);
      return true;
    }));
    ASSERT_EQ(entries.size(), theirs.size());
    ASSERT_OK_AND_ASSIGN(std::string built, fst::BuildMap(entries));
    ASSERT_OK_AND_ASSIGN(auto ours, fst::Map::Open(built, "built"));
    for (const auto& [k, value] : entries) {
      ASSERT_OK_AND_ASSIGN(auto got, ours.Get(k));
      ASSERT_EQ(got, value) << k;
      ASSERT_OK_AND_ASSIGN(auto again, theirs.Get(k));
      ASSERT_EQ(again, value) << k;
    }
    ASSERT_OK_AND_ASSIGN(auto absent, theirs.Get("\xff-not-a-term"));
    EXPECT_FALSE(absent.has_value());
    // The builder follows the crate's, so the bytes are the same.
    EXPECT_EQ(built.size(), bytes.size());
    EXPECT_TRUE(built == bytes) << "Lancet's FST differs from the reference's";
  }
}

}  // namespace
}  // namespace lancet::index::fts
