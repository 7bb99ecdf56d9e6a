// The sequential CPU reference (Ginkgo style): plain loops in double, the oracle of every test and of the
// tuner's verification step.
#include "core/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace jitsparse {
namespace {

void check_vector(const HostMatrix& a, const std::vector<double>& x, int64_t n, const char* what) {
  const int64_t want = n * a.vector_components();
  if (static_cast<int64_t>(x.size()) != want)
    throw InvalidArgument(std::string(what) + ": x of matrix '" + a.name + "' must hold " + std::to_string(n) +
                          " x " + std::to_string(a.vector_components()) + " = " + std::to_string(want) +
                          " values, not " + std::to_string(x.size()));
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::vector<double> reference_spmv(const HostMatrix& a, const std::vector<double>& x) {
  check_vector(a, x, a.cols, "reference_spmv");
  const int V = a.vector_components();
  std::vector<double> y(static_cast<size_t>(a.rows) * V, 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      a.entry.multiply_add(a.entry_values(k), x.data() + static_cast<int64_t>(a.col_idx[k]) * V, y.data() + r * V);
  return y;
}

namespace {

// y_j += op(a_ij) x_i over the transposed pattern; op is the entry's multiply or adjoint multiply.
using EntryProduct = void (EntryType::*)(const double*, const double*, double*) const;
std::vector<double> transposed_product(const HostMatrix& a, const std::vector<double>& x, EntryProduct op,
                                       const char* what) {
  check_vector(a, x, a.rows, what);
  const int V = a.vector_components();
  std::vector<double> y(static_cast<size_t>(a.cols) * V, 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      (a.entry.*op)(a.entry_values(k), x.data() + r * V, y.data() + static_cast<int64_t>(a.col_idx[k]) * V);
  return y;
}

}  // namespace

std::vector<double> reference_spmv_transpose(const HostMatrix& a, const std::vector<double>& x) {
  return transposed_product(a, x, &EntryType::multiply_add, "reference_spmv_transpose");
}

std::vector<double> reference_spmv_adjoint(const HostMatrix& a, const std::vector<double>& x) {
  return transposed_product(a, x, &EntryType::adjoint_multiply_add, "reference_spmv_adjoint");
}

std::vector<double> reference_apply(const HostMatrix& a, const std::vector<double>& x, Op op) {
  switch (op) {
    case Op::t: return reference_spmv_transpose(a, x);
    case Op::h: return reference_spmv_adjoint(a, x);
    default: return reference_spmv(a, x);
  }
}

std::vector<double> reference_abs_scale(const HostMatrix& a, const std::vector<double>& x, Op op) {
  const bool tr = is_transposed(op);
  check_vector(a, x, tr ? a.rows : a.cols, "reference_abs_scale");
  const int V = a.vector_components();
  std::vector<double> s(static_cast<size_t>(tr ? a.cols : a.rows) * V, 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const double* e = a.entry_values(k);
      const int64_t c = a.col_idx[k];
      if (!tr) {
        const double* xj = x.data() + c * V;
        for (const auto& t : a.entry.terms) s[r * V + t.out] += std::fabs(t.coeff * e[t.a] * xj[t.x]);
      } else if (op == Op::t) {  // y_c += a x_r
        const double* xr = x.data() + r * V;
        for (const auto& t : a.entry.terms) s[c * V + t.out] += std::fabs(t.coeff * e[t.a] * xr[t.x]);
      } else {  // y_c += adjoint(a) x_r
        const double* xr = x.data() + r * V;
        for (const auto& t : a.entry.terms) s[c * V + t.x] += std::fabs(t.coeff * e[t.a] * xr[t.out]);
      }
    }
  return s;
}

HostMatrix transpose_pattern(const HostMatrix& a) {
  const int C = a.components();
  HostMatrix t;
  t.entry = a.entry;
  t.name = a.name + "^T";
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_ptr.assign(static_cast<size_t>(a.cols) + 1, 0);
  for (int32_t c : a.col_idx) ++t.row_ptr[static_cast<size_t>(c) + 1];
  for (int64_t j = 0; j < a.cols; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
  t.col_idx.resize(a.col_idx.size());
  t.values.resize(a.values.size());
  std::vector<int32_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  // Rows of A in order, so the columns of each row of the copy come out sorted.
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const int64_t dst = next[a.col_idx[k]]++;
      t.col_idx[dst] = static_cast<int32_t>(r);
      std::copy(a.entry_values(k), a.entry_values(k) + C, t.values.begin() + dst * C);
    }
  return t;
}

VerifyResult verify_result(const std::vector<double>& y, const std::vector<double>& ref,
                           const std::vector<double>& scale, double tol, int vector_components) {
  VerifyResult res;
  if (y.size() != ref.size() || scale.size() != ref.size()) {
    res.ok = false;
    res.message = "result has " + std::to_string(y.size()) + " values, the reference " + std::to_string(ref.size()) +
                  " (scale " + std::to_string(scale.size()) + ")";
    return res;
  }
  // tiny: an all-zero row (scale 0) must match exactly, up to denormal noise.
  const double tiny = 1e-300 + tol * 1e-30;
  int64_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double allowed = tol * scale[i] + tiny;
    const double err = std::fabs(y[i] - ref[i]);
    const bool finite = std::isfinite(y[i]) && std::isfinite(ref[i]);
    const double ratio = finite ? err / allowed : INFINITY;
    if (ratio > res.worst_ratio) res.worst_ratio = ratio;
    if (finite && err <= allowed) continue;
    if (bad++ == 0) {
      res.first_bad = static_cast<int64_t>(i);
      const std::string where =
          vector_components > 0 ? "row " + std::to_string(i / vector_components) + " component " +
                                      std::to_string(i % vector_components)
                                : "y[" + std::to_string(i) + "]";
      res.message = where + ": " + number(y[i]) + " but the reference is " + number(ref[i]) +
                    (finite ? " (|error| " + number(err) + " > allowed " + number(allowed) + " = tol " + number(tol) +
                                  " x scale " + number(scale[i]) + ")"
                            : " (not finite)");
    }
  }
  if (bad > 0) {
    res.ok = false;
    res.message += "; " + std::to_string(bad) + " of " + std::to_string(y.size()) + " values wrong";
  }
  return res;
}

double default_tolerance(Precision p) {
  if (p == Precision::f64) return 1e-12;
  // f32: values and x are rounded to float (relative error 2^-24 each, so 1.2e-7 of scale per product) and a
  // kernel sums in float: the rounding error of a sum of n terms is at most about n * 6e-8 * scale and
  // typically sqrt(n) * 6e-8 * scale. 1e-4 bounds the worst case for rows of ~1500 scalar terms and the
  // typical case far beyond any real row (sqrt(n) = 1600 -> n = 2.6M terms), while a wrong entry or a
  // dropped or doubled term (about scale / n) still fails for rows of fewer than ~10000 terms.
  return 1e-4;
}

}  // namespace jitsparse
