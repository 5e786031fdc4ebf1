// Clone cost: time and bytes written for a shallow clone (metadata only), a branch and
// a deep clone of one dataset, from the store's own request counters.
//
//   clone_bench [--size BYTES] [--dir DIR] [--keep]
//
// Writes a dataset of about --size bytes (default 1 GiB: rows of a 64 KiB incompressible
// payload, 64 MiB per append) under DIR (default $TMPDIR), then times each clone of its
// latest version and prints its files and bytes written and read.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

#include "lancet/table/branch.h"
#include "lancet/table/clone.h"
#include "lancet/table/write.h"
#include "util/array_builder.h"

namespace fs = std::filesystem;

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::cerr << "clone_bench: " << what << "\n";
  std::exit(2);
}

constexpr uint64_t kPayload = 64 << 10;
constexpr uint64_t kRowsPerAppend = 1024;

lancet::RecordBatch PayloadRows(int64_t first, std::mt19937_64& rng) {
  std::vector<int64_t> ids;
  std::vector<std::optional<std::string>> payload;
  std::string bytes(kPayload, '\0');
  for (uint64_t i = 0; i < kRowsPerAppend; ++i) {
    for (size_t k = 0; k + 8 <= bytes.size(); k += 8) {
      const uint64_t r = rng();
      std::memcpy(&bytes[k], &r, 8);
    }
    ids.push_back(first + static_cast<int64_t>(i));
    payload.emplace_back(bytes);
  }
  auto batch = lancet::MakeRecordBatch(
      {"id", "payload"}, {*lancet::ArrayFromVector(lancet::MakeType(lancet::TypeId::kInt64), ids),
                          *lancet::MakeBinaryArray(lancet::MakeType(lancet::TypeId::kLargeBinary), payload)});
  if (!batch.ok()) Die(batch.status().ToString());
  return *batch;
}

template <typename F>
void Measure(const char* what, const lancet::table::Dataset& source, F&& clone) {
  source.store()->stats().Reset();
  const auto start = std::chrono::steady_clock::now();
  clone();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const lancet::io::IoCounters io = source.store()->stats().Snapshot();
  std::printf("%-8s %9.3f s  %6llu write requests  %14llu bytes written  %14llu bytes read\n", what, secs,
              static_cast<unsigned long long>(io.write_requests), static_cast<unsigned long long>(io.write_bytes),
              static_cast<unsigned long long>(io.read_bytes));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size = uint64_t{1} << 30;
  fs::path dir = fs::temp_directory_path();
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      size = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--keep") {
      keep = true;
    } else {
      Die("usage: clone_bench [--size BYTES] [--dir DIR] [--keep]");
    }
  }
  const fs::path work = dir / ("lancet_clone_bench_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const std::string src = (work / "src.lance").string();
  std::mt19937_64 rng(42);
  lancet::table::WriteParams params;
  params.mode = lancet::table::WriteMode::kAppend;
  const uint64_t appends = std::max<uint64_t>(1, size / (kPayload * kRowsPerAppend));
  for (uint64_t a = 0; a < appends; ++a) {
    lancet::RecordBatch b = PayloadRows(static_cast<int64_t>(a * kRowsPerAppend), rng);
    auto v = lancet::table::WriteDataset(src, b.schema, {b}, params);
    if (!v.ok()) Die(v.status().ToString());
  }
  ::sync();
  uint64_t on_disk = 0;
  for (const auto& e : fs::recursive_directory_iterator(src)) on_disk += e.is_regular_file() ? e.file_size() : 0;
  auto source = lancet::table::Dataset::Open(src);
  if (!source.ok()) Die(source.status().ToString());
  std::printf("source: %s, %llu rows, %llu versions, %llu bytes on disk\n", src.c_str(),
              static_cast<unsigned long long>((*source)->CountRows()), static_cast<unsigned long long>(appends),
              static_cast<unsigned long long>(on_disk));
  auto check = [](const auto& r) {
    if (!r.ok()) Die(r.status().ToString());
  };
  Measure("shallow", **source,
          [&] { check(lancet::table::CloneDataset(**source, (work / "shallow.lance").string())); });
  Measure("branch", **source, [&] { check(lancet::table::CreateBranch(**source, "bench")); });
  Measure("deep", **source, [&] {
    lancet::table::CloneOptions deep;
    deep.deep = true;
    check(lancet::table::CloneDataset(**source, (work / "deep.lance").string(), deep));
    ::sync();
  });
  if (!keep) fs::remove_all(work);
  return 0;
}
