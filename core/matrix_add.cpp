#include "core/matrix_add.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "core/error.hpp"
#include "core/random_matrix.hpp"

namespace jitsparse {

HostMatrix add_matrices(const HostMatrix& a, const HostMatrix& b, double alpha, double beta) {
  // Entry types are data (JSON), compared by name as elsewhere (DeviceMatrix::refresh_values).
  if (a.entry.name != b.entry.name || a.components() != b.components())
    throw InvalidArgument("add_matrices: entry types differ ('" + a.entry.name + "' and '" + b.entry.name +
                          "')");
  if (a.rows != b.rows || a.cols != b.cols)
    throw InvalidArgument("add_matrices: sizes differ (" + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + " and " + std::to_string(b.rows) + " x " +
                          std::to_string(b.cols) + ")");
  const int nc = a.components();
  HostMatrix c;
  c.entry = a.entry;
  c.name = a.name + "+" + b.name;
  c.rows = a.rows;
  c.cols = a.cols;
  c.row_ptr.assign(static_cast<size_t>(a.rows) + 1, 0);
  c.col_idx.reserve(static_cast<size_t>(a.nnz() + b.nnz()));
  c.values.reserve(static_cast<size_t>(a.nnz() + b.nnz()) * nc);
  // Appends the entry at `col`: s_a * a_k + s_b * b_l, either side absent when its index is -1.
  auto emit = [&](int32_t col, int64_t ka, int64_t kb) {
    c.col_idx.push_back(col);
    for (int j = 0; j < nc; ++j)
      c.values.push_back((ka >= 0 ? alpha * a.entry_values(ka)[j] : 0.0) +
                         (kb >= 0 ? beta * b.entry_values(kb)[j] : 0.0));
  };
  for (int32_t r = 0; r < a.rows; ++r) {
    int64_t ka = a.row_ptr[r], kb = b.row_ptr[r];
    const int64_t ea = a.row_ptr[r + 1], eb = b.row_ptr[r + 1];
    while (ka < ea || kb < eb) {
      const int32_t ca = ka < ea ? a.col_idx[ka] : INT32_MAX, cb = kb < eb ? b.col_idx[kb] : INT32_MAX;
      if (ca == cb)
        emit(ca, ka++, kb++);
      else if (ca < cb)
        emit(ca, ka++, -1);
      else
        emit(cb, -1, kb++);
    }
    if (c.col_idx.size() > static_cast<size_t>(INT32_MAX))
      throw InvalidArgument("add_matrices: the sum has more than 2^31 - 1 entries");
    c.row_ptr[static_cast<size_t>(r) + 1] = static_cast<int32_t>(c.col_idx.size());
  }
  return c;
}

HostMatrix perturb_pattern(const HostMatrix& a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int nc = a.components();
  HostMatrix p;
  p.entry = a.entry;
  p.name = a.name + "~perturbed";
  p.rows = a.rows;
  p.cols = a.cols;
  p.row_ptr.assign(static_cast<size_t>(a.rows) + 1, 0);
  std::vector<double> extra(static_cast<size_t>(nc));
  for (int32_t r = 0; r < a.rows; ++r) {
    const int32_t begin = a.row_ptr[r], end = a.row_ptr[r + 1];
    if (begin < end) {
      // Draws per row, in this order: (keep, factor) for each entry, then the new column.
      const size_t row_start = p.col_idx.size();
      for (int32_t k = begin; k < end; ++k) {
        const bool keep = uniform01(rng) < 0.75;
        const double factor = 0.5 + uniform01(rng);
        if (!keep) continue;
        p.col_idx.push_back(a.col_idx[k]);
        for (int j = 0; j < nc; ++j) p.values.push_back(factor * a.entry_values(k)[j]);
      }
      const int64_t lo = std::max<int64_t>(0, int64_t{a.col_idx[begin]} - 8);
      const int64_t hi = std::min<int64_t>(int64_t{a.cols} - 1, int64_t{a.col_idx[end - 1]} + 8);
      const auto col = static_cast<int32_t>(lo + uniform_int(rng, hi - lo + 1));
      for (int j = 0; j < nc; ++j) extra[j] = 0.3 * a.entry_values(begin)[j];
      // Merge the new entry into the row's sorted kept entries: sum onto an equal column, else insert.
      auto first = p.col_idx.begin() + static_cast<std::ptrdiff_t>(row_start);
      auto at = std::lower_bound(first, p.col_idx.end(), col);
      const size_t pos = static_cast<size_t>(at - p.col_idx.begin());
      if (at != p.col_idx.end() && *at == col) {
        for (int j = 0; j < nc; ++j) p.values[pos * nc + j] += extra[j];
      } else {
        p.col_idx.insert(at, col);
        p.values.insert(p.values.begin() + static_cast<std::ptrdiff_t>(pos * nc), extra.begin(), extra.end());
      }
    }
    if (p.col_idx.size() > static_cast<size_t>(INT32_MAX))
      throw InvalidArgument("perturb_pattern: the result has more than 2^31 - 1 entries");
    p.row_ptr[static_cast<size_t>(r) + 1] = static_cast<int32_t>(p.col_idx.size());
  }
  return p;
}

HostMatrix rescale_values(const HostMatrix& a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  HostMatrix r = a;
  r.name = a.name + "~rescaled";
  const size_t nc = static_cast<size_t>(a.components());
  for (size_t k = 0; k < a.col_idx.size(); ++k) {
    const double factor = 0.5 + uniform01(rng);
    for (size_t j = 0; j < nc; ++j) r.values[k * nc + j] *= factor;
  }
  return r;
}

}  // namespace jitsparse
