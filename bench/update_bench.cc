// Update throughput, Lancet vs the reference, in one run.
//
//   update_bench DATASET [--where EXPR] [--set COL=EXPR] [--reps 3] [--peer DIR]
//
// Both sides update fresh copies of DATASET (the mixed 1M-row dataset of
// `bench.mjs --op make-dataset`); by default 1 % of the rows (`id % 100 = 0`, value =
// value + 1). With --peer (the harness dir, tests/peer) the reference's `bench.mjs
// update` runs first with the same arguments and its median is compared. As bench.mjs
// does, each run copies DATASET beside it outside the timer, syncs, opens the copy,
// times the update alone and deletes the copy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lancet/table/dataset.h"
#include "lancet/table/update.h"

namespace fs = std::filesystem;

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::cerr << "update_bench: " << what << "\n";
  std::exit(2);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

uint64_t DirBytes(const fs::path& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

// The reference's JSON line for the same update.
nlohmann::json RunReference(const std::string& peer, const std::string& dataset, const std::string& where,
                            const std::string& set, int reps) {
  auto quote = [](const std::string& s) { return "'" + s + "'"; };
  std::string cmd = "node " + quote(peer + "/bench.mjs") + " update " + quote(dataset) + " --where " + quote(where) +
                    " --set " + quote(set) + " --reps " + std::to_string(reps) + " --quiet";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) Die("cannot run " + cmd);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) Die("the reference failed: " + cmd + "\n" + out);
  std::string last = out.substr(0, out.find_last_not_of('\n') + 1);
  last = last.substr(last.find_last_of('\n') + 1);
  return nlohmann::json::parse(last);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: update_bench DATASET [--where EXPR] [--set COL=EXPR] [--reps N] [--peer DIR]");
  std::string dataset = argv[1], where = "id % 100 = 0", set = "value=value + 1", peer;
  int reps = 3;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--where")
      where = v;
    else if (k == "--set")
      set = v;
    else if (k == "--reps")
      reps = std::max(1, std::stoi(v));
    else if (k == "--peer")
      peer = v;
    else
      Die("unknown option " + k);
  }
  const size_t eq = set.find('=');
  if (eq == std::string::npos) Die("--set takes COL=EXPR");
  const std::vector<std::pair<std::string, std::string>> assignments = {{set.substr(0, eq), set.substr(eq + 1)}};

  nlohmann::json ref;
  if (!peer.empty()) ref = RunReference(peer, dataset, where, set, reps);

  const fs::path src = fs::absolute(dataset);
  std::vector<double> ms;
  uint64_t rows = 0, added = 0;
  for (int r = 0; r < reps + 1; ++r) {  // the first run warms the page cache
    const fs::path copy = src.parent_path() / ("." + src.filename().string() + ".lancet-copy");
    fs::remove_all(copy);
    fs::copy(src, copy, fs::copy_options::recursive);
    ::sync();
    const uint64_t before = DirBytes(copy);
    auto ds = lancet::table::Dataset::Open(copy.string());
    if (!ds.ok()) Die(ds.status().ToString());
    const auto t0 = std::chrono::steady_clock::now();
    auto result = lancet::table::Update(**ds, where, assignments);
    const auto t1 = std::chrono::steady_clock::now();
    if (!result.ok()) Die(result.status().ToString());
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    rows = result->rows_updated;
    added = DirBytes(copy) - before;
    ds->reset();
    fs::remove_all(copy);
  }
  const double ours = Median(ms);
  nlohmann::json line = {{"op", "update"}, {"dataset", dataset}, {"where", where},       {"set", set},
                         {"reps", reps},   {"median_ms", ours},  {"rows_updated", rows}, {"disk_bytes_added", added}};
  if (!ref.is_null()) {
    const double theirs = ref.value("median_ms", 0.0);
    line["ref_median_ms"] = theirs;
    line["ref_rows_updated"] = ref.value("rows_updated", uint64_t{0});
    line["ref_disk_bytes_added"] = ref.value("disk_bytes_added", uint64_t{0});
    line["ratio_ref_over_lancet"] = ours > 0 ? theirs / ours : 0.0;
    if (line["ref_rows_updated"] != rows) Die("row counts differ: " + line.dump());
  }
  std::cout << line.dump() << "\n";
  return 0;
}
