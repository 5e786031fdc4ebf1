// lancet: command-line access to Lance datasets.
#include <csignal>
#include <cstdio>
#include <exception>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lancet/cli_common.h"
#include "lancet/cli_main.h"

int main(int argc, char** argv) {
  // A reader that stops early (`lancet scan X | head -1`) must not kill lancet with
  // SIGPIPE; writes fail with EPIPE instead and lancet ends quietly (StdoutClosedEarly).
  std::signal(SIGPIPE, SIG_IGN);
#ifdef __GLIBC__
  // glibc gives every thread that allocates its own arena, and each arena keeps the
  // pages of the batch buffers freed in it: over a streaming export of 1 GiB (scan
  // workers allocate, the main thread frees) the peak anonymous memory was 295-332 MiB
  // with the default and 260-276 MiB with two arenas (bench/stream_io_stress.sh data).
  mallopt(M_ARENA_MAX, 2);
#endif
  // CLI11 reports parse problems with exceptions; nothing else in lancet throws,
  // but an allocation failure must still end with a message rather than abort.
  try {
    return lancet::cli::RunMain(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lancet: %s\n", e.what());
    return lancet::cli::kExitFailure;
  }
}
