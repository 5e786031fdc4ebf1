// Blob V2 reads on a reference-written dataset, Lancet vs the reference.
//
//   blob_bench DATASET [--column blob] [--seed 42] [--reps 5] [--warmup 1]
//              [--size 204800] [--range-reps 200] [--range-warmup 10] [--no-verify]
//
// DATASET is what `bench.mjs make-blob-dataset` wrote; scripts/bench.sh times the
// reference's fetch-blobs and read-range on it in the same run. The blob sets and
// the read-range blob and offsets follow bench.mjs exactly (tests/peer/README.md,
// "Datasets and random choices"), so both sides read the same bytes:
//   fetch-blobs: every non-null blob < 1 MiB ("small") / >= 1 MiB ("large"), in scan
//     order, one Dataset::TakeBlobs call per run;
//   read-range: blob Rand(seed, "bench/read-range/pick").u32() % n among the blobs of
//     >= max(1 MiB, size) bytes, offsets floor(Rand(seed, "bench/read-range").float()
//     * (blob_size - size + 1)), one BlobFile::read_range per call on one open handle.
// A timed run ends after every returned byte has been read once: the local store
// maps files, so the call alone only hands out views of the page cache while the
// reference copies the bytes into a JS Buffer. "call_median_ms" is the call alone.
// Prints one JSON line per measurement with bench.mjs's field names plus "impl".
// Results are checked against the payload recipe (payload(seed, "bench-blob/<id>",
// size)) outside the timer when the dataset carries the bench metadata.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench_check.h"
#include "lancet/blob/blob_file.h"
#include "lancet/table/dataset.h"
#include "peer_rand.h"

using lancet::Array;
using lancet::BufferPtr;
using lancet::table::Dataset;

namespace {

constexpr uint64_t kLargeBlob = 1024 * 1024;  // bench.mjs LARGE_BLOB

using lancet::bench::Check;
using lancet::bench::Die;

using lancet::bench::Rand;

// payload(seed, label, n): the Rand outputs as little-endian words, truncated to n.
void Payload(uint64_t seed, const std::string& label, uint64_t n, std::vector<uint8_t>* out) {
  Rand rnd(seed, label);
  out->resize(n);
  uint64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t v = rnd.U32();
    std::memcpy(out->data() + i, &v, 4);  // little-endian host (x86_64)
  }
  if (i < n) {
    uint32_t v = rnd.U32();
    for (int k = 0; i < n; ++i, ++k) (*out)[i] = static_cast<uint8_t>(v >> (8 * k));
  }
}

// Reads every byte of `b` (xor of its 8-byte words) so mapped pages are faulted in.
uint64_t Consume(const lancet::Buffer& b) {
  uint64_t acc = 0, w = 0;
  const uint8_t* p = b.data();
  uint64_t n = b.size(), i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    acc ^= w;
  }
  for (; i < n; ++i) acc ^= p[i];
  return acc;
}

volatile uint64_t g_sink;  // keeps Consume from being optimised away

struct Stats {
  double median = 0, min = 0, max = 0, mean = 0, p90 = 0, p99 = 0;
};

double Round3(double x) { return std::round(x * 1000) / 1000; }

// As bench.mjs stats(): the mean of the two middle samples for an even count;
// quantiles by nearest rank.
Stats Summarize(std::vector<double> s) {
  Stats st;
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  size_t mid = s.size() / 2;
  st.median = s.size() % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  st.min = s.front();
  st.max = s.back();
  double sum = 0;
  for (double x : s) sum += x;
  st.mean = sum / s.size();
  auto rank = [&](double q) {
    auto k = static_cast<int64_t>(std::ceil(q * s.size())) - 1;
    return s[std::clamp<int64_t>(k, 0, static_cast<int64_t>(s.size()) - 1)];
  };
  st.p90 = rank(0.9);
  st.p99 = rank(0.99);
  return st;
}

double Ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json StatsJson(const Stats& st) {
  return {{"median_ms", Round3(st.median)},
          {"min_ms", Round3(st.min)},
          {"max_ms", Round3(st.max)},
          {"mean_ms", Round3(st.mean)}};
}

double MbPerS(uint64_t bytes, double ms) { return ms > 0 ? std::round(bytes / 1e6 / (ms / 1000) * 10) / 10 : 0; }

struct BlobEntry {
  uint64_t row_id = 0;
  uint64_t size = 0;
  std::optional<int64_t> id;  // the `id` column, which names the payload
};

const Array* Child(const Array& a, const std::string& name) {
  for (size_t i = 0; i < a.type.children.size(); ++i) {
    if (a.type.children[i].name == name) return &a.children[i];
  }
  return nullptr;
}

// Every non-null blob of `column` in scan order, as bench.mjs blobIndex().
std::vector<BlobEntry> BlobIndex(const Dataset& ds, const std::string& column) {
  std::string top = column.substr(0, column.find('.'));
  lancet::table::ScanOptions opts;
  opts.columns = {top};
  bool has_id = ds.schema().FieldIndex("id") >= 0 && top != "id";
  if (has_id) opts.columns.push_back("id");
  opts.with_row_id = true;
  auto batches = Check(ds.Scan(opts), "scan of " + column);
  std::vector<BlobEntry> out;
  for (const auto& b : batches) {
    const Array* d = &b.columns[b.schema.FieldIndex(top)];
    std::vector<const Array*> path{d};
    for (size_t pos = column.find('.'); pos != std::string::npos;) {
      size_t next = column.find('.', pos + 1);
      d = Child(*d, column.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1));
      if (d == nullptr) Die("no member " + column + " in the scanned descriptors");
      path.push_back(d);
      pos = next;
    }
    const Array* sizes = Child(*d, "size");
    if (sizes == nullptr) Die(column + " is not a blob column (no descriptor size)");
    const Array& row_ids = b.columns[b.schema.FieldIndex("_rowid")];
    const Array* ids = has_id ? &b.columns[b.schema.FieldIndex("id")] : nullptr;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      bool valid = true;
      for (const Array* p : path) valid = valid && p->IsValid(i);
      if (!valid) continue;
      BlobEntry e{row_ids.values<uint64_t>()[i], sizes->values<uint64_t>()[i], std::nullopt};
      if (ids != nullptr && ids->IsValid(i)) e.id = ids->values<int64_t>()[i];
      out.push_back(e);
    }
  }
  return out;
}

struct Options {
  std::string dataset;
  std::string column;
  uint64_t seed = 42;
  int reps = 5, warmup = 1;
  uint64_t size = 204800;
  int range_reps = 200, range_warmup = 10;
  bool verify = true;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  auto usage = [] {
    std::cerr << "usage: blob_bench DATASET [--column C] [--seed 42] [--reps 5] [--warmup 1] [--size 204800]\n"
                 "                  [--range-reps 200] [--range-warmup 10] [--no-verify]\n";
    std::exit(64);
  };
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--no-verify") {
      o.verify = false;
      continue;
    }
    if (k.rfind("--", 0) != 0) {
      if (!o.dataset.empty()) usage();
      o.dataset = k;
      continue;
    }
    if (i + 1 >= argc) usage();
    std::string v = argv[++i];
    try {
      if (k == "--column")
        o.column = v;
      else if (k == "--seed")
        o.seed = std::stoull(v);
      else if (k == "--reps")
        o.reps = std::stoi(v);
      else if (k == "--warmup")
        o.warmup = std::stoi(v);
      else if (k == "--size")
        o.size = std::stoull(v);
      else if (k == "--range-reps")
        o.range_reps = std::stoi(v);
      else if (k == "--range-warmup")
        o.range_warmup = std::stoi(v);
      else
        usage();
    } catch (const std::exception&) {
      usage();
    }
  }
  if (o.dataset.empty() || o.reps < 1 || o.range_reps < 1 || o.warmup < 0 || o.range_warmup < 0 || o.size == 0) {
    usage();
  }
  return o;
}

// The first Blob V2 column (top-level or in structs), as blobColumns()[0].
std::string FirstBlobColumn(const std::vector<lancet::Field>& fields, const std::string& prefix) {
  for (const auto& f : fields) {
    if (lancet::IsBlobV2Field(f)) return prefix + f.name;
    if (f.type.id == lancet::TypeId::kStruct) {
      std::string c = FirstBlobColumn(f.type.children, prefix + f.name + ".");
      if (!c.empty()) return c;
    }
  }
  return "";
}

// The payload seed from the schema metadata bench.mjs writes, if it is a blob bench dataset.
std::optional<uint64_t> BenchSeed(const Dataset& ds) {
  auto it = ds.schema().metadata.find("lance-peer-bench");
  if (it == ds.schema().metadata.end()) return std::nullopt;
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (j.is_discarded() || j.value("kind", "") != "blobs" || !j.contains("seed")) return std::nullopt;
  return j["seed"].get<uint64_t>();
}

void FetchBlobs(const Options& o, const Dataset& ds, const std::string& column, const std::vector<BlobEntry>& blobs,
                std::optional<uint64_t> payload_seed, const std::string& set) {
  std::vector<BlobEntry> chosen;
  for (const auto& b : blobs) {
    if ((set == "large") == (b.size >= kLargeBlob)) chosen.push_back(b);
  }
  if (chosen.empty()) Die("no " + set + " blobs in column " + column);
  std::vector<uint64_t> ids;
  uint64_t bytes = 0, min_blob = UINT64_MAX, max_blob = 0;
  for (const auto& b : chosen) {
    ids.push_back(b.row_id);
    bytes += b.size;
    min_blob = std::min(min_blob, b.size);
    max_blob = std::max(max_blob, b.size);
  }
  std::vector<double> samples, call_samples;
  std::vector<std::optional<BufferPtr>> last;
  for (int i = 0; i < o.warmup + o.reps; ++i) {
    last.clear();  // the previous result is freed before the next run, as bench.mjs lets it be collected
    auto t0 = std::chrono::steady_clock::now();
    last = Check(ds.TakeBlobs(column, ids), "TakeBlobs(" + column + ")");
    double call_ms = Ms(t0);
    uint64_t acc = 0;
    for (const auto& b : last) acc ^= b ? Consume(**b) : 0;
    g_sink = acc;
    double ms = Ms(t0);
    if (i >= o.warmup) {
      samples.push_back(ms);
      call_samples.push_back(call_ms);
    }
  }
  bool verified = false;
  if (o.verify) {
    if (last.size() != ids.size()) Die("TakeBlobs returned " + std::to_string(last.size()) + " values");
    std::vector<uint8_t> expect;
    for (size_t k = 0; k < chosen.size(); ++k) {
      const auto& buf = last[k];
      if (!buf || (*buf)->size() != chosen[k].size) {
        Die("TakeBlobs: row id " + std::to_string(chosen[k].row_id) + ": wrong length");
      }
      if (payload_seed && chosen[k].id) {
        Payload(*payload_seed, "bench-blob/" + std::to_string(*chosen[k].id), chosen[k].size, &expect);
        if (std::memcmp(expect.data(), (*buf)->data(), expect.size()) != 0) {
          Die("TakeBlobs: row id=" + std::to_string(*chosen[k].id) + ": bytes differ from the recipe");
        }
      }
    }
    verified = true;
  }
  Stats st = Summarize(samples);
  nlohmann::json j = {{"impl", "lancet"},
                      {"op", "fetch-blobs"},
                      {"dataset", o.dataset},
                      {"reps", o.reps},
                      {"warmup", o.warmup},
                      {"rows", chosen.size()},
                      {"bytes", bytes},
                      {"column", column},
                      {"set", set},
                      {"min_blob", min_blob},
                      {"max_blob", max_blob},
                      {"verified", verified},
                      {"api", "Dataset::TakeBlobs"}};
  j.update(StatsJson(st));
  j["mb_per_s"] = MbPerS(bytes, st.median);
  j["call_median_ms"] = Round3(Summarize(call_samples).median);
  std::cout << j.dump() << std::endl;
}

void ReadRange(const Options& o, const Dataset& ds, const std::string& column, const std::vector<BlobEntry>& blobs,
               std::optional<uint64_t> payload_seed) {
  std::vector<BlobEntry> large;
  for (const auto& b : blobs) {
    if (b.size >= kLargeBlob && b.size >= o.size) large.push_back(b);
  }
  if (large.empty()) Die("no blob of >= max(1 MiB, --size) bytes in column " + column);
  const BlobEntry blob = large[Rand(o.seed, "bench/read-range/pick").U32() % large.size()];
  Rand rnd(o.seed, "bench/read-range");
  std::vector<uint64_t> offsets;
  for (int i = 0; i < o.range_warmup + o.range_reps; ++i) {
    offsets.push_back(static_cast<uint64_t>(std::floor(rnd.Float() * static_cast<double>(blob.size - o.size + 1))));
  }

  auto t_open = std::chrono::steady_clock::now();
  auto file = Check(lancet::blob::BlobFile::Open(ds, column, blob.row_id), "BlobFile::Open");
  double open_ms = Ms(t_open);
  if (file->size() != blob.size)
    Die("BlobFile size " + std::to_string(file->size()) + ", descriptor says " + std::to_string(blob.size));

  std::vector<uint8_t> expect;
  if (o.verify && payload_seed && blob.id) {
    Payload(*payload_seed, "bench-blob/" + std::to_string(*blob.id), blob.size, &expect);
  } else if (o.verify) {
    // No recipe: compare with the whole blob as TakeBlobs returns it.
    auto whole = Check(ds.TakeBlobs(column, std::vector<uint64_t>{blob.row_id}), "TakeBlobs");
    if (whole.size() != 1 || !whole[0]) Die("TakeBlobs: blob is null");
    expect.assign((*whole[0])->data(), (*whole[0])->data() + (*whole[0])->size());
  }
  std::vector<double> samples, call_samples;
  for (size_t i = 0; i < offsets.size(); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    BufferPtr buf = Check(file->read_range(offsets[i], offsets[i] + o.size), "BlobFile::read_range");
    double call_ms = Ms(t0);
    g_sink = Consume(*buf);
    double ms = Ms(t0);
    if (static_cast<int>(i) >= o.range_warmup) {
      samples.push_back(ms);
      call_samples.push_back(call_ms);
    }
    if (o.verify) {
      if (buf->size() != o.size) Die("read_range returned " + std::to_string(buf->size()) + " bytes");
      if (std::memcmp(buf->data(), expect.data() + offsets[i], o.size) != 0) {
        Die("read_range at " + std::to_string(offsets[i]) + ": bytes differ from the recipe");
      }
    }
  }
  Stats st = Summarize(samples);
  nlohmann::json j = {{"impl", "lancet"},       {"op", "read-range"},       {"dataset", o.dataset},
                      {"reps", o.range_reps},   {"warmup", o.range_warmup}, {"rows", 1},
                      {"bytes", o.size},        {"column", column},         {"blob_rowid", std::to_string(blob.row_id)},
                      {"blob_size", blob.size}, {"size", o.size},           {"open_ms", Round3(open_ms)},
                      {"seed", o.seed},         {"verified", o.verify},     {"api", "blob::BlobFile::read_range"}};
  j.update(StatsJson(st));
  j["mb_per_s"] = MbPerS(o.size, st.median);
  j["p90_ms"] = Round3(st.p90);
  j["p99_ms"] = Round3(st.p99);
  j["call_median_ms"] = Round3(Summarize(call_samples).median);
  std::cout << j.dump() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseArgs(argc, argv);
  auto ds = Check(Dataset::Open(o.dataset), o.dataset);
  std::string column = o.column.empty() ? FirstBlobColumn(ds->schema().fields, "") : o.column;
  if (column.empty()) Die(o.dataset + ": no blob (lance.blob.v2) column");
  std::vector<BlobEntry> blobs = BlobIndex(*ds, column);
  std::optional<uint64_t> payload_seed = BenchSeed(*ds);
  FetchBlobs(o, *ds, column, blobs, payload_seed, "small");
  FetchBlobs(o, *ds, column, blobs, payload_seed, "large");
  ReadRange(o, *ds, column, blobs, payload_seed);
  return 0;
}
