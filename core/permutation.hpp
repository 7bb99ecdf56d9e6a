#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"

namespace jitsparse {

// Vertex orderings (renumberings) of square matrices, host only. The home of orderings: random, scanner-like,
// and bandwidth-reducing ones (reverse Cuthill-McKee).
//
// Convention: perm[old] = new. Row/vertex `old` of A becomes row perm[old] of P A P^T, so
// (P A P^T)[perm[i]][perm[j]] = A[i][j] and (P x)[perm[i]] = x[i].

// none: the identity (the matrix as it is); rcm: reverse Cuthill-McKee (rcm_permutation), for meshes;
// degree: the most connected vertices first (degree_permutation), for graphs with skewed rows.
enum class Ordering { none, rcm, degree };
// "none", "rcm" or "degree"; throws InvalidArgument naming the expected values.
Ordering parse_ordering(const std::string& s);
std::string to_string(Ordering o);
// What names of renumbered things end in: "" for none, "@rcm", "@degree" (variants, packed matrices, "A@rcm").
std::string ordering_suffix(Ordering o);

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

// Reverse Cuthill-McKee (Cuthill and McKee 1969, reversed as George 1971) of a square matrix: a
// bandwidth- and profile-reducing renumbering. Works on the symmetrised pattern A + A^T (an unsymmetric
// pattern is treated as its symmetric closure; the diagonal and values are ignored). Each connected component
// is started from a pseudo-peripheral vertex (George and Liu's repeated breadth-first search, begun at the
// component's unvisited vertex of minimum degree); neighbours are visited in increasing degree; every tie
// goes to the lower index, so the result is a pure function of the pattern. Components follow each other
// (before the reversal) in the order of their starting vertices' (degree, index). Returns perm[old] = new.
// O(nnz log(max degree)) time; at the peak about 3 nnz + 13 n extra 32-bit words of memory. Throws
// InvalidArgument for a non-square matrix.
std::vector<int32_t> rcm_permutation(const HostMatrix& a);

// Degree ordering ("hub sorting"): vertices by decreasing degree (entries of row i plus entries of column
// i, so the symmetric closure's degree twice over for a symmetric pattern), ties in index order. On a
// graph with skewed rows the x elements that most entries read end up next to each other, so a warp's
// gathers share cache lines and the hot part of x stays in L1 (an R-MAT graph of 420k vertices in random
// order, H100: hola 59.1 -> 41.2 us in f32). Scrambles a mesh's locality: the tuner uses it only for
// skewed rows (preferred_ordering). Returns perm[old] = new; O(nnz + n log n). Throws InvalidArgument for a
// non-square matrix.
std::vector<int32_t> degree_permutation(const HostMatrix& a);

// The permutation of `ordering` (none: the identity).
std::vector<int32_t> ordering_permutation(const HostMatrix& a, Ordering ordering);

// max |i - j| over the stored entries (i row, j column); 0 for a matrix without entries.
int64_t bandwidth(const HostMatrix& a);
// Lower profile (envelope): the sum over rows i of i - (the smallest column stored in row i), counting only
// rows whose smallest column is below i. For a symmetric pattern, the entries a skyline solver stores
// below the diagonal.
int64_t profile(const HostMatrix& a);

// P A P^T for a square matrix: entries move unchanged (compound entries as they are), each row keeps its
// columns sorted. Throws InvalidArgument for a non-square matrix or a perm that is not a permutation of
// 0..rows-1.
HostMatrix permute_symmetric(const HostMatrix& a, const std::vector<int32_t>& perm);
// P x for a vector of n entries of `components` doubles each (aos): y[perm[i]] = x[i].
std::vector<double> permute_vector(const std::vector<double>& x, const std::vector<int32_t>& perm,
                                   int components);

}  // namespace jitsparse
