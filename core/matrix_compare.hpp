#pragma once
#include <string>

#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// Checks a computed sparse matrix against a reference, entry by entry: |got - ref| <= tol * scale + tiny
// per component, where `scale` has ref's pattern (e.g. |alpha| |A| + |beta| |B| for a sum). An entry of
// ref that got lacks counts as zero (a format that drops zero entries, like HiSparse's dense leaves); an
// entry of got outside ref's pattern is an error. Returns "" when it holds, else what is wrong (the
// first few places and the count).
std::string compare_matrices(const HostMatrix& got, const HostMatrix& ref, const HostMatrix& scale, double tol);

// A computed sum against alpha op_a(A) + beta op_b(B) formed on the host in double, with the scale
// |alpha| |op_a(A)| + |beta| |op_b(B)| and a tolerance for inputs stored in precision p (1e-13 for f64,
// 2e-6 for f32). "" when it holds.
std::string compare_sum(const HostMatrix& got, const HostMatrix& a, Op op_a, const HostMatrix& b, Op op_b,
                        double alpha, double beta, Precision p);

}  // namespace jitsparse
