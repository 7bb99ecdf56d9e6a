#pragma once
#include <string>

#include "core/host_matrix.hpp"

namespace jitsparse {

// Checks a computed sparse matrix against a reference, entry by entry: |got - ref| <= tol * scale + tiny
// per component, where `scale` has ref's pattern (e.g. |alpha| |A| + |beta| |B| for a sum). An entry of
// ref that got lacks counts as zero (a format that drops zero entries, like HiSparse's dense leaves); an
// entry of got outside ref's pattern is an error. Returns "" when it holds, else what is wrong (the
// first few places and the count).
std::string compare_matrices(const HostMatrix& got, const HostMatrix& ref, const HostMatrix& scale, double tol);

}  // namespace jitsparse
