// A writer for crash_test and concurrency_test, run as its own process.
//
//   crash_child crash DIR SEED
//     Runs the CrashWorkload of SEED against DIR until killed; after each
//     commit returns, prints "<version> <rows>" on stdout (flushed).
//   crash_child append DIR WRITER COUNT
//     COUNT appends of 3 rows each to DIR (created if absent), ids
//     WRITER * 1000000 + i * 3 + {0, 1, 2}; prints each committed version on
//     stdout. Exit status 0 only if every append succeeded.
//   crash_child bigappend DIR BYTES
//     One append of rows with ~BYTES of incompressible payload (one data file, so
//     on S3 a multipart upload), for killing mid-upload.
// DIR may be an s3:// URI (the AWS_* environment configures it).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lancet/table/write.h"
#include "table/crash_workload.h"
#include "util/array_builder.h"

namespace lancet::table {
namespace {

RecordBatch IdRows(int64_t lo, int64_t hi) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> payload;
  for (int64_t id = lo; id < hi; ++id) {
    ids.push_back(id);
    payload.push_back(id % 11 == 0 ? std::nullopt : std::optional<std::string>("payload-" + std::to_string(id)));
  }
  return *MakeRecordBatch({"id", "payload"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(payload)});
}

int Fail(const std::string& what, const Status& st) {
  std::fprintf(stderr, "crash_child: %s: %s\n", what.c_str(), st.ToString().c_str());
  return 1;
}

int RunCrashWorkload(const std::string& dir, uint64_t seed) {
  testing::CrashWorkload workload(seed);
  for (uint64_t version = 1;; ++version) {
    testing::CrashOp op = workload.Next();
    Result<uint64_t> committed = uint64_t{0};
    if (op.append) {
      WriteParams params;
      params.mode = version == 1 ? WriteMode::kCreate : WriteMode::kAppend;
      params.max_rows_per_file = 16;  // several data files per append
      RecordBatch rows = IdRows(op.lo, op.hi);
      committed = WriteDataset(dir, rows.schema, {rows}, params);
    } else {
      auto ds = Dataset::Open(dir);
      if (!ds.ok()) return Fail("open " + dir, ds.status());
      committed = DeleteWhere(**ds, op.Predicate());
    }
    if (!committed.ok()) return Fail("version " + std::to_string(version), committed.status());
    if (*committed != version) {
      std::fprintf(stderr, "crash_child: committed version %llu, expected %llu\n",
                   static_cast<unsigned long long>(*committed), static_cast<unsigned long long>(version));
      return 1;
    }
    std::printf("%llu %zu\n", static_cast<unsigned long long>(version), workload.ids().size());
    std::fflush(stdout);
  }
}

int RunAppends(const std::string& dir, int64_t writer, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t lo = writer * 1000000 + i * 3;
    RecordBatch rows = IdRows(lo, lo + 3);
    WriteParams params;
    params.mode = WriteMode::kAppend;
    auto committed = WriteDataset(dir, rows.schema, {rows}, params);
    if (!committed.ok()) return Fail("append " + std::to_string(i), committed.status());
    std::printf("%llu\n", static_cast<unsigned long long>(*committed));
    std::fflush(stdout);
  }
  return 0;
}

int RunBigAppend(const std::string& dir, uint64_t bytes) {
  constexpr size_t kPayload = 4096;
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> payload;
  uint32_t x = 12345;
  for (int64_t id = 0; static_cast<uint64_t>(id) * kPayload < bytes; ++id) {
    std::string p(kPayload, 0);
    for (char& c : p) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);
    }
    ids.push_back(1000000000 + id);
    payload.push_back(std::move(p));
  }
  RecordBatch rows =
      *MakeRecordBatch({"id", "payload"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(payload)});
  WriteParams params;
  params.mode = WriteMode::kAppend;
  auto committed = WriteDataset(dir, rows.schema, {rows}, params);
  if (!committed.ok()) return Fail("big append", committed.status());
  return 0;
}

}  // namespace
}  // namespace lancet::table

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "crash" && argc == 4) {
    return lancet::table::RunCrashWorkload(argv[2], std::strtoull(argv[3], nullptr, 10));
  }
  if (mode == "append" && argc == 5) {
    return lancet::table::RunAppends(argv[2], std::strtoll(argv[3], nullptr, 10), std::strtoll(argv[4], nullptr, 10));
  }
  if (mode == "bigappend" && argc == 4) {
    return lancet::table::RunBigAppend(argv[2], std::strtoull(argv[3], nullptr, 10));
  }
  std::fprintf(stderr,
               "usage: crash_child crash DIR SEED | crash_child append "
               "DIR WRITER COUNT | crash_child bigappend DIR BYTES\n");
  return 2;
}
