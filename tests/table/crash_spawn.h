// Starting the crash_child writer with its standard output on a pipe, for the tests
// that kill it and read back what it reported.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

namespace lancet::table::testing {

/// Forks and execs LANCET_CRASH_CHILD with `args`; *read_fd gets the read end of its
/// stdout. -1 when the pipe cannot be made.
inline pid_t SpawnCrashChild(std::vector<std::string> args, int* read_fd) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  args.insert(args.begin(), LANCET_CRASH_CHILD);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  *read_fd = fds[0];
  return pid;
}

}  // namespace lancet::table::testing
