#include "lancet/record_batch_reader.h"

#include <gtest/gtest.h>

#include "test_macros.h"

namespace lancet {
namespace {

RecordBatch EmptyBatch(const Schema& schema, int64_t rows) {
  RecordBatch batch;
  batch.schema = schema;
  batch.num_rows = rows;
  return batch;
}

TEST(RecordBatchReader, VectorReaderHandsOutEachBatchOnceThenEnds) {
  Schema schema;
  std::vector<RecordBatch> batches{EmptyBatch(schema, 3), EmptyBatch(schema, 5)};
  auto reader = MakeBatchVectorReader(schema, std::move(batches));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->num_rows, 3);
  ASSERT_OK_AND_ASSIGN(auto rest, ReadAllBatches(*reader));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].num_rows, 5);
  ASSERT_OK_AND_ASSIGN(auto end, reader->Next());
  EXPECT_FALSE(end.has_value());
}

}  // namespace
}  // namespace lancet
