// libFuzzer target: the Matrix Market reader. Each input is read as real, complex, quaternion and block3
// (the banner in the input picks field, format and symmetry). An accepted matrix must be a valid
// HostMatrix and must survive write + read unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/host_matrix.hpp"
#include "fuzz/fuzz_util.hpp"
#include "io/matrix_market.hpp"

namespace {

using namespace jitsparse;

// A legitimate header may declare up to 2^31-2 rows: CSR then needs 8 GB of row pointers, which the fuzzer's
// 2 GB allocation limit would report. Inputs whose size line declares more than 2^24 rows or columns are
// left to the unit tests (which check the header limits); the entry count is not limited here, since the
// reader reserves only what the text can hold.
bool declares_huge_size(const std::string& text) {
  size_t pos = text.find('\n');  // after the banner
  while (pos != std::string::npos && pos + 1 < text.size()) {
    const size_t start = pos + 1;
    pos = text.find('\n', start);
    std::string_view line(text.data() + start, (pos == std::string::npos ? text.size() : pos) - start);
    const size_t first = line.find_first_not_of(" \t\r\v\f");
    if (first == std::string_view::npos || line[first] == '%') continue;
    // The size line: its first two tokens, as the reader splits them.
    size_t i = first;
    for (int token = 0; token < 2 && i < line.size(); ++token) {
      const size_t end = std::min(line.find_first_of(" \t\r\v\f", i), line.size());
      const std::string_view t = line.substr(i, end - i);
      size_t k = t.find_first_not_of('0');  // leading zeros do not make a number large
      if (k != std::string_view::npos && t.find_first_not_of("0123456789") == std::string_view::npos &&
          (t.size() - k > 8 || std::stoll(std::string(t.substr(k))) > (int64_t{1} << 24)))
        return true;
      i = line.find_first_not_of(" \t\r\v\f", end);
    }
    return false;
  }
  return false;
}

void check_matrix(const HostMatrix& m, const std::string& entry) {
  try {
    m.validate();
  } catch (const Error& e) {
    fuzz::finding("read_matrix_market returned an invalid matrix as " + entry + ": " + e.what());
  }
  fuzz::require(m.entry.name == entry, "entry type " + m.entry.name + " instead of " + entry);
}

void check_round_trip(const HostMatrix& m, const std::string& entry) {
  const std::string text = write_matrix_market_string(m);
  HostMatrix back;
  try {
    back = read_matrix_market_string(text, "roundtrip.mtx", {entry});
  } catch (const Error& e) {
    fuzz::finding("the writer's output of an accepted " + entry + " matrix does not read back: " + e.what());
  }
  fuzz::require(back.rows == m.rows && back.cols == m.cols && back.row_ptr == m.row_ptr &&
                    back.col_idx == m.col_idx && back.values == m.values,
                "write + read changed an accepted " + entry + " matrix");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (declares_huge_size(text)) return 0;
  for (const char* entry : {"real", "complex", "quaternion", "block3"}) {
    HostMatrix m;
    const bool ok = fuzz::accepted([&] { m = read_matrix_market_string(text, "fuzz.mtx", {entry}); },
                                   [](const std::string& msg) { return fuzz::names_file_and_line(msg, "fuzz.mtx"); });
    if (!ok) continue;
    check_matrix(m, entry);
    check_round_trip(m, entry);
  }
  return 0;
}
