#include "runtime/permuted_matrix.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/permutation.hpp"

namespace jitsparse {
namespace {

// out[map[i]] = in[i], element by element of V doubles. map is a checked permutation (made by reorder).
std::vector<double> scatter(const std::vector<double>& in, const std::vector<int32_t>& map, int v,
                            const char* what) {
  if (in.size() != map.size() * static_cast<size_t>(v))
    throw InvalidArgument(std::string(what) + ": " + std::to_string(in.size()) + " values, expected " +
                          std::to_string(map.size()) + " elements of " + std::to_string(v));
  std::vector<double> out(in.size());
  for (size_t i = 0; i < map.size(); ++i)
    std::copy_n(in.begin() + i * v, v, out.begin() + static_cast<size_t>(map[i]) * v);
  return out;
}

}  // namespace

std::vector<double> PermutedMatrix::to_permuted(const std::vector<double>& x) const {
  return scatter(x, perm, matrix.vector_components(), "to_permuted");
}

std::vector<double> PermutedMatrix::from_permuted(const std::vector<double>& y) const {
  return scatter(y, inverse, matrix.vector_components(), "from_permuted");
}

void PermutedMatrix::upload_permuted(DeviceVector& dx, const std::vector<double>& x) const {
  dx.upload(to_permuted(x));
}

std::vector<double> PermutedMatrix::download_unpermuted(const DeviceVector& dy) const {
  return from_permuted(dy.download());
}

PermutedMatrix reorder(const HostMatrix& a, Ordering ordering) {
  if (a.rows != a.cols)
    throw InvalidArgument("reorder: matrix '" + a.name + "' is " + std::to_string(a.rows) + " x " +
                          std::to_string(a.cols) + ", not square");
  PermutedMatrix p;
  p.ordering = ordering;
  if (ordering == Ordering::none) {
    p.perm.resize(static_cast<size_t>(a.rows));
    for (int32_t i = 0; i < a.rows; ++i) p.perm[i] = i;
    p.matrix = a;
  } else {
    p.perm = ordering_permutation(a, ordering);
    p.matrix = permute_symmetric(a, p.perm);
    p.matrix.name = a.name + ordering_suffix(ordering);
  }
  p.inverse = inverse_permutation(p.perm);
  return p;
}

}  // namespace jitsparse
