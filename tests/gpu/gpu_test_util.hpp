#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/reference.hpp"
#include "runtime/context.hpp"

namespace jitsparse::test {

// tests/data: $JITSPARSE_TEST_DATA, else the source tree's (when built here), else ./tests/data (a carried
// binary run from the repository root on another machine).
inline std::string test_data_dir() {
  if (const char* d = std::getenv("JITSPARSE_TEST_DATA")) return d;
  if (std::filesystem::is_directory(JITSPARSE_TEST_DATA)) return JITSPARSE_TEST_DATA;
  return "tests/data";
}

// One context for the whole test run (creating one per test would reload every kernel).
inline Context& gpu_context() {
  static Context ctx;
  return ctx;
}

}  // namespace jitsparse::test
