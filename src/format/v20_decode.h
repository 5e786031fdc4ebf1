// Decoders of Lance 2.0 page encodings: the lance.encodings.ArrayEncoding tree
// (the format notes (lance-format-notes.md) §6; reference
// protos/encodings_v2_0.proto). Bytes in, DataBlocks out; no I/O. Private to the
// format layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "encoding/data_block.h"
#include "lance_proto/encodings_v2_0.pb.h"
#include "lancet/result.h"

namespace lancet::format::internal {

namespace pb20 = ::lance::encodings;

/// The buffers a 2.0 encoding tree can point at (Buffer.buffer_type page / column).
struct V20Buffers {
  std::vector<BufferPtr> page;
  std::vector<BufferPtr> column;
};

/// Values decoded from a 2.0 array encoding.
struct V20Array {
  encoding::DataBlock values;  // num_values values; kEmpty when every value is null
  std::vector<uint8_t> valid;  // one byte per value, 1 = valid; empty = all valid
};

/// Decodes `num_values` values of a leaf (non-list, non-struct) encoding tree: Flat,
/// Nullable, FixedSizeList, Binary, Dictionary (index 0 = null), Fsst, FixedSizeBinary,
/// PackedStruct, Bitpacked, BitpackedForNonNeg and Constant. Corruption for bytes that
/// do not match the tree; NotSupported naming any other encoding.
Result<V20Array> DecodeV20Array(const pb20::ArrayEncoding& encoding, const V20Buffers& buffers,
                                uint64_t num_values);

/// A 2.0 list page: where each of its lists starts in the page's items.
struct V20ListPage {
  std::vector<uint64_t> offsets;  // num_rows + 1, page-relative, offsets[0] == 0
  std::vector<uint8_t> valid;     // one byte per list, 1 = valid
  uint64_t num_items = 0;         // items the page's lists reference
};

/// Decodes the offsets of a List page of `num_rows` lists. Corruption for offsets that
/// go backwards or past List.num_items.
Result<V20ListPage> DecodeV20List(const pb20::List& list, const V20Buffers& buffers, uint64_t num_rows);

/// A readable name of a 2.0 encoding tree, e.g. "Nullable(some, Flat(32))".
std::string DescribeV20Encoding(const pb20::ArrayEncoding& encoding);

}  // namespace lancet::format::internal
