#include "lancet/record_batch_reader.h"

#include <utility>

namespace lancet {
namespace {

class BatchVectorReader final : public RecordBatchReader {
 public:
  BatchVectorReader(Schema schema, std::vector<RecordBatch> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}

  const Schema& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= batches_.size()) return std::optional<RecordBatch>();
    // Moved out so a consumer that drops each batch frees it as it goes.
    return std::optional<RecordBatch>(std::move(batches_[next_++]));
  }

 private:
  Schema schema_;
  std::vector<RecordBatch> batches_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<RecordBatchReader> MakeBatchVectorReader(Schema schema, std::vector<RecordBatch> batches) {
  return std::make_unique<BatchVectorReader>(std::move(schema), std::move(batches));
}

Result<std::vector<RecordBatch>> ReadAllBatches(RecordBatchReader& reader) {
  std::vector<RecordBatch> out;
  while (true) {
    ASSIGN_OR_RETURN(auto batch, reader.Next());
    if (!batch) return out;
    out.push_back(std::move(*batch));
  }
}

}  // namespace lancet
