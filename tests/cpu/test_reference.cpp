// The reference against its definition: every entry type's matrix expanded into its real scalar form
// (EntryType::expansion) and multiplied densely.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"

using namespace jitsparse;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

// The dense real (rows*V) x (cols*V) matrix whose (r, c) block is M(a_rc); transposed_pattern puts M(a_rc)
// at block (c, r) instead (A^T without conjugation).
struct Dense {
  int64_t n_rows, n_cols;
  std::vector<double> d;
  double& at(int64_t i, int64_t j) { return d[i * n_cols + j]; }
  std::vector<double> times(const std::vector<double>& x) const {
    std::vector<double> y(n_rows, 0.0);
    for (int64_t i = 0; i < n_rows; ++i)
      for (int64_t j = 0; j < n_cols; ++j) y[i] += d[i * n_cols + j] * x[j];
    return y;
  }
  Dense transposed() const {
    Dense t{n_cols, n_rows, std::vector<double>(d.size())};
    for (int64_t i = 0; i < n_rows; ++i)
      for (int64_t j = 0; j < n_cols; ++j) t.d[j * n_rows + i] = d[i * n_cols + j];
    return t;
  }
};

Dense expand(const HostMatrix& a, bool transposed_pattern = false) {
  const int V = a.vector_components();
  const int64_t R = transposed_pattern ? a.cols : a.rows, C = transposed_pattern ? a.rows : a.cols;
  Dense m{R * V, C * V, std::vector<double>(static_cast<size_t>(R * V * C * V), 0.0)};
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const auto block = a.entry.expansion(a.entry_values(k));
      const int64_t br = transposed_pattern ? a.col_idx[k] : r, bc = transposed_pattern ? r : a.col_idx[k];
      for (int i = 0; i < V; ++i)
        for (int j = 0; j < V; ++j) m.at(br * V + i, bc * V + j) = block[i * V + j];
    }
  return m;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i)
    CHECK_MESSAGE(std::fabs(got[i] - want[i]) <= 1e-12 * (1 + std::fabs(want[i])),
                  what << " [" << i << "]: " << got[i] << " vs " << want[i]);
}

// The conjugate of each entry (complex and quaternion: negate every component but the first).
HostMatrix conjugated(HostMatrix a) {
  const int C = a.components();
  for (int64_t k = 0; k < a.nnz(); ++k)
    for (int i = 1; i < C; ++i) a.values[k * C + i] = -a.values[k * C + i];
  return a;
}

}  // namespace

TEST_CASE("reference: spmv, transpose and adjoint match the dense real expansion for every entry type") {
  for (const auto& name : EntryRegistry::instance().names()) {
    CAPTURE(name);
    const EntryType& e = entry(name);
    RandomMatrixOptions o;
    o.rows = 9, o.cols = 6, o.mean_row = 2, o.empty_fraction = 0.2, o.seed = 3;
    const HostMatrix a = random_matrix(e, o);
    const int V = e.num_vector_components();
    const auto x = random_vector(a.cols, V, 1);
    const auto xt = random_vector(a.rows, V, 2);
    const Dense d = expand(a);
    check_close(reference_spmv(a, x), d.times(x), "A x");
    // adjoint: transpose of the real expansion
    check_close(reference_spmv_adjoint(a, xt), d.transposed().times(xt), "A^H x");
    // transpose: transposed pattern, the same entries
    check_close(reference_spmv_transpose(a, xt), expand(a, true).times(xt), "A^T x");
    // scale: sum of |terms|, at least |y|, equal to |A| |x| for the expanded real matrix of absolute terms
    const auto s = reference_abs_scale(a, x);
    const auto y = reference_spmv(a, x);
    for (size_t i = 0; i < y.size(); ++i) CHECK(s[i] >= std::fabs(y[i]) - 1e-15);
    CHECK_THROWS_AS(reference_spmv(a, xt), InvalidArgument);
    CHECK_THROWS_AS(reference_spmv_transpose(a, x), InvalidArgument);
    CHECK_THROWS_AS(reference_abs_scale(a, xt), InvalidArgument);
  }
}

TEST_CASE("reference: real, complex and quaternion adjoints by hand") {
  // real: transpose == adjoint
  RandomMatrixOptions o;
  o.rows = 12, o.cols = 8, o.mean_row = 3, o.seed = 9;
  const HostMatrix r = random_matrix(entry("real"), o);
  const auto xr = random_vector(r.rows, 1, 4);
  check_close(reference_spmv_adjoint(r, xr), reference_spmv_transpose(r, xr), "real A^H = A^T");
  // complex and quaternion: A^H = transpose of the conjugated matrix
  for (const char* name : {"complex", "quaternion"}) {
    CAPTURE(name);
    const HostMatrix a = random_matrix(entry(name), o);
    const auto x = random_vector(a.rows, a.vector_components(), 5);
    check_close(reference_spmv_adjoint(a, x), reference_spmv_transpose(conjugated(a), x), "A^H = conj(A)^T");
    // ... which for quaternions is the transpose of the real 4x4 expansion: M(conj q) = M(q)^T
    const double* q = a.entry_values(0);
    const auto m = a.entry.expansion(q);
    std::vector<double> cq(q, q + a.components());
    for (size_t i = 1; i < cq.size(); ++i) cq[i] = -cq[i];
    const auto mc = a.entry.expansion(cq.data());
    const int V = a.vector_components();
    for (int i = 0; i < V; ++i)
      for (int j = 0; j < V; ++j) CHECK(mc[i * V + j] == m[j * V + i]);
  }
  // 2 x 3 real by hand: [1 0 2; 0 -3 0]
  HostMatrix h;
  h.entry = entry("real");
  h.rows = 2, h.cols = 3;
  h.row_ptr = {0, 2, 3};
  h.col_idx = {0, 2, 1};
  h.values = {1, 2, -3};
  CHECK(reference_spmv(h, {1, 10, 100}) == std::vector<double>{201, -30});
  CHECK(reference_spmv_transpose(h, {1, 10}) == std::vector<double>{1, -30, 2});
  CHECK(reference_abs_scale(h, {1, -10, 100}) == std::vector<double>{201, 30});
  // quaternion 1 x 1 by hand: i * j = k, transpose i * j = k, adjoint conj(i) * j = -k
  HostMatrix q;
  q.entry = entry("quaternion");
  q.rows = 1, q.cols = 1;
  q.row_ptr = {0, 1};
  q.col_idx = {0};
  q.values = {0, 1, 0, 0};
  CHECK(reference_spmv(q, {0, 0, 1, 0}) == std::vector<double>{0, 0, 0, 1});
  CHECK(reference_spmv_transpose(q, {0, 0, 1, 0}) == std::vector<double>{0, 0, 0, 1});
  CHECK(reference_spmv_adjoint(q, {0, 0, 1, 0}) == std::vector<double>{0, 0, 0, -1});
}

TEST_CASE("reference: verify_result accepts rounding, rejects errors, NaN and Inf with a clear message") {
  const std::vector<double> ref = {1, 2, 0, -4, 5, 6};
  const std::vector<double> scale = {1, 2, 0, 4, 5, 6};
  CHECK(verify_result(ref, ref, scale, 1e-12, 2).ok);
  auto y = ref;
  y[4] += 2.5e-12;  // half of tol * scale
  auto r = verify_result(y, ref, scale, 1e-12, 2);
  CHECK(r.ok);
  CHECK(r.message.empty());
  CHECK(r.worst_ratio > 0.4);
  CHECK(r.worst_ratio < 0.6);
  y[3] = -4.001;
  r = verify_result(y, ref, scale, 1e-12, 2);
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == 3);
  CHECK(r.message.find("row 1 component 1") != std::string::npos);
  CHECK(r.message.find("-4.001") != std::string::npos);
  CHECK(r.message.find("-4 ") != std::string::npos);  // the expected value
  CHECK(r.worst_ratio > 1);
  // an all-zero row must be exact
  y = ref;
  y[2] = 1e-20;
  r = verify_result(y, ref, scale, 1e-4, 2);
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == 2);
  y[2] = 0;
  CHECK(verify_result(y, ref, scale, 1e-4, 2).ok);
  // NaN and Inf always fail, even with a huge tolerance
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    y = ref;
    y[5] = bad;
    r = verify_result(y, ref, scale, 1e300, 2);
    CHECK_FALSE(r.ok);
    CHECK(r.first_bad == 5);
    CHECK(r.message.find("row 2 component 1") != std::string::npos);
  }
  // without the vector width the message names the flat index; size mismatches fail
  y = ref;
  y[0] = 7;
  r = verify_result(y, ref, scale, 1e-12);
  CHECK_FALSE(r.ok);
  CHECK(r.message.find("y[0]") != std::string::npos);
  CHECK_FALSE(verify_result({1, 2}, ref, scale, 1e-12).ok);
}

TEST_CASE("reference: default tolerances cover float accumulation of long rows, not wrong terms") {
  CHECK(default_tolerance(Precision::f64) == 1e-12);
  const double tol = default_tolerance(Precision::f32);
  CHECK(tol >= 1e-6);
  CHECK(tol <= 1e-3);
  // A quaternion row of 3000 entries computed the way a float kernel does (float values, float sums)
  const EntryType& q = entry("quaternion");
  RandomMatrixOptions o;
  o.rows = 4, o.cols = 3000, o.mean_row = 3000, o.seed = 12;
  const HostMatrix a = random_matrix(q, o);
  const auto x = random_vector(a.cols, 4, 13);
  const auto ref = reference_spmv(a, x);
  const auto scale = reference_abs_scale(a, x);
  std::vector<double> y(ref.size());
  for (int32_t r = 0; r < a.rows; ++r) {
    float acc[4] = {0, 0, 0, 0};
    for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      for (const auto& t : q.terms)
        acc[t.out] += static_cast<float>(t.coeff) * static_cast<float>(a.entry_values(k)[t.a]) *
                      static_cast<float>(x[static_cast<int64_t>(a.col_idx[k]) * 4 + t.x]);
    for (int i = 0; i < 4; ++i) y[r * 4 + i] = acc[i];
  }
  const auto ok = verify_result(y, ref, scale, tol, 4);
  CHECK_MESSAGE(ok.ok, ok.message);
  CHECK(ok.worst_ratio < 0.5);  // room to spare
  // a dropped entry is caught
  auto dropped = y;
  std::vector<double> one(4, 0.0);
  q.multiply_add(a.entry_values(a.row_ptr[1] + 17), x.data() + static_cast<int64_t>(a.col_idx[a.row_ptr[1] + 17]) * 4,
                 one.data());
  for (int i = 0; i < 4; ++i) dropped[4 + i] -= one[i];
  CHECK_FALSE(verify_result(dropped, ref, scale, tol, 4).ok);
}
