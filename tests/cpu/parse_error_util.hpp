// Test helpers for the readers' error messages.
#pragma once
#include <string>

#include "core/error.hpp"

namespace jitsparse::test {

// The message of the ParseError that f throws, or "" when it throws none.
template <class F>
std::string parse_error(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace jitsparse::test
