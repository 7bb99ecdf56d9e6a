#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/permutation.hpp"
#include "runtime/device_vector.hpp"

namespace jitsparse {

// For a solver that stays in the permuted space: reorder A once, run every SpMV on P A P^T, and move
// vectors in and out through the permutation only at the start and the end (perm[old] = new, as in
// core/permutation.hpp). Since (P A P^T)(P x) = P (A x), from_permuted(B * to_permuted(x)) == A * x.

struct PermutedMatrix {
  Ordering ordering = Ordering::none;
  HostMatrix matrix;             // P A P^T, named "<name>@rcm" or "@degree" (none: A, name unchanged)
  std::vector<int32_t> perm;     // old -> new
  std::vector<int32_t> inverse;  // new -> old

  // x of the original numbering (rows * V doubles, aos) -> P x; throws InvalidArgument on a size mismatch.
  std::vector<double> to_permuted(const std::vector<double>& x) const;
  // y of the permuted numbering -> P^T y in the original one; throws InvalidArgument on a size mismatch.
  std::vector<double> from_permuted(const std::vector<double>& y) const;
  // The same around a device vector of the permuted matrix: upload P x, download and undo the permutation.
  void upload_permuted(DeviceVector& dx, const std::vector<double>& x) const;
  std::vector<double> download_unpermuted(const DeviceVector& dy) const;
};

// Reorders a square matrix (values travel with their entries; compound entries as they are). Throws
// InvalidArgument for a non-square matrix.
PermutedMatrix reorder(const HostMatrix& a, Ordering ordering);

}  // namespace jitsparse
