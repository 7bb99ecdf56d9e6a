#include "core/matrix_compare.hpp"

#include <cmath>
#include <sstream>

#include "core/entry_adjoint.hpp"
#include "core/matrix_add.hpp"

namespace jitsparse {

std::string compare_matrices(const HostMatrix& got, const HostMatrix& ref, const HostMatrix& scale, double tol) {
  std::ostringstream msg;
  if (got.rows != ref.rows || got.cols != ref.cols) {
    msg << "the result is " << got.rows << " x " << got.cols << ", the reference " << ref.rows << " x " << ref.cols;
    return msg.str();
  }
  if (got.components() != ref.components() || scale.nnz() != ref.nnz()) return "the result holds other entries than the reference";
  const int nc = ref.components();
  int64_t bad = 0, extra = 0;
  for (int32_t r = 0; r < ref.rows; ++r) {
    int32_t g = got.row_ptr[r];
    const int32_t g_end = got.row_ptr[r + 1];
    for (int32_t k = ref.row_ptr[r]; k < ref.row_ptr[r + 1]; ++k) {
      while (g < g_end && got.col_idx[g] < ref.col_idx[k]) {  // a position the reference does not have
        if (extra++ < 3) msg << "extra entry at (" << r << ", " << got.col_idx[g] << "); ";
        ++g;
      }
      const bool present = g < g_end && got.col_idx[g] == ref.col_idx[k];
      for (int c = 0; c < nc; ++c) {
        const double want = ref.entry_values(k)[c], have = present ? got.entry_values(g)[c] : 0.0;
        const double err = std::fabs(have - want);
        if (!(err <= tol * scale.entry_values(k)[c] + 1e-300)) {
          if (bad++ < 3) msg << "(" << r << ", " << ref.col_idx[k] << ")[" << c << "] = " << have << ", want " << want << "; ";
        }
      }
      if (present) ++g;
    }
    for (; g < g_end; ++g)
      if (extra++ < 3) msg << "extra entry at (" << r << ", " << got.col_idx[g] << "); ";
  }
  if (bad == 0 && extra == 0) return "";
  msg << bad << " wrong components, " << extra << " entries outside the reference's pattern";
  return msg.str();
}

namespace {
HostMatrix absolute(HostMatrix a) {
  for (double& v : a.values) v = std::fabs(v);
  return a;
}
}  // namespace

std::string compare_sum(const HostMatrix& got, const HostMatrix& a, Op op_a, const HostMatrix& b, Op op_b,
                        double alpha, double beta, Precision p) {
  const HostMatrix oa = op_matrix(a, op_a), ob = op_matrix(b, op_b);
  return compare_matrices(got, add_matrices(oa, ob, alpha, beta),
                          add_matrices(absolute(oa), absolute(ob), std::fabs(alpha), std::fabs(beta)),
                          p == Precision::f64 ? 1e-13 : 2e-6);
}

}  // namespace jitsparse
