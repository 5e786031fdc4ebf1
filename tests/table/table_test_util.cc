#include "table/table_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "table/manifest.h"
#include "util/array_builder.h"

namespace lancet::table::testing {

std::string CorpusDir() {
  const char* env = std::getenv("LANCET_CORPUS_DIR");
  return env != nullptr && *env != '\0' ? env : "/tmp/corpus";
}

bool HasCorpusDataset(const std::string& name) {
  std::error_code ec;
  return std::filesystem::is_directory(CorpusDir() + "/data/" + name + ".lance", ec) &&
         std::filesystem::is_regular_file(CorpusDir() + "/expected/" + name + ".json", ec);
}

std::vector<uint8_t> EncodeManifestFile(const lance::table::Manifest& manifest, const std::vector<uint8_t>& prefix) {
  std::string body = manifest.SerializeAsString();
  std::vector<uint8_t> out(prefix);
  int64_t pos = static_cast<int64_t>(out.size());
  uint32_t len = static_cast<uint32_t>(body.size());
  const auto* lp = reinterpret_cast<const uint8_t*>(&len);
  out.insert(out.end(), lp, lp + 4);
  out.insert(out.end(), body.begin(), body.end());
  const auto* pp = reinterpret_cast<const uint8_t*>(&pos);
  out.insert(out.end(), pp, pp + 8);
  uint16_t major = 0, minor = 2;
  const auto* mj = reinterpret_cast<const uint8_t*>(&major);
  const auto* mn = reinterpret_cast<const uint8_t*>(&minor);
  out.insert(out.end(), mj, mj + 2);
  out.insert(out.end(), mn, mn + 2);
  const char* magic = "LANC";
  out.insert(out.end(), magic, magic + 4);
  return out;
}

Status PutManifest(io::ObjectStore& store, const std::string& root, const lance::table::Manifest& manifest,
                   bool v2_naming) {
  std::string name = v2_naming ? ManifestFileNameV2(manifest.version()) : ManifestFileNameV1(manifest.version());
  std::vector<uint8_t> bytes = EncodeManifestFile(manifest);
  return store.Put(JoinPath(root, "_versions/" + name), bytes);
}

lance::table::Manifest MinimalManifest(uint64_t version) {
  lance::table::Manifest m;
  m.set_version(version);
  auto* f = m.add_fields();
  f->set_name("id");
  f->set_id(0);
  f->set_parent_id(-1);
  f->set_logical_type("int64");
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.2");
  return m;
}

Result<std::vector<uint8_t>> ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Status CopyDirToStore(const std::string& dir, io::ObjectStore& store, const std::string& root) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::string rel = std::filesystem::relative(it->path(), dir).generic_string();
    ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadLocalFile(it->path().string()));
    RETURN_IF_ERROR(store.Put(JoinPath(root, rel), bytes));
  }
  if (ec) return Status::IOError(dir + ": " + ec.message());
  return Status::OK();
}

RecordBatch IdNameXRows(int64_t begin, int64_t n) {
  std::vector<int64_t> ids;
  std::vector<double> xs;
  std::vector<std::optional<std::string>> names;
  for (int64_t i = begin; i < begin + n; ++i) {
    ids.push_back(i);
    xs.push_back(static_cast<double>(i) * 0.5);
    names.push_back(i % 7 == 0 ? std::nullopt : std::optional<std::string>("r" + std::to_string(i)));
  }
  auto b = MakeRecordBatch({"id", "name", "x"}, {*ArrayFromVector(MakeType(TypeId::kInt64), ids), StringArray(names),
                                                 *ArrayFromVector(MakeType(TypeId::kFloat64), xs)});
  return *b;
}

std::vector<int64_t> ScannedIds(const Dataset& ds) {
  auto batches = ds.Scan();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<int64_t> ids;
  if (!batches.ok()) return ids;
  for (const RecordBatch& b : *batches) {
    for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].values<int64_t>()[i]);
  }
  return ids;
}

std::vector<int64_t> IdRange(int64_t begin, int64_t end) {
  std::vector<int64_t> v;
  for (int64_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

std::shared_ptr<io::ObjectStore> WriteTwoFragmentBlobTable(const std::string& root, const RecordBatch& first,
                                                           const RecordBatch& second, bool stable_row_ids,
                                                           StorageVersion storage) {
  auto store = io::NewMemoryStore();
  WriteParams p;
  p.enable_stable_row_ids = stable_row_ids;
  p.storage_version = storage;
  p.blobs.binary_as_blob["payload"] = BlobThresholds{4, 12, 1024};
  auto written = WriteDataset(store, root, first.schema, {first}, p);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  p.mode = WriteMode::kAppend;
  written = WriteDataset(store, root, second.schema, {second}, p);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  return store;
}

std::unique_ptr<Dataset> OpenLatest(const std::shared_ptr<io::ObjectStore>& store, const std::string& root) {
  auto ds = Dataset::Open(store, root);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return std::move(*ds);
}

}  // namespace lancet::table::testing
