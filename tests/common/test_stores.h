// Where a store-parameterised test writes: a fresh local directory, an in-memory store,
// or a fresh prefix in the S3 bucket the environment names (scripts/s3-server.sh).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <ostream>
#include <random>
#include <string>

#include "lancet/io/object_store.h"
#include "lancet/io/uri.h"

namespace lancet::testing {

enum class StoreKind { kLocal, kMemory, kS3 };

inline std::string StoreKindName(StoreKind k) {
  return k == StoreKind::kLocal ? "Local" : k == StoreKind::kMemory ? "Memory" : "S3";
}

inline void PrintTo(StoreKind k, std::ostream* os) { *os << StoreKindName(k); }

/// True when the environment names an S3 server and a bucket for tests.
inline bool S3Configured() {
  const char* ep = std::getenv("AWS_ENDPOINT_URL");
  const char* bucket = std::getenv("LANCET_TEST_BUCKET");
  return ep != nullptr && *ep != 0 && bucket != nullptr && *bucket != 0;
}

inline constexpr const char* kNoS3 =
    "no S3 server: set AWS_ENDPOINT_URL and LANCET_TEST_BUCKET (eval \"$(scripts/s3-server.sh start)\")";

/// Skips the current test when `kind` is S3 and no server is configured.
#define LANCET_SKIP_WITHOUT_STORE(kind)                                                    \
  do {                                                                                     \
    if ((kind) == ::lancet::testing::StoreKind::kS3 && !::lancet::testing::S3Configured()) \
      GTEST_SKIP() << ::lancet::testing::kNoS3;                                            \
  } while (0)

/// Deletes every object under `dir` (recursively).
inline void DeleteTree(io::ObjectStore& store, const std::string& dir) {
  auto list = store.List(dir);
  if (!list.ok()) return;
  for (const io::ObjectInfo& e : *list) {
    std::string p = dir + "/" + e.path;
    if (e.is_dir) {
      DeleteTree(store, p);
    } else {
      (void)store.Delete(p);
    }
  }
}

/// A fresh, empty root for one test; removed with everything under it when destroyed.
class TestRoot {
 public:
  /// `kind` must be available (S3: S3Configured()).
  TestRoot(StoreKind kind, const std::string& name) : kind_(kind) {
    static const std::string run = std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}() & 0xffffff);
    const std::string leaf = "lancet_" + run + "_" + name;
    if (kind == StoreKind::kLocal) {
      local_ = std::filesystem::temp_directory_path() / leaf;
      std::filesystem::remove_all(local_);
      std::filesystem::create_directories(local_);
      store_ = io::LocalFileSystem();
      root_ = local_.string();
      uri_ = root_;
    } else if (kind == StoreKind::kMemory) {
      store_ = io::NewMemoryStore();
      root_ = "/mem/" + leaf;
      uri_ = root_;
    } else {
      uri_ = std::string("s3://") + std::getenv("LANCET_TEST_BUCKET") + "/tests/" + leaf;
      auto resolved = io::ResolveUri(uri_);
      EXPECT_TRUE(resolved.ok()) << resolved.status().ToString();
      if (resolved.ok()) {
        store_ = resolved->store;
        root_ = resolved->root;
      }
    }
  }
  ~TestRoot() {
    if (kind_ == StoreKind::kLocal) {
      std::error_code ec;
      std::filesystem::remove_all(local_, ec);
    } else if (kind_ == StoreKind::kS3 && store_) {
      DeleteTree(*store_, root_);
    }
  }
  TestRoot(const TestRoot&) = delete;
  TestRoot& operator=(const TestRoot&) = delete;

  StoreKind kind() const { return kind_; }
  const std::shared_ptr<io::ObjectStore>& store() const { return store_; }
  /// The root inside store(): a local path, "/mem/…", or an S3 key prefix.
  const std::string& root() const { return root_; }
  /// The same place as a URI for the path-taking APIs (local path or s3://bucket/…).
  const std::string& uri() const { return uri_; }
  /// root() + "/" + rel.
  std::string Path(const std::string& rel) const { return root_ + "/" + rel; }

 private:
  StoreKind kind_;
  std::filesystem::path local_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  std::string uri_;
};

inline std::string CurrentTestName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string n = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : n) {
    if (c == '/') c = '_';
  }
  return n;
}

}  // namespace lancet::testing
