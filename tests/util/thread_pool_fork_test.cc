// The process-wide pools after fork(): the child's first use makes pools of its own
// (the parent's threads do not exist in it), so work submitted there runs. Python's
// multiprocessing and PyTorch's DataLoader workers fork a process that used Lancet.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "util/thread_pool.h"

namespace lancet {
namespace {

// Runs a task on `pool` and waits up to 10 s for it: 0 if it ran.
int RunsATask(ThreadPool& pool) {
  auto done = std::make_shared<std::promise<int>>();
  std::future<int> f = done->get_future();
  pool.Submit([done] { done->set_value(7); });
  if (f.wait_for(std::chrono::seconds(10)) != std::future_status::ready) return 2;
  return f.get() == 7 ? 0 : 3;
}

// Returns once every thread of `pool` has started and run a task. A fork while a
// thread is still starting can leave the child's thread machinery locked (ASan's
// thread registry is), which is not what this test is about.
void EveryThreadStarted(ThreadPool& pool) {
  struct Shared {
    std::atomic<size_t> arrived{0};
    std::promise<void> all;
    std::atomic<size_t> left;
  };
  const size_t n = pool.size();
  auto shared = std::make_shared<Shared>();
  shared->left = n;
  for (size_t i = 0; i < n; ++i) {
    pool.Submit([shared, n] {
      // All n tasks running at once means n threads are up.
      shared->arrived.fetch_add(1);
      while (shared->arrived.load() < n) std::this_thread::yield();
      if (shared->left.fetch_sub(1) == 1) shared->all.set_value();
    });
  }
  shared->all.get_future().wait();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // back to waiting for work
}

TEST(ThreadPoolFork, ChildGetsPoolsOfItsOwn) {
  ASSERT_EQ(RunsATask(ThreadPool::Io()), 0);
  ASSERT_EQ(RunsATask(ThreadPool::Cpu()), 0);
  EveryThreadStarted(ThreadPool::Io());
  EveryThreadStarted(ThreadPool::Cpu());
  ThreadPool* parent_io = &ThreadPool::Io();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const bool fresh = &ThreadPool::Io() != parent_io && &ThreadPool::Io() == &ThreadPool::Io();
    const int io = RunsATask(ThreadPool::Io());
    const int cpu = RunsATask(ThreadPool::Cpu());
    ::_exit(!fresh ? 4 : io != 0 ? io : cpu);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent keeps its pool.
  EXPECT_EQ(&ThreadPool::Io(), parent_io);
  EXPECT_EQ(RunsATask(ThreadPool::Io()), 0);
}

}  // namespace
}  // namespace lancet
