#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "util/per_process.h"

namespace lancet {

ThreadPool::ThreadPool(size_t threads) : owner_pid_(ThisPid()) {
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { Loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
      if (stop_ && tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

int ThreadPool::OwnerPid(const ThreadPool& pool) { return pool.owner_pid_; }

ThreadPool& ThreadPool::Io() {
  static std::atomic<ThreadPool*> slot{nullptr};
  return OfThisProcess(
      slot, [] { return new ThreadPool(8); }, &ThreadPool::OwnerPid);
}

ThreadPool& ThreadPool::Cpu() {
  static std::atomic<ThreadPool*> slot{nullptr};
  return OfThisProcess(
      slot, [] { return new ThreadPool(std::max(1u, std::thread::hardware_concurrency())); }, &ThreadPool::OwnerPid);
}

void ParallelFor(ThreadPool& pool, size_t n, size_t parallelism, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1 || parallelism <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // Workers pull indices from a shared counter; the caller pulls too, so progress
  // never depends on a free pool thread.
  struct Shared {
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
  };
  auto shared = std::make_shared<Shared>();
  auto work = [shared, n, &fn] {
    for (size_t i; (i = shared->next.fetch_add(1)) < n;) {
      fn(i);
      if (shared->done.fetch_add(1) + 1 == n) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->cv.notify_all();
      }
    }
  };
  size_t helpers = std::min(parallelism, n) - 1;
  for (size_t h = 0; h < helpers; ++h) pool.Submit(work);
  work();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done.load() == n; });
}

}  // namespace lancet
