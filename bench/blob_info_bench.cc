// The proposal's second benchmark: resolve + plan without the payload read, with the
// media index inline in the blob descriptor (format 2.3 blob_info) vs in separate index
// columns, on local disk and on a store that adds object-store latency per request.
//
//   blob_info_bench [--rows 2000] [--min-kib 80] [--max-kib 368] [--chunk-kib 64]
//                   [--fragment-rows 250] [--singles 200] [--batches 40] [--batch-rows 32]
//                   [--latency-ms 5] [--reps 3] [--seed 42] [--dir DIR] [--keep]
//
// Both layouts hold the same rows (deterministic payloads, sizes uniform in
// [min, max] KiB, so every value is packed into a sidecar) ingested by the chunks plugin.
// A timed call is one ResolveAndPlan (inline) or ResolveAndPlanWithIndexColumns (index
// columns) for one random row ("single", a random chunk of it) or for --batch-rows
// random rows ("batch", chunk 1 of each); the two layouts alternate call by call so a
// load change on the machine hits both. Full extraction (with the payload read and
// decode) is timed the same way for context. Data files are opened before timing.
//
// --dir keeps the datasets there and reuses them when present (same options only).
// Output: one JSON line per measurement on stdout (medians over calls, per rep, then the
// median and spread over reps), one line per comparison with
// inline_faster_pct = (index - inline) / index * 100 (the proposal's "21% faster" means
// inline <= 0.79 x index), and a table on stderr.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_check.h"
#include "lancet/io/latency_store.h"
#include "lancet/media/extract.h"
#include "lancet/media/index_columns.h"
#include "lancet/media/write_blob_info.h"
#include "util/array_builder.h"

namespace {

namespace fs = std::filesystem;
using lancet::Array;
using lancet::RecordBatch;
using lancet::Schema;
using lancet::TypeId;
using lancet::media::ExtractStats;
using lancet::table::Dataset;
using Clock = std::chrono::steady_clock;

using lancet::bench::Check;
using lancet::bench::Die;

struct Options {
  uint64_t rows = 2000, min_kib = 80, max_kib = 368, chunk_kib = 64, fragment_rows = 250;
  uint64_t singles = 200, batches = 40, batch_rows = 32, latency_ms = 5, reps = 3, seed = 42;
  std::string dir;
  bool keep = false;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  std::map<std::string, uint64_t*> nums = {{"--rows", &o.rows},
                                           {"--min-kib", &o.min_kib},
                                           {"--max-kib", &o.max_kib},
                                           {"--chunk-kib", &o.chunk_kib},
                                           {"--fragment-rows", &o.fragment_rows},
                                           {"--singles", &o.singles},
                                           {"--batches", &o.batches},
                                           {"--batch-rows", &o.batch_rows},
                                           {"--latency-ms", &o.latency_ms},
                                           {"--reps", &o.reps},
                                           {"--seed", &o.seed}};
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--keep") {
      o.keep = true;
      continue;
    }
    if (i + 1 >= argc || (k != "--dir" && !nums.count(k)))
      Die("usage: see the comment at the top of blob_info_bench.cc");
    std::string v = argv[++i];
    if (k == "--dir") {
      o.dir = v;
    } else {
      try {
        *nums[k] = std::stoull(v);
      } catch (const std::exception&) {
        Die(k + " takes a number, not '" + v + "'");
      }
    }
  }
  if (o.rows == 0 || o.fragment_rows == 0 || o.reps == 0 || o.batch_rows == 0 || o.chunk_kib == 0) {
    Die("--rows, --fragment-rows, --reps, --batch-rows and --chunk-kib must be at least 1");
  }
  if (o.min_kib <= 64 || o.max_kib < o.min_kib) Die("need 64 < --min-kib <= --max-kib (values must not be inline)");
  if (o.min_kib <= o.chunk_kib) Die("--min-kib must exceed --chunk-kib so that every value has a chunk 1");
  return o;
}

std::string Payload(uint64_t seed, uint64_t size) {
  std::string s(size, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (uint64_t i = 0; i + 8 <= size; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(s.data() + i, &x, 8);
  }
  return s;
}

// Writes both layouts fragment by fragment so only one fragment's payloads are in memory.
void WriteBoth(const Options& o, const std::vector<uint64_t>& sizes, const std::string& inline_root,
               const std::string& index_root, const lancet::media::PluginSpec& spec) {
  Schema schema{{lancet::table::MakeBlobField("video"), lancet::MakeField("id", lancet::MakeType(TypeId::kInt64))}, {}};
  double inline_s = 0, index_s = 0;
  for (uint64_t first = 0; first < o.rows; first += o.fragment_rows) {
    const uint64_t n = std::min(o.fragment_rows, o.rows - first);
    std::vector<std::optional<std::string>> values;
    std::vector<int64_t> ids;
    for (uint64_t r = first; r < first + n; ++r) {
      values.push_back(Payload(o.seed * 1000003 + r, sizes[r]));
      ids.push_back(static_cast<int64_t>(r));
    }
    const auto len = static_cast<int64_t>(n);
    Array data = Check(lancet::MakeBinaryArray(lancet::MakeType(TypeId::kLargeBinary), values), "payloads");
    Array uri = Check(lancet::MakeNullArray(lancet::MakeType(TypeId::kUtf8), len), "uris");
    Array col = Check(lancet::MakeStructArray(schema.fields[0].type, len, {data, uri}), "blob column");
    Array id = Check(lancet::ArrayFromVector(lancet::MakeType(TypeId::kInt64), ids), "ids");
    RecordBatch batch{schema, len, {col, id}};
    lancet::table::WriteParams params;
    params.mode = first == 0 ? lancet::table::WriteMode::kCreate : lancet::table::WriteMode::kAppend;
    auto t0 = Clock::now();
    Check(lancet::media::WriteDatasetWithBlobInfo(inline_root, schema, {batch}, params, {{"video", spec}}),
          "write " + inline_root);
    auto t1 = Clock::now();
    Check(lancet::media::WriteDatasetWithIndexColumns(index_root, schema, {batch}, params, {{"video", spec}}),
          "write " + index_root);
    auto t2 = Clock::now();
    inline_s += std::chrono::duration<double>(t1 - t0).count();
    index_s += std::chrono::duration<double>(t2 - t1).count();
  }
  std::cerr << "blob_info_bench: wrote both layouts (" << std::fixed << std::setprecision(1) << inline_s
            << " s inline, " << index_s << " s index columns)\n";
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

// One layout on one store: how to call it and what its store counts.
struct Side {
  std::string layout;
  std::unique_ptr<Dataset> dataset;
  std::shared_ptr<lancet::io::ObjectStore> store;
  const lancet::io::LatencyStore* latency = nullptr;  // for its HEAD/LIST count
  bool index_columns = false;
  // Index columns with both projections in flight at once (resolve + plan only).
  bool concurrent = false;
};

// One call's inputs: rows and request.
struct Call {
  std::vector<uint64_t> rows;
  std::vector<uint8_t> request;
};

struct Sample {
  std::vector<double> ms;
  double read_requests = 0, logical_ranges = 0, metadata_requests = 0, read_bytes = 0;
};

std::span<const uint8_t> Span(std::string_view v) { return {reinterpret_cast<const uint8_t*>(v.data()), v.size()}; }

// What a resolve that overlaps the two projections of the index-column layout costs:
// the index columns are taken on another thread while this one locates the blobs.
lancet::Status ConcurrentResolvePlan(const Dataset& ds, const Call& call, const lancet::media::MediaPlugin& plugin,
                                     ExtractStats* stats) {
  const std::vector<std::string> names = {"video_blob_type", "video_stream_info", "video_entries"};
  auto index_future = std::async(std::launch::async, [&] { return ds.TakeRowIds(call.rows, names); });
  auto located = ds.LocateBlobs("video", call.rows);
  auto index = index_future.get();
  if (!located.ok()) return located.status();
  if (!index.ok()) return index.status();
  const Array& types = index->columns[0];
  for (size_t i = 0; i < call.rows.size(); ++i) {
    const auto r = static_cast<int64_t>(i);
    if (!(*located)[i] || types.IsNull(r)) return lancet::Status::InvalidArgument("a row without an index");
    auto ranges = plugin.Plan(Span(index->columns[1].GetView(r)), Span(index->columns[2].GetView(r)), call.request,
                              (*located)[i]->length);
    if (!ranges.ok()) return ranges.status();
    ++stats->rows;
  }
  return lancet::Status::OK();
}

void RunCall(const Side& side, const Call& call, bool extract, const lancet::media::MediaPlugin& plugin,
             Sample* sample) {
  ExtractStats stats;
  side.store->stats().Reset();
  const uint64_t meta0 = side.latency ? side.latency->metadata_requests() : 0;
  auto t0 = Clock::now();
  lancet::Status st;
  if (extract) {
    st = (side.index_columns
              ? lancet::media::ExtractWithIndexColumns(*side.dataset, "video", call.rows, call.request, plugin, {},
                                                       &stats)
              : lancet::media::Extract(*side.dataset, "video", call.rows, call.request, plugin, {}, &stats))
             .status();
  } else if (side.concurrent) {
    st = ConcurrentResolvePlan(*side.dataset, call, plugin, &stats);
  } else {
    st = (side.index_columns
              ? lancet::media::ResolveAndPlanWithIndexColumns(*side.dataset, "video", call.rows, call.request, plugin,
                                                              {}, &stats)
              : lancet::media::ResolveAndPlan(*side.dataset, "video", call.rows, call.request, plugin, {}, &stats))
             .status();
  }
  auto t1 = Clock::now();
  if (!st.ok()) Die(side.layout + ": " + st.ToString());
  if (stats.rows != call.rows.size()) Die(side.layout + ": a row had no index");
  sample->ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  const auto c = side.store->stats().Snapshot();
  sample->read_requests += static_cast<double>(c.read_requests);
  sample->logical_ranges += static_cast<double>(c.logical_ranges);
  sample->read_bytes += static_cast<double>(c.read_bytes);
  if (side.latency) sample->metadata_requests += static_cast<double>(side.latency->metadata_requests() - meta0);
}

std::vector<uint8_t> Text(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const fs::path dir = o.dir.empty()
                           ? fs::temp_directory_path() / ("lancet_blob_info_bench_" + std::to_string(::getpid()))
                           : fs::path(o.dir);
  const std::string inline_root = (dir / "inline.lance").string();
  const std::string index_root = (dir / "index_columns.lance").string();
  const std::string config = "chunk_size=" + std::to_string(o.chunk_kib * 1024) + ";blob_type=1";
  const lancet::media::PluginSpec spec{LANCET_CHUNKS_PLUGIN, Text(config)};
  auto plugin = Check(lancet::media::MediaPlugin::Load(spec), "load the chunks plugin");

  std::mt19937_64 rng(o.seed);
  std::vector<uint64_t> sizes(o.rows);
  for (uint64_t& s : sizes) s = (o.min_kib * 1024) + rng() % ((o.max_kib - o.min_kib) * 1024 + 1);
  if (!fs::exists(fs::path(inline_root) / "_versions") || !fs::exists(fs::path(index_root) / "_versions")) {
    fs::remove_all(inline_root);
    fs::remove_all(index_root);
    fs::create_directories(dir);
    WriteBoth(o, sizes, inline_root, index_root, spec);
  }

  // Row ids (row addresses: no stable row ids) of the rows in write order; both
  // layouts must have the same fragments for the calls to mean the same rows.
  std::vector<uint64_t> ids;
  std::vector<std::pair<uint64_t, uint64_t>> frags[2];
  for (int s = 0; s < 2; ++s) {
    auto ds = Check(Dataset::Open(s == 0 ? inline_root : index_root), "open");
    for (const auto& f : ds->fragments()) frags[s].push_back({f.id, f.physical_rows});
  }
  if (frags[0] != frags[1]) Die("the two layouts have different fragments: remove " + dir.string());
  for (const auto& [id, rows] : frags[0]) {
    for (uint64_t r = 0; r < rows; ++r) ids.push_back((id << 32) | r);
  }
  if (ids.size() != o.rows) Die(dir.string() + " holds datasets written with other options");
  // Calls, the same for every store and layout.
  std::vector<Call> singles, batches;
  for (uint64_t i = 0; i < o.singles; ++i) {
    const uint64_t row = rng() % o.rows;
    const uint64_t chunks = (sizes[row] + o.chunk_kib * 1024 - 1) / (o.chunk_kib * 1024);
    singles.push_back({{ids[row]}, Text("chunks=" + std::to_string(rng() % chunks))});
  }
  for (uint64_t i = 0; i < o.batches; ++i) {
    Call call{{}, Text("chunks=1")};
    for (uint64_t k = 0; k < o.batch_rows; ++k) call.rows.push_back(ids[rng() % o.rows]);
    batches.push_back(std::move(call));
  }

  struct StoreCase {
    std::string name;
    std::function<std::shared_ptr<lancet::io::ObjectStore>()> make;
  };
  std::vector<StoreCase> stores = {{"local", [] { return lancet::io::LocalFileSystem(); }}};
  if (o.latency_ms > 0) {
    stores.push_back({"latency_" + std::to_string(o.latency_ms) + "ms", [&] {
                        return lancet::io::WithLatency(lancet::io::LocalFileSystem(),
                                                       std::chrono::milliseconds(o.latency_ms));
                      }});
  }
  struct Row {
    std::string store, op, shape, layout;
    double inline_ms, other_ms, inline_reads, other_reads;
  };
  std::vector<Row> table;
  constexpr int kSides = 3;
  const char* kLayouts[kSides] = {"inline", "index_columns", "index_columns_concurrent"};
  for (const StoreCase& sc : stores) {
    Side sides[kSides];
    for (int s = 0; s < kSides; ++s) {
      sides[s].index_columns = s >= 1;
      sides[s].concurrent = s == 2;
      sides[s].layout = kLayouts[s];
      sides[s].store = sc.make();
      sides[s].latency = dynamic_cast<const lancet::io::LatencyStore*>(sides[s].store.get());
      sides[s].dataset = Check(Dataset::Open(sides[s].store, s == 0 ? inline_root : index_root), "open");
      // Open every data file (footers and column metadata) before timing.
      std::vector<uint64_t> firsts;
      for (const auto& f : sides[s].dataset->fragments()) firsts.push_back(f.id << 32);
      lancet::media::ExtractOptions by_address;
      by_address.key = lancet::table::RowKey::kRowAddress;
      auto warm = sides[s].index_columns
                      ? lancet::media::ResolveAndPlanWithIndexColumns(*sides[s].dataset, "video", firsts,
                                                                      Text("chunks=0"), *plugin, by_address)
                      : lancet::media::ResolveAndPlan(*sides[s].dataset, "video", firsts, Text("chunks=0"), *plugin,
                                                      by_address);
      Check(std::move(warm), "warm-up of " + sides[s].layout);
    }
    for (bool extract : {false, true}) {
      // Extraction runs the library's two layouts only.
      const int active = extract ? 2 : kSides;
      for (const auto* calls : {&singles, &batches}) {
        const std::string op = extract ? "extract" : "resolve_plan";
        const std::string shape = calls == &singles ? "single" : "batch" + std::to_string(o.batch_rows);
        std::vector<double> rep_ms[kSides];
        Sample total[kSides];
        for (uint64_t rep = 0; rep < o.reps; ++rep) {
          Sample sample[kSides];
          for (size_t i = 0; i < calls->size(); ++i) {
            // Rotate which layout goes first, so none always runs on a warmer cache.
            for (int k = 0; k < active; ++k) {
              const int s = static_cast<int>((i + static_cast<size_t>(k)) % static_cast<size_t>(active));
              RunCall(sides[s], (*calls)[i], extract, *plugin, &sample[s]);
            }
          }
          for (int s = 0; s < active; ++s) {
            rep_ms[s].push_back(Median(sample[s].ms));
            total[s].ms.insert(total[s].ms.end(), sample[s].ms.begin(), sample[s].ms.end());
            total[s].read_requests += sample[s].read_requests;
            total[s].logical_ranges += sample[s].logical_ranges;
            total[s].metadata_requests += sample[s].metadata_requests;
            total[s].read_bytes += sample[s].read_bytes;
          }
        }
        double med[kSides], reads[kSides];
        for (int s = 0; s < active; ++s) {
          const auto n = static_cast<double>(total[s].ms.size());
          med[s] = Median(rep_ms[s]);
          reads[s] = total[s].logical_ranges / n;
          nlohmann::json j = {{"bench", "blob_info"},
                              {"store", sc.name},
                              {"op", op},
                              {"shape", shape},
                              {"layout", sides[s].layout},
                              {"projections", s == 0 ? 1 : 2},
                              {"calls_per_rep", calls->size()},
                              {"reps", o.reps},
                              {"median_ms", med[s]},
                              {"rep_medians_ms", rep_ms[s]},
                              {"p10_ms", Quantile(total[s].ms, 0.1)},
                              {"p90_ms", Quantile(total[s].ms, 0.9)},
                              {"logical_reads_per_call", reads[s]},
                              {"read_requests_per_call", total[s].read_requests / n},
                              {"metadata_requests_per_call", total[s].metadata_requests / n},
                              {"read_bytes_per_call", total[s].read_bytes / n}};
          // On the latency store, time over latency counts the request rounds a call waits for.
          if (sides[s].latency) j["latency_rounds"] = med[s] / static_cast<double>(o.latency_ms);
          std::cout << j.dump() << "\n";
        }
        for (int s = 1; s < active; ++s) {
          const double pct = (med[s] - med[0]) / med[s] * 100;
          nlohmann::json cmp = {{"bench", "blob_info"},
                                {"store", sc.name},
                                {"op", op},
                                {"shape", shape},
                                {"against", sides[s].layout},
                                {"inline_ms", med[0]},
                                {"index_ms", med[s]},
                                {"inline_faster_pct", pct},
                                {"index_over_inline", med[s] / med[0]},
                                {"target_21pct_met", pct >= 21}};
          std::cout << cmp.dump() << std::endl;
          table.push_back({sc.name, op, shape, sides[s].layout, med[0], med[s], reads[0], reads[s]});
        }
      }
    }
  }
  std::cerr << "\n"
            << std::left << std::setw(14) << "store" << std::setw(14) << "op" << std::setw(9) << "shape"
            << std::setw(26) << "vs layout" << std::right << std::setw(11) << "inline ms" << std::setw(11) << "other ms"
            << std::setw(10) << "faster" << std::setw(15) << "logical reads\n";
  for (const Row& r : table) {
    std::cerr << std::left << std::setw(14) << r.store << std::setw(14) << r.op << std::setw(9) << r.shape
              << std::setw(26) << r.layout << std::right << std::fixed << std::setprecision(3) << std::setw(11)
              << r.inline_ms << std::setw(11) << r.other_ms << std::setprecision(1) << std::setw(9)
              << (r.other_ms - r.inline_ms) / r.other_ms * 100 << "%" << std::setw(7) << r.inline_reads << " vs "
              << r.other_reads << "\n";
  }
  if (!o.keep && o.dir.empty()) fs::remove_all(dir);
  return 0;
}
