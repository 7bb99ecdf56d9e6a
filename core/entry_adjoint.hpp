#pragma once
#include <vector>

#include "core/entry_type.hpp"
#include "core/host_matrix.hpp"
#include "core/op.hpp"

namespace jitsparse {

// The adjoint of an entry as an entry of the same type, for operations that store op(A) rather than
// apply it in a product (HiSparse A^H + B^H). adjoint(a) is the entry whose real expansion is M(a)^T
// (core/entry_type.hpp): the conjugate of a complex or quaternion entry, the transposed block, a real
// itself. It is linear in a, so it is a C x C matrix P (row-major, C = components): adjoint(a) = P a.
//
// Derived from the type's multiplication, so user JSON types get it too: P solves
// sum_c P[c][k] M(e_c) = M(e_k)^T for every basis entry e_k, and is checked to reproduce it exactly.
// Throws InvalidArgument when the type says it has no adjoint, or when M(a)^T is not the expansion of
// any entry of the type (its products can express A^H x, but not a stored A^H).
std::vector<double> entry_adjoint_map(const EntryType& entry);

// op(A) as a matrix: A, the transposed pattern with the same entries (t), or with adjoint entries (h).
HostMatrix op_matrix(const HostMatrix& a, Op op);

}  // namespace jitsparse
