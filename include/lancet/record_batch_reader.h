// RecordBatchReader: a stream of record batches pulled one at a time, so a producer
// (a scan, an import source) never has to hold the whole data set in memory.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "lancet/array.h"
#include "lancet/result.h"

namespace lancet {

class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  /// The schema every batch has.
  virtual const Schema& schema() const = 0;
  /// The next batch, or nullopt once the stream is exhausted. After an error the
  /// reader is spent: later calls repeat an error or return nullopt, never data.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

/// A reader handing out `batches` (all of schema `schema`) in order.
std::unique_ptr<RecordBatchReader> MakeBatchVectorReader(Schema schema, std::vector<RecordBatch> batches);

/// Drains `reader` into memory: for tests and for callers that want everything anyway.
Result<std::vector<RecordBatch>> ReadAllBatches(RecordBatchReader& reader);

}  // namespace lancet
