// A small fixed-size thread pool for parallel I/O and decoding.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace lancet {

/// \brief Runs submitted tasks on a fixed set of threads. Thread-safe.
class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  size_t size() const { return workers_.size(); }

  /// The process-wide pool for I/O (8 threads: reads mostly wait, not compute).
  /// Per process: a child made by fork() (Python's multiprocessing, PyTorch's
  /// DataLoader workers) gets pools of its own on first use, since the parent's threads
  /// do not exist there and tasks queued to them would never run.
  static ThreadPool& Io();
  /// The process-wide pool for decoding: one thread per core (per process, as Io()).
  static ThreadPool& Cpu();

 private:
  void Loop();
  static int OwnerPid(const ThreadPool& pool);
  const int owner_pid_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

/// Runs fn(i) for i in [0, n) on `pool`, at most `parallelism` at once, and waits.
/// The calling thread takes part, so this never deadlocks when called from a worker.
void ParallelFor(ThreadPool& pool, size_t n, size_t parallelism, const std::function<void(size_t)>& fn);

}  // namespace lancet
