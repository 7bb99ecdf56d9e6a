#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/features.hpp"
#include "core/random_matrix.hpp"

using namespace jitsparse;

namespace {

HostMatrix hand_matrix() {
  // 4 x 6: row 0 {0, 3}, row 1 {}, row 2 {1, 2, 5}, row 3 {3}
  HostMatrix m;
  m.entry = EntryRegistry::instance().get("real");
  m.rows = 4, m.cols = 6;
  m.row_ptr = {0, 2, 2, 5, 6};
  m.col_idx = {0, 3, 1, 2, 5, 3};
  m.values = {1, 2, 3, 4, 5, 6};
  return m;
}

}  // namespace

TEST_CASE("features: computed by hand") {
  const MatrixFeatures f = compute_features(hand_matrix());
  CHECK(f.rows == 4);
  CHECK(f.cols == 6);
  CHECK(f.nnz == 6);
  CHECK(f.mean_row == doctest::Approx(1.5));
  // lengths 2, 0, 3, 1: variance (4 + 0 + 9 + 1) / 4 - 2.25 = 1.25
  CHECK(f.std_row == doctest::Approx(std::sqrt(1.25)));
  CHECK(f.max_row == 3);
  CHECK(f.empty_rows == 1);
  CHECK(f.density == doctest::Approx(6.0 / 24));
  // bandwidths over non-empty rows: 3, 4, 0
  CHECK(f.mean_bandwidth == doctest::Approx(7.0 / 3));
  CHECK(f.max_bandwidth == 4);
  // |col - row|: 0, 3, 1, 0, 3, 0
  CHECK(f.mean_distance_from_diagonal == doctest::Approx(7.0 / 6));
}

TEST_CASE("features: empty matrices give zeros, not NaN") {
  HostMatrix z;
  z.entry = EntryRegistry::instance().get("real");
  MatrixFeatures f = compute_features(z);
  CHECK(f.rows == 0);
  CHECK(f.mean_row == 0);
  CHECK(f.density == 0);
  RandomMatrixOptions o;
  o.rows = 10, o.cols = 10, o.mean_row = 0;
  f = compute_features(random_matrix(z.entry, o));
  CHECK(f.empty_rows == 10);
  CHECK(f.std_row == 0);
  CHECK(f.mean_bandwidth == 0);
  CHECK(f.mean_distance_from_diagonal == 0);
}

TEST_CASE("features: json round trip; a damaged record is rejected") {
  const MatrixFeatures f = compute_features(hand_matrix());
  const nlohmann::json j = f;
  const MatrixFeatures g = j.get<MatrixFeatures>();
  CHECK(g.rows == f.rows);
  CHECK(g.nnz == f.nnz);
  CHECK(g.std_row == f.std_row);
  CHECK(g.max_bandwidth == f.max_bandwidth);
  CHECK(g.mean_distance_from_diagonal == f.mean_distance_from_diagonal);
  nlohmann::json broken = j;
  broken.erase("nnz");
  CHECK_THROWS_WITH_AS(broken.get<MatrixFeatures>(), doctest::Contains("nnz"), ParseError);
  broken = j;
  broken["density"] = "high";
  CHECK_THROWS_AS(broken.get<MatrixFeatures>(), ParseError);
  CHECK_THROWS_AS(nlohmann::json::array().get<MatrixFeatures>(), ParseError);
}

TEST_CASE("features: the column extents of a large matrix come from an even sample of its rows") {
  const EntryType& real = EntryRegistry::instance().get("real");
  RandomMatrixOptions o;
  o.rows = o.cols = 200000;
  o.mean_row = 4;
  o.band = 30;
  const HostMatrix a = random_matrix(real, o);
  REQUIRE(a.nnz() > 2 * kSampledEntries);  // sampled
  const MatrixFeatures f = compute_features(a);
  double exact = 0;
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) exact += std::abs(a.col_idx[k] - r);
  exact /= static_cast<double>(a.nnz());
  CHECK(f.mean_distance_from_diagonal == doctest::Approx(exact).epsilon(0.02));
  CHECK(f.nnz == a.nnz());  // the row-length statistics stay exact
  CHECK(f.max_row <= 7);
}

TEST_CASE("features: the sampled distance from the diagonal sees a thin band of far rows (a torus seam)") {
  // 200k rows of a tridiagonal band, and 1,000 consecutive rows with one entry about 95k columns away: they
  // hold most of the mean distance, as the seam rings of a torus grid do (dirac_large). A sample of runs
  // of consecutive rows missed or over-weighted such bands (0.5-4.5x the exact mean on dirac_large; one
  // of 64 runs at fixed fractions starts at row 100000 here); rows taken one by one at an even stride do not.
  HostMatrix a;
  a.entry = EntryRegistry::instance().get("real");
  a.rows = a.cols = 200000;
  for (int32_t r = 0; r < a.rows; ++r) {
    std::vector<int32_t> cols;
    for (int32_t c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < a.cols) cols.push_back(c);
    if (r >= 100000 && r < 101000) cols.insert(cols.begin(), r - 95000 - (r - 100000) % 7);
    for (int32_t c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(1.0);
    }
    a.row_ptr.push_back(static_cast<int32_t>(a.col_idx.size()));
  }
  REQUIRE(a.nnz() > 2 * kSampledEntries);
  double exact = 0;
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) exact += std::abs(a.col_idx[k] - r);
  exact /= static_cast<double>(a.nnz());
  CHECK(compute_features(a).mean_distance_from_diagonal == doctest::Approx(exact).epsilon(0.1));
}

TEST_CASE("features: a matrix large enough for the sampled passes' own thread") {
  // 300,000 rows (past the 2^18 from which compute_features samples on a second thread): a tridiagonal
  // band, whose features are known exactly.
  HostMatrix a;
  a.entry = EntryRegistry::instance().get("real");
  a.rows = a.cols = 300000;
  a.row_ptr.assign(1, 0);
  for (int32_t r = 0; r < a.rows; ++r) {
    for (int32_t c = r - 1; c <= r + 1; ++c)
      if (c >= 0 && c < a.cols) {
        a.col_idx.push_back(c);
        a.values.push_back(1.0);
      }
    a.row_ptr.push_back(static_cast<int32_t>(a.col_idx.size()));
  }
  const MatrixFeatures f = compute_features(a);
  CHECK(f.nnz == 3 * 300000 - 2);
  CHECK(f.max_row == 3);
  CHECK(f.empty_rows == 0);
  CHECK(f.mean_row == doctest::Approx((3.0 * 300000 - 2) / 300000));
  CHECK(f.max_bandwidth == 2);
  CHECK(f.mean_distance_from_diagonal == doctest::Approx(2.0 / 3).epsilon(0.01));
  CHECK(f.sell_padding == doctest::Approx(1.0).epsilon(0.01));
  CHECK(f.sorted_sell_padding == doctest::Approx(1.0).epsilon(0.01));
}

namespace {

// sell32 and sell32s256 padding of every window, by sorting each window (what padding_features samples).
std::pair<double, double> padding_by_sorting(const HostMatrix& a) {
  int64_t plain = 0, sorted = 0;
  for (int64_t r0 = 0; r0 < a.rows; r0 += 256) {
    const int64_t r1 = std::min<int64_t>(a.rows, r0 + 256);
    std::vector<int32_t> len(static_cast<size_t>((r1 - r0 + 31) / 32 * 32), 0);
    for (int64_t r = r0; r < r1; ++r) len[r - r0] = a.row_ptr[r + 1] - a.row_ptr[r];
    for (size_t s = 0; s < len.size(); s += 32) plain += 32 * *std::max_element(len.begin() + s, len.begin() + s + 32);
    std::sort(len.begin(), len.end(), std::greater<int32_t>());
    for (size_t s = 0; s < len.size(); s += 32) sorted += 32 * len[s];
  }
  return {static_cast<double>(plain) / a.nnz(), static_cast<double>(sorted) / a.nnz()};
}

}  // namespace

TEST_CASE("features: the padding of every window, short rows and one row past the histogram") {
  // 60,000 rows: under 128 sampled windows' stride, so every window counts and the figures are exact.
  // Row lengths 1..11 with a fifth of the rows empty (the histogram), and one row of 5,000 entries (its
  // window is sorted instead).
  RandomMatrixOptions o;
  o.rows = o.cols = 60000;
  o.mean_row = 6;
  o.empty_fraction = 0.2;
  o.long_row = 5000;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("real"), o);
  const auto [plain, sorted] = padding_by_sorting(a);
  const MatrixFeatures f = compute_features(a);
  CHECK(f.sell_padding == doctest::Approx(plain).epsilon(1e-12));
  CHECK(f.sorted_sell_padding == doctest::Approx(sorted).epsilon(1e-12));
  CHECK(f.sorted_sell_padding < f.sell_padding);
}

TEST_CASE("features: the row lengths of a large matrix, summed in shares on threads, are exact") {
  RandomMatrixOptions o;
  o.rows = o.cols = 300000;  // past 2^18 rows: two to four threads sum a share each
  o.mean_row = 4;
  o.empty_fraction = 0.3;
  o.long_row = 3000;  // in the first half
  o.band = 50;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("real"), o);
  int64_t empty = 0, longest = 0;
  double sum_sq = 0;
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t len = a.row_ptr[r + 1] - a.row_ptr[r];
    empty += len == 0;
    longest = std::max(longest, len);
    sum_sq += static_cast<double>(len * len);
  }
  const double mean = static_cast<double>(a.nnz()) / a.rows;
  const MatrixFeatures f = compute_features(a);
  CHECK(f.max_row == longest);
  CHECK(longest >= 100);  // the long row (capped by its band of columns) is the longest
  CHECK(f.empty_rows == empty);
  CHECK(f.empty_rows > a.rows / 4);
  CHECK(f.std_row == doctest::Approx(std::sqrt(sum_sq / a.rows - mean * mean)).epsilon(1e-12));
}
