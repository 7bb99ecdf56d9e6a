#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/host_matrix.hpp"

namespace jitsparse {

// Vertex orderings (renumberings) of square matrices, host only. The home of orderings: random, scanner-like,
// and later bandwidth-reducing ones (reverse Cuthill-McKee).
//
// Convention: perm[old] = new. Row/vertex `old` of A becomes row perm[old] of P A P^T, so
// (P A P^T)[perm[i]][perm[j]] = A[i][j] and (P x)[perm[i]] = x[i].

// True when perm holds each of 0..n-1 exactly once.
bool is_permutation(const std::vector<int32_t>& perm, int64_t n);
// Throws InvalidArgument naming the first index out of range or repeated (or the wrong length).
void check_permutation(const std::vector<int32_t>& perm, int64_t n);
// inverse[perm[i]] = i (new -> old). Throws InvalidArgument if perm is not a permutation.
std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& perm);

// A uniformly shuffled 0..n-1 (Fisher-Yates on splitmix64): a pure function of (n, seed), the same on every
// platform and standard library.
std::vector<int32_t> random_permutation(int32_t n, uint64_t seed);

// Scanner-like order of points, the way a 3D scanner emits them line by line: points are cut into
// num_slabs slabs of equal width along slab_axis, and within a slab sorted by the coordinate along
// line_axis (ties by original index). Neighbours on opposite sides of a slab boundary end up far apart in
// index, and so do points on the two sides of a curved surface that share a slab. Returns perm[old] = new.
// Throws InvalidArgument for axes outside 0..2, equal axes or num_slabs < 1.
std::vector<int32_t> scan_permutation(const std::vector<std::array<double, 3>>& points, int slab_axis,
                                      int line_axis, int num_slabs);

// P A P^T for a square matrix: entries move unchanged (compound entries as they are), each row keeps its
// columns sorted. Throws InvalidArgument for a non-square matrix or a perm that is not a permutation of
// 0..rows-1.
HostMatrix permute_symmetric(const HostMatrix& a, const std::vector<int32_t>& perm);
// P x for a vector of n entries of `components` doubles each (aos): y[perm[i]] = x[i].
std::vector<double> permute_vector(const std::vector<double>& x, const std::vector<int32_t>& perm,
                                   int components);

}  // namespace jitsparse
