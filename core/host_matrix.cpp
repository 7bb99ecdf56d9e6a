#include "core/host_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "core/error.hpp"

namespace jitsparse {

void HostMatrix::validate() const {
  const std::string where = "matrix '" + name + "': ";
  if (rows < 0 || cols < 0) throw InvalidArgument(where + "negative size");
  if (static_cast<int64_t>(row_ptr.size()) != static_cast<int64_t>(rows) + 1 || row_ptr.front() != 0)
    throw InvalidArgument(where + "row_ptr must have rows + 1 entries starting at 0");
  if (row_ptr.back() != nnz()) throw InvalidArgument(where + "row_ptr does not end at nnz");
  if (static_cast<int64_t>(values.size()) != nnz() * components())
    throw InvalidArgument(where + "values must hold nnz * " + std::to_string(components()) + " numbers");
  for (int32_t r = 0; r < rows; ++r) {
    if (row_ptr[r + 1] < row_ptr[r]) throw InvalidArgument(where + "row_ptr decreases at row " + std::to_string(r));
    for (int32_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      if (col_idx[k] < 0 || col_idx[k] >= cols)
        throw InvalidArgument(where + "column " + std::to_string(col_idx[k]) + " out of range in row " +
                              std::to_string(r));
      if (k > row_ptr[r] && col_idx[k] <= col_idx[k - 1])
        throw InvalidArgument(where + "columns not sorted and unique in row " + std::to_string(r));
    }
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw InvalidArgument(where + "non-finite value (" + std::to_string(values[i]) + ") in entry " +
                            std::to_string(i / components()));
}

TripletList::TripletList(EntryType entry, int64_t rows, int64_t cols)
    : entry_(std::move(entry)), num_rows_(rows), num_cols_(cols) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0) throw InvalidArgument("matrix size must not be negative");
  if (rows > kMax - 1 || cols > kMax - 1)
    throw InvalidArgument("matrix size " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " exceeds the 32-bit index limit (" + std::to_string(kMax - 1) + ")");
}

void TripletList::add(int64_t row, int64_t col, const double* value) {
  if (row < 0 || row >= num_rows_ || col < 0 || col >= num_cols_)
    throw InvalidArgument("entry (" + std::to_string(row) + ", " + std::to_string(col) + ") outside the " +
                          std::to_string(num_rows_) + " x " + std::to_string(num_cols_) + " matrix");
  rows_.push_back(row);
  cols_.push_back(col);
  values_.insert(values_.end(), value, value + entry_.num_components());
}

HostMatrix TripletList::build(bool sum_duplicates) const {
  const int c = entry_.num_components();
  std::vector<int64_t> order(rows_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return rows_[a] != rows_[b] ? rows_[a] < rows_[b] : cols_[a] < cols_[b];
  });
  HostMatrix m;
  m.entry = entry_;
  m.rows = static_cast<int32_t>(num_rows_);
  m.cols = static_cast<int32_t>(num_cols_);
  m.row_ptr.assign(num_rows_ + 1, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    int64_t t = order[i];
    bool duplicate = i > 0 && rows_[order[i - 1]] == rows_[t] && cols_[order[i - 1]] == cols_[t];
    if (duplicate) {
      if (!sum_duplicates)
        throw InvalidArgument("duplicate entry (" + std::to_string(rows_[t] + 1) + ", " +
                              std::to_string(cols_[t] + 1) + ")");
      double* dst = m.values.data() + m.values.size() - c;
      for (int k = 0; k < c; ++k) dst[k] += values_[t * c + k];
      continue;
    }
    if (m.col_idx.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw InvalidArgument("more than 2^31-1 entries: beyond the 32-bit index limit");
    m.col_idx.push_back(static_cast<int32_t>(cols_[t]));
    m.values.insert(m.values.end(), values_.begin() + t * c, values_.begin() + (t + 1) * c);
    ++m.row_ptr[rows_[t] + 1];
  }
  for (int64_t r = 0; r < num_rows_; ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

std::string matrix_hash(const HostMatrix& a) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* data, size_t bytes) {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(a.entry.name.data(), a.entry.name.size());
  mix(&a.rows, sizeof a.rows);
  mix(&a.cols, sizeof a.cols);
  mix(a.row_ptr.data(), a.row_ptr.size() * sizeof(int32_t));
  mix(a.col_idx.data(), a.col_idx.size() * sizeof(int32_t));
  mix(a.values.data(), a.values.size() * sizeof(double));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace jitsparse
