#include "blob/blob_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/sha256.h"

namespace lancet::blob::testing {
namespace {

namespace fs = std::filesystem;

class CountingFile final : public io::RandomAccessFile {
 public:
  CountingFile(std::unique_ptr<io::RandomAccessFile> base, const CountingStore* store)
      : base_(std::move(base)), store_(store) {}
  const std::string& path() const override { return base_->path(); }
  Result<uint64_t> Size() const override { return base_->Size(); }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) const override {
    store_->Record(base_->path(), length);
    return base_->ReadAt(offset, length);
  }
  bool cheap_reads() const override { return base_->cheap_reads(); }

 private:
  std::unique_ptr<io::RandomAccessFile> base_;
  const CountingStore* store_;
};

}  // namespace

std::string CorpusDir() {
  const char* dir = std::getenv("LANCET_CORPUS_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp/corpus";
}

bool HasCorpusDataset(const std::string& name) {
  return fs::is_directory(DatasetPath(name)) && fs::exists(CorpusDir() + "/expected/" + name + ".json");
}

std::string DatasetPath(const std::string& name) { return CorpusDir() + "/data/" + name + ".lance"; }

json LoadExpected(const std::string& name) {
  std::ifstream in(CorpusDir() + "/expected/" + name + ".json");
  return json::parse(in);
}

uint64_t U64(const json& v) { return v.is_string() ? std::stoull(v.get<std::string>()) : v.get<uint64_t>(); }

json BlobValue(const json& row, const std::string& column) {
  const json* v = &row;
  for (size_t start = 0;;) {
    if (v->is_null()) return nullptr;
    size_t dot = column.find('.', start);
    std::string part = column.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!v->contains(part)) return nullptr;
    v = &(*v)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (v->is_null() || (*v)["bytes"].is_null()) return nullptr;
  return *v;
}

bool BytesMatch(std::string_view bytes, const json& expected) {
  std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (expected.is_string()) return ToHex(span) == expected.get<std::string>();
  return bytes.size() == expected["len"].get<uint64_t>() && Sha256Hex(span) == expected["sha256"].get<std::string>();
}

std::string TestTempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "none";
  for (char& c : test) {
    if (c == '/') c = '_';
  }
  fs::path dir = fs::temp_directory_path() / ("lancet_blob_" + std::to_string(::getpid()) + "_" + test);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string CopyDatasetToTemp(const std::string& name) {
  fs::path dest = fs::path(TestTempDir()) / (name + ".lance");
  fs::copy(DatasetPath(name), dest, fs::copy_options::recursive);
  return dest.string();
}

std::string SidecarName(uint32_t blob_id) {
  std::string name(32, '0');
  for (int bit = 0; bit < 32; ++bit) {
    if ((blob_id >> bit) & 1) name[bit] = '1';
  }
  return name + ".blob";
}

Result<std::unique_ptr<io::RandomAccessFile>> CountingStore::OpenRead(const std::string& path) const {
  ASSIGN_OR_RETURN(auto file, base_->OpenRead(path));
  return std::unique_ptr<io::RandomAccessFile>(new CountingFile(std::move(file), this));
}

CountingStore::Reads CountingStore::ReadsOf(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reads_.find(path);
  return it == reads_.end() ? Reads{} : it->second;
}

std::map<std::string, CountingStore::Reads> CountingStore::AllReads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reads_;
}

void CountingStore::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  reads_.clear();
}

void CountingStore::Record(const std::string& path, uint64_t bytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  Reads& r = reads_[path];
  ++r.requests;
  r.bytes += bytes;
}

}  // namespace lancet::blob::testing
