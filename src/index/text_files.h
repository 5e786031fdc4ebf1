// The files of a full-text index segment (metadata.lance and, per partition,
// part_<p>_tokens/docs/invert.lance) as the reference lays them out. Internal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/fst.h"
#include "index/fts_params.h"
#include "index/fts_posting.h"
#include "index/scalar_index.h"
#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "lancet/io/object_store.h"

namespace lancet::index {

Result<IndexFileEntry> WriteTextTokens(std::shared_ptr<io::ObjectStore> store, const std::string& dir, uint32_t id,
                                       const std::string& fst, uint32_t next_id, uint64_t total_length);
Result<IndexFileEntry> WriteTextDocs(std::shared_ptr<io::ObjectStore> store, const std::string& dir, uint32_t id,
                                     const std::vector<uint64_t>& rows, const std::vector<uint32_t>& lengths,
                                     uint64_t total_tokens);
Result<IndexFileEntry> WriteTextMetadata(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                         const fts::IndexParams& params, const std::vector<uint32_t>& partitions);

/// Writes part_<p>_invert.lance a few hundred terms at a time, in term id order.
class TextInvertWriter {
 public:
  static Result<std::unique_ptr<TextInvertWriter>> Open(std::shared_ptr<io::ObjectStore> store, const std::string& dir,
                                                        uint32_t id, bool with_position);
  Status Add(fts::EncodedPostings postings);
  Result<IndexFileEntry> Finish();

 private:
  TextInvertWriter() = default;
  Status Flush();
  bool with_position_ = false;
  std::string name_;
  std::unique_ptr<format::FileWriter> writer_;
  std::vector<fts::EncodedPostings> pending_;
};

/// metadata.lance: the params and the partition ids.
struct TextMetadata {
  fts::IndexParams params;
  std::vector<uint32_t> partitions;
};
Result<TextMetadata> ReadTextMetadata(const io::ObjectStore& store, const std::string& dir);

/// One partition, opened: its terms, its docs (rows and lengths) and per-term statistics;
/// postings stay in the invert file until a query reads them.
struct TextPartition {
  uint32_t id = 0;
  std::unique_ptr<fst::Map> terms;
  std::vector<uint64_t> rows;     // doc → row id/address
  std::vector<uint32_t> lengths;  // doc → tokens
  uint64_t total_tokens = 0;
  std::vector<uint32_t> doc_freq;  // term → docs containing it
  std::unique_ptr<format::FileReader> invert;
  bool positions = false;
};
Result<std::unique_ptr<TextPartition>> ReadTextPartition(const io::ObjectStore& store, const std::string& dir,
                                                         uint32_t id, bool with_position);

/// The `_posting` blocks of `term`, decoded.
Result<fts::DecodedPostings> ReadTermPostings(const TextPartition& part, uint32_t term);
/// The positions of every doc of `term`'s posting list (needs an index with positions).
Result<std::vector<std::vector<uint32_t>>> ReadTermPositions(const TextPartition& part, uint32_t term,
                                                             const std::vector<uint32_t>& freqs);

}  // namespace lancet::index
