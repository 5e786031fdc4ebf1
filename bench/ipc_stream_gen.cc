// Writes a deterministic Arrow IPC stream of about --size bytes to stdout, batch by
// batch, for the streaming import/export stress test (bench/stream_io_stress.sh): the
// input of a 10 GB import never has to exist on disk.
//
//   ipc_stream_gen [--size 2g] [--batch-rows 8192] [--payload 1024]
//
// Rows: id int64, x float64, s utf8 ("row-<id>"), payload binary (--payload bytes of
// a cheap pseudo-random sequence seeded by the id, so nothing compresses it away).
// Prints "rows=N bytes=M" to stderr at the end. Exit 0, 1 on a write error, 64 for
// bad usage.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "format/ipc_writer.h"
#include "util/array_builder.h"

using namespace lancet;

namespace {

uint64_t ParseSize(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  const double scale = unit == "k" ? 1024.0 : unit == "m" ? 1048576.0 : unit == "g" ? 1073741824.0 : 1.0;
  return static_cast<uint64_t>(v * scale);
}

RecordBatch MakeBatch(const Schema& schema, int64_t first, int64_t rows, size_t payload) {
  std::vector<int64_t> ids(static_cast<size_t>(rows));
  std::vector<double> xs(ids.size());
  std::vector<std::optional<std::string>> names(ids.size()), payloads(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t id = first + static_cast<int64_t>(i);
    ids[i] = id;
    xs[i] = static_cast<double>(id) * 0.5;
    names[i] = "row-" + std::to_string(id);
    std::string p(payload, '\0');
    uint64_t state = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t k = 0; k + 8 <= p.size(); k += 8) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      std::memcpy(p.data() + k, &state, 8);
    }
    payloads[i] = std::move(p);
  }
  return RecordBatch{
      schema,
      rows,
      {*ArrayFromVector(MakeType(TypeId::kInt64), ids), *ArrayFromVector(MakeType(TypeId::kFloat64), xs),
       *MakeBinaryArray(MakeType(TypeId::kUtf8), names), *MakeBinaryArray(MakeType(TypeId::kBinary), payloads)}};
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size = 2ULL << 30;
  int64_t batch_rows = 8192;
  size_t payload = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "usage: ipc_stream_gen [--size 2g] [--batch-rows 8192] [--payload 1024]\n");
      return 64;
    }
    if (a == "--size") {
      size = ParseSize(argv[++i]);
    } else if (a == "--batch-rows") {
      batch_rows = std::max<int64_t>(1, std::atoll(argv[++i]));
    } else if (a == "--payload") {
      payload = static_cast<size_t>(std::atoll(argv[++i]));
    } else {
      std::fprintf(stderr, "ipc_stream_gen: unknown option %s\n", a.c_str());
      return 64;
    }
  }
  Schema schema{{MakeField("id", MakeType(TypeId::kInt64), false), MakeField("x", MakeType(TypeId::kFloat64)),
                 MakeField("s", MakeType(TypeId::kUtf8)), MakeField("payload", MakeType(TypeId::kBinary))},
                {{"generator", "ipc_stream_gen"}}};
  uint64_t written = 0;
  auto sink = [&written](std::span<const uint8_t> bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) return Status::IOError("stdout");
    written += bytes.size();
    return Status::OK();
  };
  auto writer = format::IpcBatchWriter::Open(sink, schema);
  if (!writer.ok()) {
    std::fprintf(stderr, "ipc_stream_gen: %s\n", writer.status().ToString().c_str());
    return 1;
  }
  int64_t rows = 0;
  while (written < size) {
    Status st = (*writer)->Write(MakeBatch(schema, rows, batch_rows, payload));
    if (!st.ok()) {
      std::fprintf(stderr, "ipc_stream_gen: %s\n", st.ToString().c_str());
      return 1;
    }
    rows += batch_rows;
  }
  if (!(*writer)->Finish().ok() || std::fflush(stdout) != 0) return 1;
  std::fprintf(stderr, "rows=%lld bytes=%llu\n", static_cast<long long>(rows),
               static_cast<unsigned long long>(written));
  return 0;
}
