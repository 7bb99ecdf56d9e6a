#pragma once
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// The sequential CPU reference (the test oracle, in double). Vectors are aos: n * V doubles.
// y = A x
std::vector<double> reference_spmv(const HostMatrix& a, const std::vector<double>& x);
// y = A^T x: transposed pattern, the same entries (for quaternions: no conjugation).
std::vector<double> reference_spmv_transpose(const HostMatrix& a, const std::vector<double>& x);
// y = A^H x: transposed pattern, adjoint entries (EntryType::adjoint_multiply_add); for real and block
// matrices this is the transpose of the real expansion.
std::vector<double> reference_spmv_adjoint(const HostMatrix& a, const std::vector<double>& x);
// y = op(A) x: one of the three above.
std::vector<double> reference_apply(const HostMatrix& a, const std::vector<double>& x, Op op);
// Per-row scale for tolerances: s[i*V + c] = sum_j sum over terms |coeff a_ij[a] x_j[x]| contributing to c
// (for op t and h: over the rows of op(A), with x of length a.rows).
std::vector<double> reference_abs_scale(const HostMatrix& a, const std::vector<double>& x, Op op = Op::n);

// The matrix of A^T's pattern holding A's entries unchanged (entry (j, i) of the result is a_ij): a
// transposed copy. op(A) x equals the result times x with the entry product (op t) or the adjoint entry
// product (op h).
HostMatrix transpose_pattern(const HostMatrix& a);

struct VerifyResult {
  bool ok = true;
  int64_t first_bad = -1;   // index into y (row*V + component)
  double worst_ratio = 0;   // max |y - ref| / (tol * scale + tiny); inf on NaN/Inf
  std::string message;      // empty when ok
};
// Compare y with ref: |y - ref| <= tol * scale + tiny (tiny ~ 1e-300 + tol * 1e-30, so a row whose scale is
// 0 must be exact), NaN/Inf rejected. vector_components > 0 lets the message name row and component
// (else it names the flat index). tol: default_tolerance (1e-12 for f64, 1e-4 for f32; see reference.cpp).
VerifyResult verify_result(const std::vector<double>& y, const std::vector<double>& ref,
                           const std::vector<double>& scale, double tol, int vector_components = 0);
double default_tolerance(Precision p);

}  // namespace jitsparse
