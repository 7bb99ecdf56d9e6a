// GPU tests: exit 77 (reported by CTest as skipped) when this machine has no usable GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <string>

#include "generator/nvrtc_workers.hpp"
#include "runtime/device_info.hpp"

int main(int argc, char** argv) {
  // The suite compiles thousands of variants. In one process NVRTC scales to about 4 threads, so its
  // compiles go to worker processes (this executable re-run with the hidden subcommand), as the
  // jitsparse command's do: the code paths the tuner runs, at the speed it gets.
  if (argc >= 2 && std::string(argv[1]) == jitsparse::kNvrtcWorkerSubcommand)
    return jitsparse::nvrtc_worker_main(argc, argv);
  std::string why;
  if (jitsparse::device_count(&why) == 0) {
    std::cout << "GPU tests skipped: " << why << "\n";
    return 77;
  }
  jitsparse::enable_nvrtc_workers("/proc/self/exe", jitsparse::kNvrtcWorkerSubcommand);
  doctest::Context context(argc, argv);
  return context.run();
}
