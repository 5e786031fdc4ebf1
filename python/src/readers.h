// Record batch streams crossing the module boundary in both directions.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>

#include "errors.h"
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

 private:
  Schema schema_;
  std::shared_ptr<const void> keep_alive_;
  // Python threads may share one reader: Next, Close and Take serialise on mu_, which
  // is only ever taken with the GIL released (a Python source takes the GIL in Next).
  std::mutex mu_;
  std::unique_ptr<RecordBatchReader> reader_;
};

/// Re-raises the Python exception a Python iterator source raised while `reader` was
/// drained (the drain only saw it as a Status). REQUIRES: the GIL.
void RethrowSourceError(RecordBatchReader& reader);

/// \brief Takes the reader out of `source` and runs `drain` on it with the GIL released,
/// then destroys it; a Python exception the source raised is re-raised as itself.
template <typename T, typename Drain>
Result<T> DrainSource(PyReader& source, Drain&& drain) {
  std::unique_ptr<RecordBatchReader> reader = source.Take();
  Result<T> result = WithoutGil([&] { return drain(*reader); });
  RethrowSourceError(*reader);
  pybind11::gil_scoped_release nogil;
  reader.reset();
  return result;
}

}  // namespace lancet::python
