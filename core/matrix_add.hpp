#pragma once
#include <cstdint>

#include "core/host_matrix.hpp"

namespace jitsparse {

// C = alpha A + beta B on the host, in double: the oracle of the GPU additions (HiSparse A + B and the
// cuSPARSE csrgeam2 baseline). C's pattern is the union of A's and B's, whatever alpha, beta and the
// sums are: an entry present in either input is kept even where it is zero (explicit zeros), as
// cusparse<t>csrgeam2 does, so patterns compare exactly. A row-by-row merge, O(nnz(A) + nnz(B)).
// Throws InvalidArgument when the entry types (by name) or the sizes differ.
HostMatrix add_matrices(const HostMatrix& a, const HostMatrix& b, double alpha, double beta);

// A second operand for A + B benchmarks and tests: a pattern that overlaps A's but is not A's, so an
// addition has to merge rows instead of adding two equal patterns. Each entry of `a` is kept with
// probability 0.75, its value scaled by a factor uniform in [0.5, 1.5); every non-empty row of `a` also
// gets one entry at a column uniform in [min col - 8, max col + 8] ∩ [0, cols - 1] holding 0.3 times the
// row's first entry of `a` (added to a kept entry it lands on). Rows empty in `a` stay empty. The same
// result for a seed on every platform (std::mt19937_64 with our own mapping to ranges).
HostMatrix perturb_pattern(const HostMatrix& a, uint64_t seed);

// A second operand with exactly A's pattern (the sum of a stiffness and a mass matrix, K - s M, on one
// mesh): every entry of `a` scaled by its own factor uniform in [0.5, 1.5). Deterministic for a seed.
HostMatrix rescale_values(const HostMatrix& a, uint64_t seed);

}  // namespace jitsparse
