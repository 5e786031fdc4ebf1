// The streaming Arrow IPC reader and writer: a message at a time, the same bytes as
// the whole-buffer calls, errors at the batch where the input breaks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "format/ipc_reader.h"
#include "format/ipc_writer.h"
#include "lancet/io/input_stream.h"
#include "util/array_builder.h"
#include "util/array_json.h"
#include "util/test_macros.h"

namespace lancet::format {
namespace {

Schema TestSchema() {
  Schema s{{MakeField("id", MakeType(TypeId::kInt64)), MakeField("s", MakeType(TypeId::kUtf8))}, {{"k", "v"}}};
  s.fields[1].metadata["m"] = "1";
  return s;
}

RecordBatch Batch(int64_t first, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> strs;
  for (int64_t i = first; i < first + n; ++i) {
    ids.push_back(i);
    strs.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("v" + std::to_string(i)));
  }
  return RecordBatch{
      TestSchema(),
      n,
      {*ArrayFromVector(MakeType(TypeId::kInt64), ids), *MakeBinaryArray(MakeType(TypeId::kUtf8), strs)}};
}

std::vector<RecordBatch> Batches(int count) {
  std::vector<RecordBatch> out;
  for (int b = 0; b < count; ++b) out.push_back(Batch(b * 100, 100));
  return out;
}

void ExpectSameRows(const std::vector<RecordBatch>& got, const std::vector<RecordBatch>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t b = 0; b < got.size(); ++b) {
    ASSERT_EQ(got[b].num_rows, want[b].num_rows);
    for (size_t c = 0; c < want[b].columns.size(); ++c) {
      EXPECT_TRUE(ArraysEqual(got[b].columns[c], want[b].columns[c])) << "batch " << b << " column " << c;
    }
  }
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("lancet_ipc_stream_" + std::to_string(::getpid()) + name)).string();
}

void WriteFile(const std::string& path, const Buffer& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data_as<char>(), static_cast<std::streamsize>(bytes.size()));
}

TEST(IpcBatchWriter, SendsEachMessageAsItIsEncoded) {
  for (bool as_file : {false, true}) {
    std::vector<size_t> chunks;
    BufferBuilder all;
    auto sink = [&](std::span<const uint8_t> bytes) {
      chunks.push_back(bytes.size());
      all.Append(bytes.data(), bytes.size());
      return Status::OK();
    };
    ASSERT_OK_AND_ASSIGN(auto writer, IpcBatchWriter::Open(sink, TestSchema(), {}, as_file));
    EXPECT_EQ(chunks.size(), 1u);  // the schema, before any batch
    const auto batches = Batches(5);
    for (const RecordBatch& b : batches) ASSERT_OK(writer->Write(b));
    EXPECT_EQ(chunks.size(), 6u);
    ASSERT_OK(writer->Finish());
    EXPECT_EQ(chunks.size(), 7u);
    EXPECT_FALSE(writer->Write(batches[0]).ok());
    // The same bytes as the whole-buffer writer.
    ASSERT_OK_AND_ASSIGN(BufferPtr whole,
                         as_file ? WriteIpcFile(TestSchema(), batches) : WriteIpcStream(TestSchema(), batches));
    BufferPtr streamed = all.Finish();
    EXPECT_EQ(streamed->view(), whole->view()) << (as_file ? "file" : "stream");
  }
}

TEST(IpcBatchWriter, SinkErrorsAreReturned) {
  int calls = 0;
  auto sink = [&](std::span<const uint8_t>) { return ++calls > 2 ? Status::IOError("disk full") : Status::OK(); };
  ASSERT_OK_AND_ASSIGN(auto writer, IpcBatchWriter::Open(sink, TestSchema()));
  ASSERT_OK(writer->Write(Batch(0, 10)));
  Status st = writer->Write(Batch(10, 10));
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_EQ(st.message(), "disk full");
}

TEST(IpcStreamReader, ReadsAFileDescriptorBatchByBatch) {
  const auto batches = Batches(8);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcStream(TestSchema(), batches));
  const std::string path = TempPath("a.arrows");
  WriteFile(path, *bytes);
  ASSERT_OK_AND_ASSIGN(auto in, io::OpenInputStream(path));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenIpcStreamReader(std::move(in)));
  EXPECT_EQ(reader->schema().metadata.at("k"), "v");
  EXPECT_EQ(reader->schema().fields[1].metadata.at("m"), "1");
  ASSERT_OK_AND_ASSIGN(auto got, ReadAllBatches(*reader));
  ExpectSameRows(got, batches);
  std::filesystem::remove(path);
}

TEST(IpcStreamReader, TruncationFailsAtTheBrokenBatch) {
  const auto batches = Batches(4);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcStream(TestSchema(), batches));
  // Cut inside the last batch's body (the stream ends with an 8-byte end marker).
  BufferPtr cut = Buffer::Slice(bytes, 0, bytes->size() - 40);
  ASSERT_OK_AND_ASSIGN(auto reader, OpenIpcStreamReader(io::InputStreamFromBuffer(cut)));
  for (int b = 0; b < 3; ++b) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    ASSERT_TRUE(batch.has_value());
    EXPECT_EQ(batch->columns[0].values<int64_t>()[0], b * 100);
  }
  auto broken = reader->Next();
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), StatusCode::kCorruption);
  EXPECT_NE(broken.status().message().find("runs past the end of the data"), std::string::npos)
      << broken.status().message();
  // A spent reader repeats the error rather than yielding data.
  EXPECT_FALSE(reader->Next().ok());
}

TEST(IpcStreamReader, HugeClaimedLengthsAreCorruptionNotAllocations) {
  // A continuation marker and a metadata length of 2^31 - 1 followed by 8 bytes.
  std::string bytes(
      "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x7F"
      "12345678",
      16);
  auto r = OpenIpcStreamReader(io::InputStreamFromBuffer(Buffer::Copy(bytes)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(OpenIpcStreamReader(io::InputStreamFromBuffer(Buffer::Empty())).status().code(), StatusCode::kCorruption);
}

TEST(IpcFileReader, ReadsOneBlockPerBatch) {
  const auto batches = Batches(6);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcFile(TestSchema(), batches));
  const std::string path = TempPath("b.arrow");
  WriteFile(path, *bytes);
  auto fs = io::LocalFileSystem(/*map_reads=*/false);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const io::RandomAccessFile> file, fs->OpenRead(path));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenIpcFileReader(file));
  const uint64_t opening = fs->stats().Snapshot().read_requests;
  EXPECT_EQ(opening, 3u);  // leading magic, trailer, footer
  std::vector<RecordBatch> got;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    got.push_back(std::move(*batch));
    EXPECT_EQ(fs->stats().Snapshot().read_requests, opening + got.size());
  }
  ExpectSameRows(got, batches);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lancet::format
