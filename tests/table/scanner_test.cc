// Dataset::NewScan: the streaming scanner against take on the corpus, projection,
// offset/limit, fragments, errors, filters (a property test against evaluating the
// filter in memory) and the I/O that late materialisation and early stops save.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "lancet/c_data.h"
#include "lancet/expr/filter.h"
#include "lancet/format/file_reader.h"
#include "lancet/table/dataset.h"
#include "lancet/table/write.h"
#include "table/table_test_util.h"
#include "util/array_builder.h"
#include "util/test_macros.h"

namespace lancet::table {
namespace {

// The batches' rows as one batch (schema of the first; `schema` when there is none).
RecordBatch Concat(const std::vector<RecordBatch>& batches, const Schema& schema) {
  RecordBatch out;
  out.schema = batches.empty() ? schema : batches.front().schema;
  for (size_t c = 0; c < out.schema.fields.size(); ++c) {
    std::vector<Array> parts;
    for (const RecordBatch& b : batches) parts.push_back(b.columns[c]);
    Result<Array> col = parts.empty() ? MakeNullArray(out.schema.fields[c].type, 0) : Concatenate(parts);
    EXPECT_TRUE(col.ok()) << col.status().ToString();
    out.columns.push_back(col.ok() ? *col : Array());
  }
  for (const RecordBatch& b : batches) out.num_rows += b.num_rows;
  return out;
}

Result<RecordBatch> ScanAll(const Dataset& ds, const ScanOptions& options) {
  ASSIGN_OR_RETURN(auto reader, ds.NewScan(options));
  ASSIGN_OR_RETURN(auto batches, ReadAllBatches(*reader));
  for (const RecordBatch& b : batches) {
    if (b.schema.fields != reader->schema().fields) return Status::Internal("batch schema differs from the reader's");
    if (b.num_rows == 0) return Status::Internal("empty batch handed out");
    if (b.num_rows > static_cast<int64_t>(options.batch_size)) return Status::Internal("batch over batch_size");
  }
  return Concat(batches, reader->schema());
}

void ExpectBatchesEqual(const RecordBatch& a, const RecordBatch& b) {
  ASSERT_EQ(a.num_rows, b.num_rows);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_TRUE(ArraysEqual(a.columns[c], b.columns[c])) << "column " << a.schema.fields[c].name;
  }
}

// Rows `rows` of every column.
RecordBatch Rows(const RecordBatch& batch, const std::vector<int64_t>& rows) {
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = static_cast<int64_t>(rows.size());
  for (const Array& col : batch.columns) out.columns.push_back(*TakeRows(col, rows));
  return out;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> r;
  for (int64_t i = begin; i < end; ++i) r.push_back(i);
  return r;
}

const std::vector<std::string> kCorpus = {"types", "types_extra",  "deletions",   "versions",       "evolution",
                                          "blobs", "blobs_custom", "nested_blob", "stable_row_ids", "v1_manifest_paths",
                                          "empty"};

class ScannerCorpusTest : public ::testing::TestWithParam<std::string> {};

// Every column of every row, scanned, equals the same rows taken by address; in any
// batch size, parallelism and order.
TEST_P(ScannerCorpusTest, ScanEqualsTake) {
  if (!testing::HasCorpusDataset(GetParam())) GTEST_SKIP() << "corpus dataset " << GetParam() << " absent";
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::CorpusDir() + "/data/" + GetParam() + ".lance"));
  ScanOptions options;
  options.with_row_addr = true;
  ASSERT_OK_AND_ASSIGN(RecordBatch scanned, ScanAll(*ds, options));
  ASSERT_EQ(static_cast<uint64_t>(scanned.num_rows), ds->CountRows());
  const Array& addr_col = scanned.columns.back();
  std::vector<uint64_t> addrs(addr_col.values<uint64_t>(), addr_col.values<uint64_t>() + addr_col.length);
  EXPECT_TRUE(std::is_sorted(addrs.begin(), addrs.end()));
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, ds->TakeRowAddresses(addrs));
  for (size_t c = 0; c + 1 < scanned.columns.size(); ++c) {
    EXPECT_TRUE(ArraysEqual(scanned.columns[c], taken.columns[c])) << scanned.schema.fields[c].name;
  }
  ScanOptions small = options;
  small.batch_size = 3;
  small.io_parallelism = 3;
  small.batch_readahead = 1;
  ASSERT_OK_AND_ASSIGN(RecordBatch again, ScanAll(*ds, small));
  ExpectBatchesEqual(scanned, again);
  // Unordered: the same rows, in some order; sorted by address they match.
  small.ordered = false;
  ASSERT_OK_AND_ASSIGN(RecordBatch unordered, ScanAll(*ds, small));
  const Array& ua = unordered.columns.back();
  std::vector<int64_t> order = Range(0, ua.length);
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return ua.values<uint64_t>()[x] < ua.values<uint64_t>()[y]; });
  ExpectBatchesEqual(scanned, Rows(unordered, order));
  // Scan() is the same stream drained.
  ASSERT_OK_AND_ASSIGN(auto batches, ds->Scan(options));
  ExpectBatchesEqual(scanned, Concat(batches, scanned.schema));
}

INSTANTIATE_TEST_SUITE_P(Corpus, ScannerCorpusTest, ::testing::ValuesIn(kCorpus),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// A nested struct of the corpus read through a path equals that member of the whole read.
TEST(ScannerNested, PathsPruneStructs) {
  if (!testing::HasCorpusDataset("types")) GTEST_SKIP() << "corpus absent";
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(testing::CorpusDir() + "/data/types.lance"));
  int checked = 0;
  for (const Field& top : ds->read_schema().fields) {
    if (top.type.id != TypeId::kStruct || top.type.children.empty()) continue;
    ScanOptions whole;
    whole.columns = {top.name};
    ASSERT_OK_AND_ASSIGN(RecordBatch full, ScanAll(*ds, whole));
    for (size_t c = 0; c < top.type.children.size(); ++c) {
      const Field& member = top.type.children[c];
      ScanOptions path;
      path.columns = {top.name + "." + member.name};
      auto got = ScanAll(*ds, path);
      if (!got.ok() && got.status().IsInvalidArgument()) continue;  // a packed struct has no members to pick
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ(got->schema.fields.size(), 1u);
      EXPECT_EQ(got->schema.fields[0].name, top.name);
      ASSERT_EQ(got->schema.fields[0].type.children.size(), 1u);
      EXPECT_EQ(got->schema.fields[0].type.children[0].name, member.name);
      ASSERT_EQ(got->num_rows, full.num_rows);
      const Array& s = got->columns[0];
      const Array& f = full.columns[0];
      for (int64_t r = 0; r < full.num_rows; ++r) EXPECT_EQ(s.IsValid(r), f.IsValid(r)) << top.name << " row " << r;
      std::vector<int64_t> all = Range(0, full.num_rows);
      ASSERT_OK_AND_ASSIGN(Array want, TakeRows(f.children[c], all));
      ASSERT_OK_AND_ASSIGN(Array have, TakeRows(s.children[0], all));
      EXPECT_TRUE(ArraysEqual(want, have)) << top.name << "." << member.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "the types corpus has no struct with members";
}

// ---- a dataset of our own: 6 fragments of 500 rows, some rows deleted ----

constexpr int64_t kFragRows = 500;
constexpr int64_t kFrags = 6;

Schema TestSchema() {
  Schema s;
  s.fields = {
      MakeField("id", MakeType(TypeId::kInt64), false),
      MakeField("v", MakeType(TypeId::kInt64)),
      MakeField("x", MakeType(TypeId::kFloat64)),
      MakeField("name", MakeType(TypeId::kUtf8)),
      MakeField("s", StructOf({MakeField("a", MakeType(TypeId::kInt32)), MakeField("b", MakeType(TypeId::kUtf8))})),
      MakeField("payload", MakeType(TypeId::kBinary), false)};
  return s;
}

// Rows [begin, begin + n): random values with nulls (seeded by row), a 2 KiB payload.
RecordBatch TestRows(int64_t begin, int64_t n, size_t payload = 2048) {
  std::vector<int64_t> ids, vs;
  std::vector<double> xs;
  std::vector<int32_t> as;
  std::vector<bool> v_valid, x_valid, a_valid, s_valid;
  std::vector<std::optional<std::string>> names, bs, payloads;
  for (int64_t i = begin; i < begin + n; ++i) {
    std::mt19937_64 rng(static_cast<uint64_t>(i) * 7919 + 1);
    ids.push_back(i);
    vs.push_back(static_cast<int64_t>(rng() % 1000));
    v_valid.push_back(rng() % 10 != 0);
    xs.push_back(static_cast<double>(rng() % 2000) / 8.0 - 100);
    x_valid.push_back(rng() % 7 != 0);
    names.push_back(rng() % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(rng() % 50)));
    as.push_back(static_cast<int32_t>(rng() % 100) - 50);
    a_valid.push_back(rng() % 6 != 0);
    bs.push_back(rng() % 4 == 0 ? std::nullopt : std::optional<std::string>(std::string(1, char('a' + rng() % 26))));
    s_valid.push_back(rng() % 9 != 0);
    std::string p(payload, '\0');
    for (char& ch : p) ch = static_cast<char>(rng());
    payloads.push_back(std::move(p));
  }
  Schema schema = TestSchema();
  RecordBatch b;
  b.schema = schema;
  b.num_rows = n;
  b.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), ids));
  b.columns.push_back(*ArrayFromVector(MakeType(TypeId::kInt64), vs, v_valid));
  b.columns.push_back(*ArrayFromVector(MakeType(TypeId::kFloat64), xs, x_valid));
  b.columns.push_back(StringArray(names));
  b.columns.push_back(*MakeStructArray(
      schema.fields[4].type, n, {*ArrayFromVector(MakeType(TypeId::kInt32), as, a_valid), StringArray(bs)}, s_valid));
  b.columns.push_back(*MakeBinaryArray(MakeType(TypeId::kBinary), payloads));
  return b;
}

class ScannerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    store_ = io::NewMemoryStore();
    const std::shared_ptr<io::ObjectStore>& store = store_;
    std::vector<RecordBatch> batches;
    for (int64_t f = 0; f < kFrags; ++f) batches.push_back(TestRows(f * kFragRows, kFragRows));
    WriteParams params;
    params.max_rows_per_file = kFragRows;
    ASSERT_OK(WriteDataset(store, "t", TestSchema(), std::move(batches), params).status());
    ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "t"));
    // Delete every 13th row of fragment 1 and all of fragment 4's first 100.
    std::vector<uint64_t> gone;
    for (uint64_t o = 0; o < kFragRows; o += 13) gone.push_back((uint64_t{1} << 32) | o);
    for (uint64_t o = 0; o < 100; ++o) gone.push_back((uint64_t{4} << 32) | o);
    ASSERT_OK(DeleteRows(*ds, gone).status());
  }
  static void TearDownTestSuite() { store_.reset(); }

  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ds_, Dataset::Open(store_, "t"));
    ASSERT_EQ(ds_->fragments().size(), static_cast<size_t>(kFrags));
  }
  uint64_t BytesOf(const ScanOptions& options, int64_t* rows = nullptr) {
    store_->stats().Reset();
    auto got = ScanAll(*ds_, options);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (rows) *rows = got.ok() ? got->num_rows : -1;
    return store_->stats().Snapshot().read_bytes;
  }

  static inline std::shared_ptr<io::ObjectStore> store_;
  std::unique_ptr<Dataset> ds_;
};

TEST_F(ScannerTest, OffsetAndLimitEdges) {
  ScanOptions all;
  all.with_row_addr = true;
  all.batch_size = 128;
  ASSERT_OK_AND_ASSIGN(RecordBatch full, ScanAll(*ds_, all));
  const int64_t n = full.num_rows;
  ASSERT_EQ(static_cast<uint64_t>(n), ds_->CountRows());
  struct Case {
    uint64_t offset;
    std::optional<uint64_t> limit;
  };
  const uint64_t frag0 = kFragRows, frag01 = kFragRows + (kFragRows - 39);
  for (const Case& c : std::vector<Case>{{0, 0},
                                         {0, 1},
                                         {0, std::nullopt},
                                         {1, 5},
                                         {frag0 - 1, 3},     // across the first fragment boundary
                                         {frag0, 10},        // exactly at a fragment start
                                         {frag01 - 2, 200},  // past a fragment with deletions
                                         {static_cast<uint64_t>(n) - 1, 10},
                                         {static_cast<uint64_t>(n), 10},
                                         {static_cast<uint64_t>(n) + 7, std::nullopt},
                                         {10, static_cast<uint64_t>(n) * 2}}) {
    ScanOptions o = all;
    o.offset = c.offset;
    o.limit = c.limit;
    ASSERT_OK_AND_ASSIGN(RecordBatch got, ScanAll(*ds_, o));
    int64_t begin = std::min<int64_t>(static_cast<int64_t>(c.offset), n);
    int64_t end = c.limit ? std::min<int64_t>(n, begin + static_cast<int64_t>(*c.limit)) : n;
    ExpectBatchesEqual(Rows(full, Range(begin, end)), got);
    // With a filter that passes everything, offset and limit apply after it alike.
    o.filter = "id >= 0";
    ASSERT_OK_AND_ASSIGN(RecordBatch filtered, ScanAll(*ds_, o));
    ExpectBatchesEqual(Rows(full, Range(begin, end)), filtered);
  }
}

TEST_F(ScannerTest, FragmentsProjectionAndRowColumns) {
  ScanOptions o;
  o.fragment_ids = {4, 1};
  o.columns = {"_rowid", "name", "s.b", "_rowaddr"};
  ASSERT_OK_AND_ASSIGN(RecordBatch got, ScanAll(*ds_, o));
  // Listed row columns keep their place, as in the reference's select().
  ASSERT_EQ(got.schema.fields.size(), 4u);
  EXPECT_EQ(got.schema.fields[0].name, "_rowid");
  EXPECT_EQ(got.schema.fields[1].name, "name");
  EXPECT_EQ(got.schema.fields[2].name, "s");
  ASSERT_EQ(got.schema.fields[2].type.children.size(), 1u);
  EXPECT_EQ(got.schema.fields[2].type.children[0].name, "b");
  EXPECT_EQ(got.schema.fields[3].name, "_rowaddr");
  ASSERT_EQ(got.num_rows, (kFragRows - 39) + (kFragRows - 100));
  const uint64_t* addr = got.columns[3].values<uint64_t>();
  EXPECT_EQ(addr[0], uint64_t{1} << 32 | 1);  // fragment ids in id order, offset 0 deleted
  EXPECT_EQ(addr[got.num_rows - 1], uint64_t{4} << 32 | (kFragRows - 1));
  std::vector<uint64_t> addrs(addr, addr + got.num_rows);
  ASSERT_OK_AND_ASSIGN(RecordBatch taken, ds_->TakeRowAddresses(addrs, {"name", "s"}));
  EXPECT_TRUE(ArraysEqual(got.columns[1], taken.columns[0]));
  EXPECT_TRUE(ArraysEqual(got.columns[0], got.columns[3]));  // no stable row ids: id = address
  for (int64_t r = 0; r < got.num_rows; ++r) {
    ASSERT_EQ(got.columns[2].IsValid(r), taken.columns[1].IsValid(r));
    const Array& have = got.columns[2].children[0];
    const Array& want = taken.columns[1].children[1];
    ASSERT_EQ(have.IsValid(r), want.IsValid(r)) << r;
    if (have.IsValid(r)) {
      EXPECT_EQ(have.GetView(r), want.GetView(r)) << r;
    }
  }
}

TEST_F(ScannerTest, ClearErrors) {
  auto expect = [&](ScanOptions o, StatusCode code, const std::string& words) {
    auto r = ds_->NewScan(o);
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().ToString();
  };
  ScanOptions o;
  o.columns = {"nope"};
  expect(o, StatusCode::kNotFound, "no column named 'nope'");
  o.columns = {"s.zz"};
  expect(o, StatusCode::kNotFound, "no member 'zz'");
  o.columns = {"id.x"};
  expect(o, StatusCode::kInvalidArgument, "'id', a int64, not a struct");
  o.columns = {"s.a.q"};
  expect(o, StatusCode::kInvalidArgument, "not a struct");
  o.columns = {};
  o.fragment_ids = {99};
  expect(o, StatusCode::kNotFound, "fragment 99");
  o.fragment_ids = {};
  o.filter = "missing > 3";
  expect(o, StatusCode::kInvalidArgument, "missing");
  o.filter = "v >";
  expect(o, StatusCode::kInvalidArgument, "expected an operand");
  o.filter = "";
  o.batch_size = 0;
  expect(o, StatusCode::kInvalidArgument, "batch_size");
}

// A selective filter reads its column for every row but the wide payload only for
// the rows that pass.
TEST_F(ScannerTest, LateMaterialisationReadsAFractionOfTheBytes) {
  ScanOptions all;
  int64_t rows = 0;
  const uint64_t full = BytesOf(all, &rows);
  ScanOptions filtered;
  filtered.filter = "v >= 990";  // about 1 %
  int64_t passed = 0;
  const uint64_t part = BytesOf(filtered, &passed);
  EXPECT_GT(passed, 0);
  EXPECT_LT(passed, rows / 50);
  EXPECT_LT(part * 5, full) << part << " of " << full << " bytes";  // < 20 %
  // Projecting only the filter's column reads no payload at all.
  filtered.columns = {"v"};
  EXPECT_LT(BytesOf(filtered) * 20, full);
}

TEST_F(ScannerTest, LimitStopsReadingEarly) {
  ScanOptions all;
  const uint64_t full = BytesOf(all);
  ScanOptions ten;
  ten.limit = 10;
  int64_t got = 0;
  EXPECT_LT(BytesOf(ten, &got) * 20, full);
  EXPECT_EQ(got, 10);
  // A filtered limit stops planning once met: at most the window beyond the batch
  // that completed it.
  ten.filter = "v >= 500";
  ten.batch_size = 100;
  ten.io_parallelism = 1;
  ten.batch_readahead = 1;
  EXPECT_LT(BytesOf(ten, &got) * 20, full);
  EXPECT_EQ(got, 10);
  ten.offset = 1000;
  ScanOptions far = ten;
  EXPECT_LT(BytesOf(far, &got), full);
  EXPECT_EQ(got, 10);
}

// What a scan has read after handing out its first batch is bounded by its window,
// not by the dataset: the stream reads as it is pulled.
TEST_F(ScannerTest, ReadsAsItIsPulled) {
  ScanOptions all;
  const uint64_t full = BytesOf(all);
  ScanOptions o;
  o.batch_size = 100;
  o.io_parallelism = 1;
  o.batch_readahead = 1;
  store_->stats().Reset();
  ASSERT_OK_AND_ASSIGN(auto reader, ds_->NewScan(o));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->num_rows, 100);
  // 3000 rows in 30 batches; the window is 2 of them.
  const uint64_t after_first = store_->stats().Snapshot().read_bytes;
  EXPECT_LT(after_first * 6, full) << after_first << " of " << full;
  reader.reset();  // dropping a reader mid-stream waits for its tasks and reads no more
  const uint64_t after_drop = store_->stats().Snapshot().read_bytes;
  EXPECT_LT(after_drop * 6, full);
}

// DeleteWhere streams the predicate's columns: it reads a fraction of the table (no
// payload), deletes what the filter matches, and refuses an empty predicate.
TEST(ScannerDeleteWhere, ReadsOnlyThePredicateColumns) {
  auto store = io::NewMemoryStore();
  WriteParams params;
  params.max_rows_per_file = kFragRows;
  ASSERT_OK(WriteDataset(store, "d", TestSchema(), {TestRows(0, kFragRows), TestRows(kFragRows, kFragRows)}, params)
                .status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "d"));
  auto refused = DeleteWhere(*ds, "");
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  ASSERT_OK_AND_ASSIGN(ds, Dataset::Open(store, "d"));
  ASSERT_EQ(ds->CountRows(), static_cast<uint64_t>(2 * kFragRows));
  store->stats().Reset();
  ASSERT_OK(ReadAllBatches(**ds->NewScan({})).status());
  const uint64_t full = store->stats().Snapshot().read_bytes;
  ScanOptions count;
  count.columns = {"id"};
  count.filter = "v < 100";
  ASSERT_OK_AND_ASSIGN(auto matching, ReadAllBatches(**ds->NewScan(count)));
  uint64_t expected = 0;
  for (const RecordBatch& b : matching) expected += static_cast<uint64_t>(b.num_rows);
  ASSERT_GT(expected, 0u);
  store->stats().Reset();
  ASSERT_OK_AND_ASSIGN(uint64_t version, DeleteWhere(*ds, "v < 100"));
  EXPECT_LT(store->stats().Snapshot().read_bytes * 20, full);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(store, "d"));
  EXPECT_EQ(after->version(), version);
  EXPECT_EQ(after->CountRows(), 2 * kFragRows - expected);
  ASSERT_OK_AND_ASSIGN(auto left, ReadAllBatches(**after->NewScan(count)));
  EXPECT_TRUE(left.empty());
}

// A scan exported as an ArrowArrayStream pulls batch by batch and imports back equal;
// the imported buffers are the scan's own (no copy on the way).
TEST_F(ScannerTest, ExportsAsArrowArrayStream) {
  ScanOptions o;
  o.filter = "v < 100";
  o.columns = {"id", "name", "s.a", "_rowaddr"};
  o.batch_size = 256;
  ASSERT_OK_AND_ASSIGN(RecordBatch want, ScanAll(*ds_, o));
  ASSERT_OK_AND_ASSIGN(auto reader, ds_->NewScan(o));
  ArrowArrayStream stream;
  ASSERT_OK(ExportBatchStream(std::move(reader), &stream));
  store_->stats().Reset();
  ArrowArray first;
  ASSERT_EQ(stream.get_next(&stream, &first), 0);
  ASSERT_NE(first.release, nullptr);
  // One batch pulled: far from the whole dataset read.
  const uint64_t pulled = store_->stats().Snapshot().read_bytes;
  ASSERT_GT(pulled, 0u);
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  ASSERT_OK_AND_ASSIGN(Schema imported_schema, ImportSchema(&schema));
  ASSERT_OK_AND_ASSIGN(RecordBatch head, ImportRecordBatch(&first, imported_schema));
  ASSERT_OK_AND_ASSIGN(auto rest, ImportBatchStream(&stream));  // drains and releases
  std::vector<RecordBatch> all = {head};
  all.insert(all.end(), rest.second.begin(), rest.second.end());
  RecordBatch got = Concat(all, imported_schema);
  ExpectBatchesEqual(want, got);
  EXPECT_EQ(stream.release, nullptr);

  RecordBatch batch = TestRows(0, 10, 16);
  const uint8_t* payload = batch.columns[5].buffers[2]->data();
  ASSERT_OK(ExportBatchStream(MakeBatchVectorReader(batch.schema, {batch}), &stream));
  ASSERT_OK_AND_ASSIGN(auto back, ImportBatchStream(&stream));
  ASSERT_EQ(back.second.size(), 1u);
  EXPECT_EQ(back.second[0].columns[5].buffers[2]->data(), payload);
}

// A reader error reaches the consumer as get_next's errno and get_last_error.
TEST_F(ScannerTest, StreamErrorsReachTheConsumer) {
  class Failing final : public RecordBatchReader {
   public:
    const Schema& schema() const override { return schema_; }
    Result<std::optional<RecordBatch>> Next() override { return Status::IOError("t/data/x.lance: disk on fire"); }
    Schema schema_ = TestSchema();
  };
  ArrowArrayStream stream;
  ASSERT_OK(ExportBatchStream(std::make_unique<Failing>(), &stream));
  ArrowArray out;
  EXPECT_EQ(stream.get_next(&stream, &out), EIO);
  EXPECT_EQ(out.release, nullptr);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("disk on fire"), std::string::npos);
  stream.release(&stream);
}

// ---- property: filter(scan) == the filter evaluated on the whole scan ----

std::string RandomLiteral(std::mt19937_64& rng, const std::string& column) {
  if (column == "name") return "'n" + std::to_string(rng() % 60) + "'";
  if (column == "s.b") return "'" + std::string(1, char('a' + rng() % 26)) + "'";
  if (column == "x") return std::to_string(static_cast<double>(rng() % 2000) / 8.0 - 100);
  if (column == "s.a") return std::to_string(static_cast<int64_t>(rng() % 110) - 55);
  return std::to_string(static_cast<int64_t>(rng() % 1100) - 50);
}

std::string RandomPredicate(std::mt19937_64& rng, int depth) {
  static const std::vector<std::string> kColumns = {"id", "v", "x", "name", "s.a", "s.b"};
  static const std::vector<std::string> kOps = {"=", "!=", "<", "<=", ">", ">="};
  const uint64_t kind = depth >= 3 ? rng() % 2 : rng() % 6;
  const std::string& column = kColumns[rng() % kColumns.size()];
  switch (kind) {
    case 0:
      return column + " " + kOps[rng() % kOps.size()] + " " + RandomLiteral(rng, column);
    case 1:
      return column + (rng() % 2 ? " IS NULL" : " IS NOT NULL");
    case 2:
      return "NOT (" + RandomPredicate(rng, depth + 1) + ")";
    case 3:
      return "(" + RandomPredicate(rng, depth + 1) + ") OR (" + RandomPredicate(rng, depth + 1) + ")";
    default:
      return "(" + RandomPredicate(rng, depth + 1) + ") AND (" + RandomPredicate(rng, depth + 1) + ")";
  }
}

TEST_F(ScannerTest, FilterEqualsScanThenFilter) {
  ScanOptions all;
  all.with_row_id = true;
  ASSERT_OK_AND_ASSIGN(RecordBatch full, ScanAll(*ds_, all));
  std::mt19937_64 rng(20261201);
  int partial = 0;
  for (int round = 0; round < 60; ++round) {
    const std::string text = RandomPredicate(rng, 0);
    ASSERT_OK_AND_ASSIGN(expr::Filter bound, expr::Filter::Bind(text, ds_->read_schema()));
    ASSERT_OK_AND_ASSIGN(std::vector<bool> match, bound.Evaluate(full));
    std::vector<int64_t> keep;
    for (size_t i = 0; i < match.size(); ++i) {
      if (match[i]) keep.push_back(static_cast<int64_t>(i));
    }
    ScanOptions o = all;
    o.filter = text;
    o.batch_size = 1 + rng() % 700;
    o.io_parallelism = 1 + static_cast<uint32_t>(rng() % 3);
    // Some rounds project a few columns (a nested one, the filter's own or not).
    if (round % 3 == 1) o.columns = {"s.b", "v", "payload", "_rowid"};
    ASSERT_OK_AND_ASSIGN(RecordBatch got, ScanAll(*ds_, o));
    ASSERT_EQ(got.num_rows, static_cast<int64_t>(keep.size())) << text;
    RecordBatch want = Rows(full, keep);
    for (size_t c = 0; c < got.schema.fields.size(); ++c) {
      const std::string& name = got.schema.fields[c].name;
      int w = want.schema.FieldIndex(name);
      ASSERT_GE(w, 0) << name;
      if (name == "s" && o.columns.size() > 0) {
        for (int64_t r = 0; r < got.num_rows; ++r) {
          ASSERT_EQ(got.columns[c].IsValid(r), want.columns[w].IsValid(r)) << text;
        }
        ASSERT_OK_AND_ASSIGN(Array have, TakeRows(got.columns[c].children[0], Range(0, got.num_rows)));
        ASSERT_OK_AND_ASSIGN(Array expect, TakeRows(want.columns[w].children[1], Range(0, got.num_rows)));
        EXPECT_TRUE(ArraysEqual(have, expect)) << text;
        continue;
      }
      EXPECT_TRUE(ArraysEqual(got.columns[c], want.columns[w])) << text << ": column " << name;
    }
    partial += !keep.empty() && keep.size() < match.size();
  }
  EXPECT_GT(partial, 10) << "the random predicates are too trivial to test anything";
}

}  // namespace
}  // namespace lancet::table

namespace lancet::table {
namespace {

// batch_bytes caps batches of wide rows by their estimated size, never below one row,
// and every row still comes out once, in order.
TEST(ScannerBatchBytes, WideRowsGetSmallerBatches) {
  auto store = io::NewMemoryStore();
  WriteParams params;
  params.max_rows_per_file = 300;
  ASSERT_OK(WriteDataset(store, "w", TestSchema(), {TestRows(0, 300, 16 << 10)}, params).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "w"));
  const uint64_t file_bytes = ds->fragments()[0].files[0].size_bytes;
  ASSERT_GT(file_bytes, 300u * (16 << 10));
  for (uint64_t cap : {uint64_t{1}, uint64_t{256} << 10, uint64_t{1} << 40}) {
    ScanOptions o;
    o.batch_bytes = cap;
    o.columns = {"id"};
    ASSERT_OK_AND_ASSIGN(auto batches, ReadAllBatches(**ds->NewScan(o)));
    const uint64_t expect_rows = std::clamp<uint64_t>(cap / (file_bytes / 300), 1, 300);
    int64_t next = 0;
    for (const RecordBatch& b : batches) {
      EXPECT_LE(static_cast<uint64_t>(b.num_rows), expect_rows) << cap;
      const int64_t* id = b.columns[0].values<int64_t>();
      for (int64_t i = 0; i < b.num_rows; ++i) ASSERT_EQ(id[i], next++);
    }
    EXPECT_EQ(next, 300);
    EXPECT_EQ(batches.size(), (300 + expect_rows - 1) / expect_rows) << cap;
  }
}

// Batches end early where a page of the widest column ends (when that leaves at least
// a quarter of batch_size), so a batch reads within one page of it; every row still
// comes out once, in order, with its values.
TEST(ScannerPageBreaks, BatchesEndWherePagesOfTheWidestColumnEnd) {
  constexpr int64_t kRows = 40000, kDim = 128;  // 512-byte rows: about 16k rows per 8 MiB page
  Schema schema;
  schema.fields = {
      MakeField("id", MakeType(TypeId::kInt64), false),
      MakeField("emb", FixedSizeListOf(MakeField("item", MakeType(TypeId::kFloat32), false), kDim), false)};
  std::vector<int64_t> ids(kRows);
  std::vector<float> items(kRows * kDim);
  for (int64_t i = 0; i < kRows; ++i) {
    ids[i] = i;
    for (int64_t k = 0; k < kDim; ++k) items[i * kDim + k] = static_cast<float>(i) + static_cast<float>(k) / kDim;
  }
  ASSERT_OK_AND_ASSIGN(Array id, ArrayFromVector(MakeType(TypeId::kInt64), ids));
  ASSERT_OK_AND_ASSIGN(Array item, ArrayFromVector(MakeType(TypeId::kFloat32), items));
  ASSERT_OK_AND_ASSIGN(Array emb, MakeFixedSizeListArray(schema.fields[1].type, kRows, item));
  RecordBatch batch{schema, kRows, {id, emb}};
  auto store = io::NewMemoryStore();
  ASSERT_OK(WriteDataset(store, "p", schema, {batch}).status());
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(store, "p"));

  // The embedding's pages, from the data file.
  ASSERT_OK_AND_ASSIGN(auto file, store->OpenRead(ds->fragments()[0].files[0].location));
  ASSERT_OK_AND_ASSIGN(auto reader, format::FileReader::Open(std::shared_ptr<io::RandomAccessFile>(std::move(file))));
  ASSERT_OK_AND_ASSIGN(auto pages, reader->ColumnPages(1));
  ASSERT_GE(pages.size(), 2u);
  std::vector<uint64_t> page_ends;
  for (const auto& p : pages) page_ends.push_back(p.end_row);

  ScanOptions o;
  o.batch_size = 10000;
  ASSERT_OK_AND_ASSIGN(auto batches, ReadAllBatches(**ds->NewScan(o)));
  int64_t next = 0;
  bool shortened = false;
  for (const RecordBatch& b : batches) {
    const uint64_t first = static_cast<uint64_t>(next), end = first + static_cast<uint64_t>(b.num_rows);
    EXPECT_LE(b.num_rows, 10000);
    for (uint64_t e : page_ends) EXPECT_FALSE(e > first && e < end) << "batch [" << first << ", " << end << ")";
    if (b.num_rows < 10000 && end < static_cast<uint64_t>(kRows)) {
      shortened = true;
      EXPECT_NE(std::find(page_ends.begin(), page_ends.end(), end), page_ends.end());
      EXPECT_GE(b.num_rows, 2500);
    }
    const float* v = b.columns[1].children[0].values<float>();
    for (int64_t i = 0; i < b.num_rows; ++i) {
      ASSERT_EQ(b.columns[0].values<int64_t>()[i], next);
      ASSERT_EQ(v[i * kDim + 1], static_cast<float>(next) + 1.0f / kDim);
      ++next;
    }
  }
  EXPECT_EQ(next, kRows);
  EXPECT_TRUE(shortened);
}

}  // namespace
}  // namespace lancet::table
