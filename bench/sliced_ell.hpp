#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace jitsparse {

// cuSPARSE's sliced ELL (SELL) as documented for cusparseCreateSlicedEll (storage formats, "Sliced
// Ellpack"; NVIDIA's spmv_sell sample): rows in slices of slice_size, each slice padded to its longest row
// and stored column-major, so slot k of row i of slice s is at slice_offsets[s] + k * slice_size + i.
// Padding has column -1 (and value 0). The last slice is padded to slice_size rows as well (the sliced
// matrix has ceil(rows / slice_size) full slices). No row sorting (that would be SELL-C-sigma, which
// cuSPARSE's format does not have: y would come out permuted).
//
// The pattern is built once from the CSR structure; values are placed by `entry` (which CSR entry each
// slot holds), so one pattern serves real and complex values alike.
struct SellPattern {
  int64_t slice_size = 0;
  std::vector<int32_t> slice_offsets;  // ceil(rows / slice_size) + 1; the last is values_size()
  std::vector<int32_t> col_idx;        // values_size(); -1 in padding
  std::vector<int64_t> entry;          // values_size(); the CSR entry in the slot, -1 in padding

  int64_t values_size() const { return static_cast<int64_t>(col_idx.size()); }  // cuSPARSE's sellValuesSize
  int64_t slices() const { return static_cast<int64_t>(slice_offsets.size()) - 1; }
};

// Throws InvalidArgument for slice_size < 1, a row_ptr that is not rows + 1 non-decreasing offsets into
// col_idx, or a padded size beyond 32-bit offsets (what a 32-bit cuSPARSE descriptor can address).
SellPattern sliced_ell_pattern(const std::vector<int32_t>& row_ptr, const std::vector<int32_t>& col_idx,
                               int64_t slice_size);

// Values in slot order: `components` numbers per entry copied from `values` (entry after entry), zeros in
// padding. Components 1 for real values, 2 for (re, im) pairs.
template <typename T, typename Source>
std::vector<T> sliced_ell_values(const SellPattern& p, const std::vector<Source>& values, int components) {
  std::vector<T> out(static_cast<std::size_t>(p.values_size()) * components, T(0));
  for (std::size_t slot = 0; slot < p.entry.size(); ++slot) {
    const int64_t e = p.entry[slot];
    if (e < 0) continue;
    for (int c = 0; c < components; ++c)
      out[slot * components + c] = static_cast<T>(values[static_cast<std::size_t>(e) * components + c]);
  }
  return out;
}

}  // namespace jitsparse
