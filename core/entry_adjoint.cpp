#include "core/entry_adjoint.hpp"

#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "core/reference.hpp"

namespace jitsparse {
namespace {

// Solves g x = r in place (n x n, row-major) by Gaussian elimination with partial pivoting; false when g
// is singular (a type whose components are not independent).
bool solve(std::vector<double> g, std::vector<double>& r, int n) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int i = col + 1; i < n; ++i)
      if (std::fabs(g[i * n + col]) > std::fabs(g[pivot * n + col])) pivot = i;
    if (std::fabs(g[pivot * n + col]) < 1e-12) return false;
    for (int j = 0; j < n; ++j) std::swap(g[col * n + j], g[pivot * n + j]);
    std::swap(r[col], r[pivot]);
    for (int i = 0; i < n; ++i) {
      if (i == col) continue;
      const double f = g[i * n + col] / g[col * n + col];
      for (int j = 0; j < n; ++j) g[i * n + j] -= f * g[col * n + j];
      r[i] -= f * r[col];
    }
  }
  for (int i = 0; i < n; ++i) r[i] /= g[i * n + i];
  return true;
}

}  // namespace

std::vector<double> entry_adjoint_map(const EntryType& entry) {
  const std::string who = "entry type '" + entry.name + "': ";
  if (!entry.has_adjoint) throw InvalidArgument(who + "it declares no adjoint (\"adjoint\": false), so op h is refused");
  const int c = entry.num_components(), v = entry.num_vector_components();
  // M(e_k) for every basis entry, and its transpose.
  std::vector<std::vector<double>> m(c), mt(c);
  for (int k = 0; k < c; ++k) {
    std::vector<double> e(c, 0.0);
    e[k] = 1;
    m[k] = entry.expansion(e.data());
    mt[k].resize(static_cast<size_t>(v) * v);
    for (int i = 0; i < v; ++i)
      for (int j = 0; j < v; ++j) mt[k][i * v + j] = m[k][j * v + i];
  }
  auto dot = [&](const std::vector<double>& x, const std::vector<double>& y) {
    double s = 0;
    for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
    return s;
  };
  std::vector<double> gram(static_cast<size_t>(c) * c);
  for (int i = 0; i < c; ++i)
    for (int j = 0; j < c; ++j) gram[i * c + j] = dot(m[i], m[j]);
  std::vector<double> p(static_cast<size_t>(c) * c);
  for (int k = 0; k < c; ++k) {
    std::vector<double> r(c);
    for (int i = 0; i < c; ++i) r[i] = dot(m[i], mt[k]);
    if (!solve(gram, r, c))
      throw InvalidArgument(who + "its components are not independent in the product, so the adjoint of an entry "
                                  "is not unique");
    // Check: sum_i r[i] M(e_i) must be M(e_k)^T exactly (up to rounding).
    for (int q = 0; q < v * v; ++q) {
      double s = 0;
      for (int i = 0; i < c; ++i) s += r[i] * m[i][q];
      if (std::fabs(s - mt[k][q]) > 1e-9)
        throw InvalidArgument(who + "the transpose of an entry's real expansion is not an entry of this type, so a "
                                    "stored A^H (A^H + B^H) cannot be formed; A^H x products still work");
    }
    for (int i = 0; i < c; ++i) p[i * c + k] = std::fabs(r[i]) < 1e-12 ? 0.0 : r[i];
  }
  return p;
}

HostMatrix op_matrix(const HostMatrix& a, Op op) {
  if (op == Op::n) return a;
  HostMatrix t = transpose_pattern(a);
  if (op == Op::h) {
    const std::vector<double> p = entry_adjoint_map(a.entry);
    const int c = a.components();
    std::vector<double> in(c);
    for (int64_t k = 0; k < t.nnz(); ++k) {
      double* e = t.values.data() + k * c;
      for (int i = 0; i < c; ++i) in[i] = e[i];
      for (int i = 0; i < c; ++i) {
        double s = 0;
        for (int j = 0; j < c; ++j) s += p[i * c + j] * in[j];
        e[i] = s;
      }
    }
  }
  return t;
}

}  // namespace jitsparse
