// GPU tests: exit 77 (reported by CTest as skipped) when this machine has no usable GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "runtime/device_info.hpp"

int main(int argc, char** argv) {
  std::string why;
  if (jitsparse::device_count(&why) == 0) {
    std::cout << "GPU tests skipped: " << why << "\n";
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
