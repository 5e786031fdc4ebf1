#include "sink_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace lancet::cli {

Result<std::string> CaptureSink(const std::function<Status(OutputSink&)>& write) {
  static std::atomic<int> counter{0};
  const std::string path = ::testing::TempDir() + "/lancet_sink_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++) + ".out";
  ASSIGN_OR_RETURN(auto sink, OutputSink::Open(path));
  Status st = write(*sink);
  Status closed = sink->Close();
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path.c_str());
  RETURN_IF_ERROR(st);
  RETURN_IF_ERROR(closed);
  return ss.str();
}

}  // namespace lancet::cli
