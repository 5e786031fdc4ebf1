// Extra global buffers and schema metadata, which index files carry (LabelList's null
// lists in global buffer 1, the BTree's batch_size), round-trip through the file.
#include <gtest/gtest.h>

#include "lancet/format/file_reader.h"
#include "lancet/format/file_writer.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

std::unique_ptr<FileReader> OpenFile(const std::shared_ptr<io::ObjectStore>& store, const std::string& path) {
  auto file = store->OpenRead(path);
  EXPECT_TRUE(file.ok());
  auto reader = FileReader::Open(std::shared_ptr<io::RandomAccessFile>(file.MoveValue()));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? reader.MoveValue() : nullptr;
}

TEST(GlobalBufferTest, BuffersBeforeAndAfterPagesAndMetadataReadBack) {
  auto store = io::NewMemoryStore();
  Schema schema;
  schema.fields = {MakeField("x", MakeType(TypeId::kInt32))};
  schema.metadata = {{"batch_size", "4096"}, {"lance:label_list_nulls", "1"}};
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(store, "f.lance", schema));
  const std::vector<uint8_t> first = {0, 0, 0, 0}, second = {1, 2, 3, 4, 5, 6, 7};
  ASSERT_OK_AND_ASSIGN(uint32_t i1, writer->WriteGlobalBuffer(first));
  EXPECT_EQ(i1, 1u);
  ASSERT_OK_AND_ASSIGN(Array x, ArrayFromVector<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3}));
  ASSERT_OK(writer->Write(RecordBatch{writer->schema(), 3, {x}}));
  ASSERT_OK_AND_ASSIGN(uint32_t i2, writer->WriteGlobalBuffer(second));
  EXPECT_EQ(i2, 2u);
  ASSERT_OK(writer->Finish().status());

  auto reader = OpenFile(store, "f.lance");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->file_schema().metadata, schema.metadata);
  ASSERT_OK_AND_ASSIGN(BufferPtr b1, reader->ReadGlobalBuffer(1));
  EXPECT_EQ(std::vector<uint8_t>(b1->data(), b1->data() + b1->size()), first);
  ASSERT_OK_AND_ASSIGN(BufferPtr b2, reader->ReadGlobalBuffer(2));
  EXPECT_EQ(std::vector<uint8_t>(b2->data(), b2->data() + b2->size()), second);
  ASSERT_OK_AND_ASSIGN(BufferPtr b0, reader->ReadGlobalBuffer(0));
  EXPECT_GT(b0->size(), 0u);  // the FileDescriptor
  auto missing = reader->ReadGlobalBuffer(3);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsCorruption());
  EXPECT_NE(missing.status().ToString().find("f.lance"), std::string::npos);
  const int column = 0;
  ASSERT_OK_AND_ASSIGN(Array back, reader->ReadRange(reader->file_schema().fields[0], {&column, 1}, 0, 3));
  EXPECT_TRUE(ArraysEqual(back, x));
}

TEST(GlobalBufferTest, FirstBufferOfAnIndexFileSitsAtOffsetZero) {
  auto store = io::NewMemoryStore();
  Schema schema;
  schema.fields = {MakeField("x", MakeType(TypeId::kInt32))};
  ASSERT_OK_AND_ASSIGN(auto writer, FileWriter::Open(store, "f.lance", schema));
  const std::vector<uint8_t> nulls = {0, 0, 0, 0};
  ASSERT_OK(writer->WriteGlobalBuffer(nulls).status());
  ASSERT_OK(writer->Finish().status());
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead("f.lance"));
  ASSERT_OK_AND_ASSIGN(BufferPtr head, file->ReadAt(0, 4));
  EXPECT_EQ(std::vector<uint8_t>(head->data(), head->data() + 4), nulls);
}

}  // namespace
}  // namespace lancet::format
