#include "core/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace jitsparse {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

bool is_permutation(const std::vector<int32_t>& perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n) return false;
  std::vector<char> seen(perm.size(), 0);
  for (int32_t p : perm) {
    if (p < 0 || p >= n || seen[p]) return false;
    seen[p] = 1;
  }
  return true;
}

void check_permutation(const std::vector<int32_t>& perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n)
    throw InvalidArgument("permutation has " + std::to_string(perm.size()) + " entries, expected " +
                          std::to_string(n));
  std::vector<int64_t> first(perm.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    const int32_t p = perm[i];
    if (p < 0 || p >= n)
      throw InvalidArgument("not a permutation: perm[" + std::to_string(i) + "] = " + std::to_string(p) +
                            " is outside 0.." + std::to_string(n - 1));
    if (first[p] >= 0)
      throw InvalidArgument("not a permutation: perm[" + std::to_string(first[p]) + "] and perm[" +
                            std::to_string(i) + "] are both " + std::to_string(p));
    first[p] = static_cast<int64_t>(i);
  }
}

std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& perm) {
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  std::vector<int32_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int32_t>(i);
  return inv;
}

std::vector<int32_t> random_permutation(int32_t n, uint64_t seed) {
  if (n < 0) throw InvalidArgument("random_permutation: negative size " + std::to_string(n));
  std::vector<int32_t> perm(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) perm[i] = i;
  const uint64_t base = splitmix64(seed ^ 0x5eedc0ffee123457ull);
  for (int64_t i = n - 1; i > 0; --i) {
    // 64 random bits modulo i+1: the bias (below 2^-32 for 32-bit sizes) does not matter here.
    const auto j =
        static_cast<int64_t>(splitmix64(base + static_cast<uint64_t>(i)) % static_cast<uint64_t>(i + 1));
    std::swap(perm[i], perm[j]);
  }
  return perm;
}

std::vector<int32_t> scan_permutation(const std::vector<std::array<double, 3>>& points, int slab_axis,
                                      int line_axis, int num_slabs) {
  if (slab_axis < 0 || slab_axis > 2 || line_axis < 0 || line_axis > 2 || slab_axis == line_axis)
    throw InvalidArgument("scan_permutation: slab and line axes must be two different axes of 0..2, not " +
                          std::to_string(slab_axis) + " and " + std::to_string(line_axis));
  if (num_slabs < 1) throw InvalidArgument("scan_permutation: needs at least one slab");
  if (points.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    throw InvalidArgument("scan_permutation: too many points for 32-bit indices");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < points.size(); ++i) {
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(points[i][k]))
        throw InvalidArgument("scan_permutation: point " + std::to_string(i) +
                              " has a non-finite coordinate");
    lo = std::min(lo, points[i][slab_axis]);
    hi = std::max(hi, points[i][slab_axis]);
  }
  const double width = (hi - lo) / num_slabs;
  struct Key {
    int32_t slab;
    double line;
    int32_t index;
  };
  std::vector<Key> keys(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    int32_t slab = 0;
    if (width > 0)
      slab = static_cast<int32_t>(
          std::min<double>(num_slabs - 1, std::floor((points[i][slab_axis] - lo) / width)));
    keys[i] = {slab, points[i][line_axis], static_cast<int32_t>(i)};
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.slab != b.slab) return a.slab < b.slab;
    if (a.line != b.line) return a.line < b.line;
    return a.index < b.index;
  });
  std::vector<int32_t> perm(points.size());
  for (size_t k = 0; k < keys.size(); ++k) perm[keys[k].index] = static_cast<int32_t>(k);
  return perm;
}

HostMatrix permute_symmetric(const HostMatrix& a, const std::vector<int32_t>& perm) {
  if (a.rows != a.cols)
    throw InvalidArgument("permute_symmetric: matrix '" + a.name + "' is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", not square");
  if (static_cast<int64_t>(perm.size()) != a.rows)
    throw InvalidArgument("permute_symmetric: permutation of " + std::to_string(perm.size()) +
                          " entries for matrix '" + a.name + "' with " + std::to_string(a.rows) + " rows");
  const std::vector<int32_t> inv = inverse_permutation(perm);  // checks perm
  const int c = a.components();
  HostMatrix b;
  b.entry = a.entry;
  b.name = a.name;
  b.rows = b.cols = a.rows;
  b.row_ptr.assign(static_cast<size_t>(a.rows) + 1, 0);
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
  std::vector<std::pair<int32_t, int32_t>> row;  // (new column, old position)
  int64_t out = 0;
  for (int32_t r = 0; r < b.rows; ++r) {
    const int32_t old = inv[r];
    row.clear();
    for (int32_t k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k) row.emplace_back(perm[a.col_idx[k]], k);
    std::sort(row.begin(), row.end());
    for (const auto& [col, k] : row) {
      b.col_idx[out] = col;
      std::copy(a.values.begin() + static_cast<int64_t>(k) * c,
                a.values.begin() + static_cast<int64_t>(k + 1) * c, b.values.begin() + out * c);
      ++out;
    }
    b.row_ptr[r + 1] = static_cast<int32_t>(out);
  }
  return b;
}

std::vector<double> permute_vector(const std::vector<double>& x, const std::vector<int32_t>& perm,
                                   int components) {
  if (components < 1) throw InvalidArgument("permute_vector: components must be positive");
  if (x.size() != perm.size() * static_cast<size_t>(components))
    throw InvalidArgument("permute_vector: " + std::to_string(x.size()) + " values for " +
                          std::to_string(perm.size()) + " entries of " + std::to_string(components));
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  std::vector<double> y(x.size());
  for (size_t i = 0; i < perm.size(); ++i)
    std::copy(x.begin() + i * components, x.begin() + (i + 1) * components,
              y.begin() + static_cast<size_t>(perm[i]) * components);
  return y;
}

}  // namespace jitsparse
