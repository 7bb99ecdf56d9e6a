// cuSPARSE's sliced ELL as bench/cusparse_baseline.cpp builds it (bench/sliced_ell.hpp), and the bench's
// empty kernel compiling with NVRTC; no GPU needed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "bench/empty_kernel.hpp"
#include "bench/sliced_ell.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/random_matrix.hpp"

using namespace jitsparse;

namespace {

// y = A x read back from the SELL arrays with the documented addressing (slot k of row i of slice s at
// slice_offsets[s] + k * slice_size + i, padding column -1), as cuSPARSE's SELL SpMV reads them.
std::vector<double> sell_product(const SellPattern& p, const std::vector<double>& values, int64_t rows,
                                 const std::vector<double>& x) {
  std::vector<double> y(static_cast<size_t>(rows), 0.0);
  for (int64_t s = 0; s < p.slices(); ++s) {
    const int64_t width = (p.slice_offsets[s + 1] - p.slice_offsets[s]) / p.slice_size;
    for (int64_t i = 0; i < p.slice_size; ++i)
      for (int64_t k = 0; k < width; ++k) {
        const int64_t slot = p.slice_offsets[s] + k * p.slice_size + i;
        const int32_t c = p.col_idx[static_cast<size_t>(slot)];
        if (c < 0) {
          CHECK(values[static_cast<size_t>(slot)] == 0.0);  // padding carries zeros
          continue;
        }
        REQUIRE(s * p.slice_size + i < rows);  // rows past the end are all padding
        y[static_cast<size_t>(s * p.slice_size + i)] += values[static_cast<size_t>(slot)] * x[static_cast<size_t>(c)];
      }
  }
  return y;
}

}  // namespace

TEST_CASE("sliced ELL: the 4 x 4 example of cuSPARSE's documentation, slice size 2") {
  // rows: {0:1, 2:2, 3:3}, {1:4}, {0:5, 2:6, 3:7}, {1:8, 3:9}
  const std::vector<int32_t> row_ptr = {0, 3, 4, 7, 9}, col_idx = {0, 2, 3, 1, 0, 2, 3, 1, 3};
  const std::vector<double> values = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const SellPattern p = sliced_ell_pattern(row_ptr, col_idx, 2);
  CHECK(p.slice_offsets == std::vector<int32_t>{0, 6, 12});
  CHECK(p.values_size() == 12);
  CHECK(p.col_idx == std::vector<int32_t>{0, 1, 2, -1, 3, -1, 0, 1, 2, 3, 3, -1});
  CHECK(sliced_ell_values<float>(p, values, 1) == std::vector<float>{1, 4, 2, 0, 3, 0, 5, 8, 6, 9, 7, 0});
  CHECK(sell_product(p, sliced_ell_values<double>(p, values, 1), 4, {1, 2, 3, 4}) ==
        std::vector<double>{19, 8, 51, 52});
}

TEST_CASE("sliced ELL: the last slice is padded to full size, empty rows and slices are padding") {
  // 5 rows, slice 2: slices {0, 1}, {2, 3}, {4, padding}; rows 2 and 3 are empty.
  const std::vector<int32_t> row_ptr = {0, 1, 3, 3, 3, 5}, col_idx = {4, 0, 1, 2, 3};
  const SellPattern p = sliced_ell_pattern(row_ptr, col_idx, 2);
  CHECK(p.slices() == 3);
  CHECK(p.slice_offsets == std::vector<int32_t>{0, 4, 4, 8});
  CHECK(p.col_idx == std::vector<int32_t>{4, 0, -1, 1, 2, -1, 3, -1});
  CHECK(p.entry == std::vector<int64_t>{0, 1, -1, 2, 3, -1, 4, -1});
  // Complex values: (re, im) pairs move together.
  const std::vector<double> pairs = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5};
  CHECK(sliced_ell_values<double>(p, pairs, 2) ==
        std::vector<double>{1, -1, 2, -2, 0, 0, 3, -3, 4, -4, 0, 0, 5, -5, 0, 0});
}

TEST_CASE("sliced ELL: slice 32 of random matrices multiplies like the CSR") {
  const EntryType& real = EntryRegistry::instance().get("real");
  for (int rows : {1, 31, 32, 33, 301}) {
    RandomMatrixOptions o;
    o.rows = rows;
    o.cols = 57;
    o.mean_row = 5;
    o.empty_fraction = 0.2;
    o.long_row = rows > 100 ? 50 : 0;
    o.seed = static_cast<uint64_t>(rows);
    const HostMatrix a = random_matrix(real, o);
    const std::vector<double> x = random_vector(a.cols, 1, 7);
    const SellPattern p = sliced_ell_pattern(a.row_ptr, a.col_idx, 32);
    CHECK(p.slices() == (rows + 31) / 32);
    CHECK(p.values_size() % 32 == 0);
    CHECK(p.values_size() >= a.nnz());
    const std::vector<double> y = sell_product(p, sliced_ell_values<double>(p, a.values, 1), a.rows, x);
    for (int32_t r = 0; r < a.rows; ++r) {
      double ref = 0;  // the same order of additions as the SELL walk: along the row
      for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) ref += a.values[k] * x[a.col_idx[k]];
      INFO("rows " << rows << ", row " << r);
      CHECK(y[r] == ref);
    }
  }
}

TEST_CASE("sliced ELL: bad input and sizes beyond 32-bit offsets are refused") {
  CHECK_THROWS_AS(sliced_ell_pattern({0, 1}, {0}, 0), InvalidArgument);
  CHECK_THROWS_AS(sliced_ell_pattern({0, 2}, {0}, 32), InvalidArgument);     // row_ptr past col_idx
  CHECK_THROWS_AS(sliced_ell_pattern({0, 2, 1}, {0}, 32), InvalidArgument);  // decreasing
  CHECK_THROWS_AS(sliced_ell_pattern({}, {}, 32), InvalidArgument);
  // One entry in a slice of 2^31 rows pads to 2^31 values: refused before anything that size is allocated.
  CHECK_THROWS_WITH_AS(sliced_ell_pattern({0, 1}, {0}, int64_t{1} << 31), doctest::Contains("32-bit"),
                       InvalidArgument);
  const SellPattern empty = sliced_ell_pattern({0}, {}, 32);  // no rows
  CHECK(empty.slices() == 0);
  CHECK(empty.values_size() == 0);
}

TEST_CASE("bench: the empty kernel compiles with NVRTC") {
  const std::string cubin = compile_empty_kernel("sm_90");
  CHECK(cubin.size() > 0);
  CHECK(std::string(empty_kernel_source()).find("jitsparse_empty") != std::string::npos);
}
