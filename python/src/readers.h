// Record batch streams crossing the module boundary in both directions.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "lancet/record_batch_reader.h"

namespace lancet::python {

/// \brief A RecordBatchReader owned by Python: iterated from Python (the GIL released
/// while the next batch is read and decoded), exported as an Arrow stream, or handed to
/// a writer. Whatever the reader needs alive (its dataset) is held in `keep_alive`.
class PyReader {
 public:
  PyReader(std::unique_ptr<RecordBatchReader> reader, std::shared_ptr<const void> keep_alive);
  ~PyReader();

  const Schema& schema() const { return schema_; }
  /// The next batch, or nullopt at the end. Throws StatusError on a read error.
  std::optional<RecordBatch> Next();
  /// Ends the stream early, freeing the scan's buffers and threads.
  void Close();
  /// Moves the reader out, wrapped to keep what it needs alive (a stream is consumed
  /// once). InvalidArgument if it was consumed already.
  std::unique_ptr<RecordBatchReader> Take();
  /// The reader, for a writer that drains it while this object holds it. Call
  /// FinishBorrow afterwards (with the GIL held).
  RecordBatchReader& Borrow();
  /// Marks the reader consumed, and re-raises the Python exception an iterator source
  /// raised (the writer only saw it as a Status).
  void FinishBorrow();

 private:
  Schema schema_;
  std::shared_ptr<const void> keep_alive_;
  std::unique_ptr<RecordBatchReader> reader_;
};

}  // namespace lancet::python
