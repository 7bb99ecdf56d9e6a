// add_matrices against a dense computation, and perturb_pattern and rescale_values (the second operand of
// A + B benchmarks).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/matrix_add.hpp"
#include "core/random_matrix.hpp"

using namespace jitsparse;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

// Every position of a matrix: whether it is stored, and its components.
struct Dense {
  int32_t rows, cols;
  int nc;
  std::vector<char> present;
  std::vector<double> v;
  explicit Dense(const HostMatrix& m)
      : rows(m.rows),
        cols(m.cols),
        nc(m.components()),
        present(static_cast<size_t>(m.rows) * m.cols, 0),
        v(static_cast<size_t>(m.rows) * m.cols * m.components(), 0.0) {
    for (int32_t r = 0; r < m.rows; ++r)
      for (int32_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) {
        const size_t at = static_cast<size_t>(r) * cols + m.col_idx[k];
        present[at] = 1;
        for (int j = 0; j < nc; ++j) v[at * nc + j] = m.entry_values(k)[j];
      }
  }
};

RandomMatrixOptions shape(int32_t rows, int32_t cols, double mean_row, double empty_fraction, uint64_t seed) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = mean_row;
  o.empty_fraction = empty_fraction;
  o.seed = seed;
  return o;
}

// C against alpha A + beta B computed densely: the union pattern exactly, the values to rounding.
void check_sum(const HostMatrix& a, const HostMatrix& b, double alpha, double beta) {
  const HostMatrix c = add_matrices(a, b, alpha, beta);
  INFO(a.entry.name << " " << a.rows << " x " << a.cols << ", alpha " << alpha << ", beta " << beta);
  REQUIRE_NOTHROW(c.validate());
  CHECK(c.entry.name == a.entry.name);
  REQUIRE(c.rows == a.rows);
  REQUIRE(c.cols == a.cols);
  const Dense da(a), db(b), dc(c);
  int64_t union_count = 0, bad_pattern = 0, bad_value = 0;
  for (size_t at = 0; at < da.present.size(); ++at) {
    const bool in_union = da.present[at] || db.present[at];
    union_count += in_union;
    bad_pattern += in_union != static_cast<bool>(dc.present[at]);
    for (int j = 0; j < da.nc; ++j) {
      const size_t i = at * da.nc + j;
      const double want = alpha * da.v[i] + beta * db.v[i];
      bad_value += std::fabs(dc.v[i] - want) > 1e-14 * (1 + std::fabs(want));
    }
  }
  CHECK(c.nnz() == union_count);
  CHECK(bad_pattern == 0);
  CHECK(bad_value == 0);
}

}  // namespace

TEST_CASE("add_matrices equals the dense sum on the union pattern") {
  for (const char* name : {"real", "complex", "quaternion", "block3"}) {
    const EntryType& e = entry(name);
    // a small square case with many empty rows, a wide one, one row, a denser one
    const std::vector<std::pair<RandomMatrixOptions, RandomMatrixOptions>> pairs = {
        {shape(23, 23, 3, 0.3, 1), shape(23, 23, 4, 0.3, 2)},
        {shape(9, 40, 5, 0.2, 3), shape(9, 40, 2, 0.5, 4)},
        {shape(1, 7, 3, 0, 5), shape(1, 7, 3, 0, 6)},
        {shape(30, 12, 6, 0.1, 7), shape(30, 12, 6, 0.1, 8)},
    };
    for (const auto& [oa, ob] : pairs) {
      const HostMatrix a = random_matrix(e, oa), b = random_matrix(e, ob);
      for (auto [alpha, beta] :
           std::vector<std::pair<double, double>>{{1, 1}, {2.5, -0.75}, {1, 0}, {0, 1}, {0, 0}, {-1, 3}}) {
        check_sum(a, b, alpha, beta);
      }
      check_sum(a, a, 1, 1);  // the same pattern twice
    }
  }
}

TEST_CASE("add_matrices keeps explicit zeros: A + (-A) has A's pattern") {
  for (const char* name : {"real", "complex", "quaternion", "block3"}) {
    const HostMatrix a = random_matrix(entry(name), shape(31, 17, 4, 0.2, 11));
    const HostMatrix c = add_matrices(a, a, 1, -1);
    CHECK(c.row_ptr == a.row_ptr);
    CHECK(c.col_idx == a.col_idx);
    REQUIRE(c.values.size() == a.values.size());
    for (double v : c.values) CHECK(v == 0.0);
    // beta 0: B's positions are still in C (as zeros)
    const HostMatrix b = random_matrix(entry(name), shape(31, 17, 4, 0.2, 12));
    const HostMatrix d = add_matrices(a, b, 1, 0);
    CHECK(d.nnz() == add_matrices(a, b, 1, 1).nnz());
    CHECK(d.nnz() > a.nnz());
  }
}

TEST_CASE("add_matrices: empty matrices and empty rows") {
  const EntryType& q = entry("quaternion");
  HostMatrix z;
  z.entry = q;
  const HostMatrix c = add_matrices(z, z, 1, 1);  // 0 x 0
  CHECK(c.rows == 0);
  CHECK(c.cols == 0);
  CHECK(c.row_ptr == std::vector<int32_t>{0});
  CHECK_NOTHROW(c.validate());

  const HostMatrix none = random_matrix(q, shape(6, 5, 2, 1.0, 3));  // every row empty
  REQUIRE(none.nnz() == 0);
  const HostMatrix a = random_matrix(q, shape(6, 5, 2, 0.5, 4));
  check_sum(none, none, 1, 1);
  check_sum(a, none, 2, 1);
  check_sum(none, a, 1, -2);
  CHECK(add_matrices(none, none, 1, 1).row_ptr == std::vector<int32_t>(7, 0));
}

TEST_CASE("add_matrices refuses operands of different types or sizes") {
  const HostMatrix a = random_matrix(entry("real"), shape(10, 12, 3, 0, 1));
  const HostMatrix b = random_matrix(entry("complex"), shape(10, 12, 3, 0, 2));
  const HostMatrix taller = random_matrix(entry("real"), shape(11, 12, 3, 0, 3));
  const HostMatrix wider = random_matrix(entry("real"), shape(10, 13, 3, 0, 4));
  CHECK_THROWS_WITH_AS(add_matrices(a, b, 1, 1), doctest::Contains("entry types differ"), InvalidArgument);
  CHECK_THROWS_WITH_AS(add_matrices(a, taller, 1, 1), doctest::Contains("sizes differ"), InvalidArgument);
  CHECK_THROWS_WITH_AS(add_matrices(wider, a, 1, 1), doctest::Contains("10 x 13"), InvalidArgument);
  // the same name is the same type, even for a copy
  HostMatrix renamed = a;
  renamed.entry.description = "a copy";
  CHECK_NOTHROW(add_matrices(a, renamed, 1, 1));
}

TEST_CASE("matrix add operand perturb_pattern: deterministic, valid, related to its input") {
  for (const char* name : {"real", "complex", "quaternion", "block3"}) {
    RandomMatrixOptions o = shape(400, 300, 8, 0.1, 21);
    o.long_row = 200;
    const HostMatrix a = random_matrix(entry(name), o);
    const HostMatrix p = perturb_pattern(a, 7);
    INFO(name);
    REQUIRE_NOTHROW(p.validate());
    CHECK(p.entry.name == a.entry.name);
    CHECK(p.rows == a.rows);
    CHECK(p.cols == a.cols);

    // the same seed gives the same matrix, another seed another one
    const HostMatrix again = perturb_pattern(a, 7);
    CHECK(again.row_ptr == p.row_ptr);
    CHECK(again.col_idx == p.col_idx);
    CHECK(again.values == p.values);
    const HostMatrix other = perturb_pattern(a, 8);
    CHECK((other.col_idx != p.col_idx || other.values != p.values));

    // about 75% of a's positions survive; each non-empty row gains at most one entry near its columns
    const Dense da(a), dp(p);
    int64_t kept = 0;
    for (size_t at = 0; at < da.present.size(); ++at) kept += da.present[at] && dp.present[at];
    const double share = static_cast<double>(kept) / static_cast<double>(a.nnz());
    CHECK(share > 0.70);
    CHECK(share < 0.82);
    for (int32_t r = 0; r < a.rows; ++r) {
      const int32_t b = a.row_ptr[r], e = a.row_ptr[r + 1];
      const int32_t pb = p.row_ptr[r], pe = p.row_ptr[r + 1];
      if (b == e) {
        CHECK(pb == pe);  // empty rows stay empty
        continue;
      }
      CHECK(pe > pb);  // a non-empty row keeps at least its new entry
      int32_t outside = 0;
      for (int32_t k = pb; k < pe; ++k) {
        CHECK(p.col_idx[k] >= a.col_idx[b] - 8);
        CHECK(p.col_idx[k] <= a.col_idx[e - 1] + 8);
        outside += !da.present[static_cast<size_t>(r) * a.cols + p.col_idx[k]];
      }
      CHECK(outside <= 1);
    }
    // values: a kept entry is a's times [0.5, 1.5) (plus 0.3 x the row's first where the new one landed)
    int64_t scaled = 0, in_range = 0;
    for (size_t at = 0; at < da.present.size(); ++at) {
      if (!da.present[at] || !dp.present[at]) continue;
      const double x = da.v[at * da.nc], y = dp.v[at * dp.nc];
      if (std::fabs(x) < 1e-3) continue;
      ++scaled;
      in_range += y / x >= 0.5 - 1e-12 && y / x < 1.5;
    }
    CHECK(in_range > scaled * 9 / 10);
  }
}

TEST_CASE("matrix add operand perturb_pattern: empty in, empty out") {
  HostMatrix z;
  z.entry = entry("complex");
  const HostMatrix p = perturb_pattern(z, 1);
  CHECK(p.rows == 0);
  CHECK(p.cols == 0);
  CHECK(p.nnz() == 0);
  CHECK_NOTHROW(p.validate());
  const HostMatrix none = random_matrix(entry("block3"), shape(5, 9, 2, 1.0, 2));
  const HostMatrix q = perturb_pattern(none, 1);
  CHECK(q.rows == 5);
  CHECK(q.cols == 9);
  CHECK(q.row_ptr == std::vector<int32_t>(6, 0));
  // one column: the new entry can only land on it
  const HostMatrix thin = random_matrix(entry("real"), shape(20, 1, 1, 0, 3));
  const HostMatrix t = perturb_pattern(thin, 5);
  CHECK_NOTHROW(t.validate());
  CHECK(t.nnz() == 20);
}

TEST_CASE("matrix add operand rescale_values: A's pattern, every entry scaled by its own factor") {
  for (const char* name : {"real", "quaternion"}) {
    const HostMatrix a = random_matrix(entry(name), shape(300, 200, 6, 0.1, 31));
    const HostMatrix r = rescale_values(a, 9);
    INFO(name);
    REQUIRE_NOTHROW(r.validate());
    CHECK(r.row_ptr == a.row_ptr);
    CHECK(r.col_idx == a.col_idx);
    CHECK(r.values != a.values);
    CHECK(rescale_values(a, 9).values == r.values);
    CHECK(rescale_values(a, 10).values != r.values);
    const size_t nc = static_cast<size_t>(a.components());
    int64_t factors_seen = 0;
    double lowest = 2, highest = 0;
    for (size_t k = 0; k < a.col_idx.size(); ++k) {
      // one factor an entry, the same for all its components
      const double x = a.values[k * nc], y = r.values[k * nc];
      if (std::fabs(x) < 1e-6) continue;
      const double f = y / x;
      for (size_t j = 1; j < nc; ++j)
        if (std::fabs(a.values[k * nc + j]) > 1e-6) CHECK(r.values[k * nc + j] / a.values[k * nc + j] == doctest::Approx(f));
      lowest = std::min(lowest, f);
      highest = std::max(highest, f);
      ++factors_seen;
    }
    REQUIRE(factors_seen > 100);
    CHECK(lowest >= 0.5 - 1e-12);
    CHECK(highest < 1.5);
    CHECK(highest - lowest > 0.8);  // the factors spread over the range
  }
}
