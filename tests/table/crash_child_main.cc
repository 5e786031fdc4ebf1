// A writer for crash_test and concurrency_test, run as its own process.
//
//   crash_child crash DIR SEED
//     Runs the CrashWorkload of SEED (appends, deletes, updates, merge_inserts) against
//     DIR until killed; after each commit returns, prints "<version> <rows>" on stdout
//     (flushed).
//   crash_child append DIR WRITER COUNT
//     COUNT appends of 3 rows each to DIR (created if absent), ids
//     WRITER * 1000000 + i * 3 + {0, 1, 2}; prints each committed version on
//     stdout. Exit status 0 only if every append succeeded.
//   crash_child bigappend DIR BYTES
//     One append of rows with ~BYTES of incompressible payload (one data file, so
//     on S3 a multipart upload), for killing mid-upload.
//   crash_child update DIR TAG MOD COUNT
//     COUNT updates of the rows with id < 1000000 and id % 4 = MOD, each setting
//     payload to '<TAG>-<i>'; prints "<version> <rows updated>" for each.
//   crash_child delete DIR FIRST COUNT
//     COUNT deletes of one row each: ids FIRST, FIRST + 4, ...; a delete that meets a
//     rewrite of its fragment (CommitConflict) runs again on the latest version.
//     Prints "<version> <conflicts>" for each.
//   crash_child compact DIR COUNT
//     COUNT compactions (fragments of up to 150 rows); a compaction that loses to a
//     concurrent change (CommitConflict) is counted, not an error. Prints
//     "<committed> <conflicts>" at the end.
// DIR may be an s3:// URI (the AWS_* environment configures it).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lancet/table/compaction.h"
#include "lancet/table/merge_insert.h"
#include "lancet/table/update.h"
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
      if (op.update) {
        auto updated = Update(**ds, op.Predicate(), {{"payload", "'u" + std::to_string(version) + "'"}});
        committed = updated.ok() ? Result<uint64_t>(updated->version) : Result<uint64_t>(updated.status());
      } else if (op.merge) {
        std::vector<std::optional<std::string>> payload(op.upsert.size(), "u" + std::to_string(version));
        auto ids = ArrayFromVector(MakeType(TypeId::kInt64), op.upsert);
        if (!ids.ok()) return Fail("merge source", ids.status());
        auto src = MakeRecordBatch({"id", "payload"}, {*ids, StringArray(payload)});
        if (!src.ok()) return Fail("merge source", src.status());
        auto reader = MakeBatchVectorReader(src->schema, {*src});
        MergeInsertOptions merge;
        merge.on = {"id"};
        merge.max_rows_per_file = 16;
        auto merged = MergeInsert(**ds, *reader, merge);
        committed = merged.ok() ? Result<uint64_t>(merged->version) : Result<uint64_t>(merged.status());
      } else {
        committed = DeleteWhere(**ds, op.Predicate());
      }
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

int RunUpdates(const std::string& dir, const std::string& tag, int64_t mod, int64_t count) {
  const std::string where = "id < 1000000 AND id % 4 = " + std::to_string(mod);
  for (int64_t i = 0; i < count; ++i) {
    auto ds = Dataset::Open(dir);
    if (!ds.ok()) return Fail("open " + dir, ds.status());
    auto r = Update(**ds, where, {{"payload", "'" + tag + "-" + std::to_string(i) + "'"}});
    if (!r.ok()) return Fail("update " + std::to_string(i), r.status());
    std::printf("%llu %llu\n", static_cast<unsigned long long>(r->version),
                static_cast<unsigned long long>(r->rows_updated));
    std::fflush(stdout);
  }
  return 0;
}

int RunDeletes(const std::string& dir, int64_t first, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    Result<uint64_t> v = Status::CommitConflict("not run");
    int conflicts = -1;
    for (; conflicts < 20 && !v.ok() && v.status().IsCommitConflict(); ++conflicts) {
      auto ds = Dataset::Open(dir);
      if (!ds.ok()) return Fail("open " + dir, ds.status());
      v = DeleteWhere(**ds, "id = " + std::to_string(first + 4 * i));
    }
    if (!v.ok()) return Fail("delete " + std::to_string(i), v.status());
    std::printf("%llu %d\n", static_cast<unsigned long long>(*v), conflicts);
    std::fflush(stdout);
  }
  return 0;
}

int RunCompactions(const std::string& dir, int64_t count) {
  int64_t committed = 0, conflicts = 0;
  for (int64_t i = 0; i < count; ++i) {
    auto ds = Dataset::Open(dir);
    if (!ds.ok()) return Fail("open " + dir, ds.status());
    CompactionOptions opts;
    opts.target_rows_per_fragment = 150;
    auto m = Compact(**ds, opts);
    if (m.ok()) {
      committed += m->version != (*ds)->version();
    } else if (m.status().IsCommitConflict()) {
      ++conflicts;
    } else {
      return Fail("compaction " + std::to_string(i), m.status());
    }
  }
  std::printf("%lld %lld\n", static_cast<long long>(committed), static_cast<long long>(conflicts));
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
  if (mode == "update" && argc == 6) {
    return lancet::table::RunUpdates(argv[2], argv[3], std::strtoll(argv[4], nullptr, 10),
                                     std::strtoll(argv[5], nullptr, 10));
  }
  if (mode == "delete" && argc == 5) {
    return lancet::table::RunDeletes(argv[2], std::strtoll(argv[3], nullptr, 10), std::strtoll(argv[4], nullptr, 10));
  }
  if (mode == "compact" && argc == 4) {
    return lancet::table::RunCompactions(argv[2], std::strtoll(argv[3], nullptr, 10));
  }
  std::fprintf(stderr,
               "usage: crash_child crash DIR SEED | crash_child append "
               "DIR WRITER COUNT | crash_child bigappend DIR BYTES | crash_child update DIR TAG MOD COUNT | "
               "crash_child delete DIR FIRST COUNT | crash_child compact DIR COUNT\n");
  return 2;
}
