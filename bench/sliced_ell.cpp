#include "bench/sliced_ell.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace jitsparse {

SellPattern sliced_ell_pattern(const std::vector<int32_t>& row_ptr, const std::vector<int32_t>& col_idx,
                               int64_t slice_size) {
  if (slice_size < 1) throw InvalidArgument("sliced ELL: slice size must be at least 1");
  if (row_ptr.empty() || row_ptr.front() != 0 || row_ptr.back() != static_cast<int64_t>(col_idx.size()) ||
      !std::is_sorted(row_ptr.begin(), row_ptr.end()))
    throw InvalidArgument("sliced ELL: row offsets do not describe the column indices");
  const int64_t rows = static_cast<int64_t>(row_ptr.size()) - 1;
  const int64_t slices = (rows + slice_size - 1) / slice_size;
  auto row_length = [&](int64_t r) { return int64_t{row_ptr[r + 1]} - row_ptr[r]; };

  SellPattern p;
  p.slice_size = slice_size;
  p.slice_offsets.assign(static_cast<size_t>(slices) + 1, 0);
  int64_t total = 0;
  for (int64_t s = 0; s < slices; ++s) {
    int64_t width = 0;  // the rows past the end of the last slice are empty
    for (int64_t r = s * slice_size; r < std::min(rows, (s + 1) * slice_size); ++r)
      width = std::max(width, row_length(r));
    total += width * slice_size;
    if (total > std::numeric_limits<int32_t>::max())
      throw InvalidArgument("sliced ELL: more than 2^31 - 1 stored values (padding included) at slice " +
                            std::to_string(s) + " of " + std::to_string(slices) + ": beyond 32-bit offsets");
    p.slice_offsets[static_cast<size_t>(s) + 1] = static_cast<int32_t>(total);
  }

  p.col_idx.assign(static_cast<size_t>(total), -1);
  p.entry.assign(static_cast<size_t>(total), -1);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t s = r / slice_size, i = r % slice_size;
    for (int64_t k = 0; k < row_length(r); ++k) {
      const size_t slot = static_cast<size_t>(p.slice_offsets[static_cast<size_t>(s)] + k * slice_size + i);
      const int64_t e = row_ptr[r] + k;
      p.col_idx[slot] = col_idx[static_cast<size_t>(e)];
      p.entry[slot] = e;
    }
  }
  return p;
}

}  // namespace jitsparse
