// Orderings (core/permutation.hpp): P A P^T against the reference, random and scanner-like orders.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/permutation.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"

using namespace jitsparse;

TEST_CASE("permutation: random_permutation is a seeded shuffle, the same on every platform") {
  const auto p = random_permutation(1000, 7);
  CHECK(is_permutation(p, 1000));
  CHECK(p == random_permutation(1000, 7));
  CHECK(p != random_permutation(1000, 8));
  int fixed = 0;
  for (int i = 0; i < 1000; ++i) fixed += p[i] == i;
  CHECK(fixed < 10);  // about one fixed point is expected
  // Pinned: splitmix64 and integer arithmetic only, so this must not change between compilers or libraries.
  CHECK(random_permutation(8, 42) == std::vector<int32_t>{4, 1, 2, 7, 5, 0, 6, 3});
  CHECK(random_permutation(0, 1).empty());
  CHECK(random_permutation(1, 1) == std::vector<int32_t>{0});
  CHECK_THROWS_AS(random_permutation(-1, 1), InvalidArgument);
}

TEST_CASE("permutation: checks and inverse") {
  CHECK(is_permutation({2, 0, 1}, 3));
  CHECK_FALSE(is_permutation({2, 0, 1}, 4));
  CHECK_FALSE(is_permutation({2, 0, 0}, 3));
  CHECK_FALSE(is_permutation({3, 0, 1}, 3));
  CHECK_FALSE(is_permutation({-1, 0, 1}, 3));
  CHECK(inverse_permutation({2, 0, 1}) == std::vector<int32_t>{1, 2, 0});
  CHECK_THROWS_WITH_AS(check_permutation({0, 2, 2}, 3), doctest::Contains("perm[1] and perm[2] are both 2"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(check_permutation({0, 3, 1}, 3), doctest::Contains("perm[1] = 3 is outside 0..2"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(check_permutation({0, 1}, 3), doctest::Contains("2 entries, expected 3"),
                       InvalidArgument);
  CHECK(permute_vector({1, 2, 3, 4, 5, 6}, {2, 0, 1}, 2) == std::vector<double>{3, 4, 5, 6, 1, 2});
  CHECK_THROWS_AS(permute_vector({1, 2, 3}, {1, 0}, 2), InvalidArgument);
}

TEST_CASE("permutation: P A P^T times P x equals P (A x) for every entry type") {
  for (const auto& name : EntryRegistry::instance().names()) {
    CAPTURE(name);
    const EntryType& e = EntryRegistry::instance().get(name);
    RandomMatrixOptions o;
    o.rows = o.cols = 300;
    o.mean_row = 6;
    o.empty_fraction = 0.1;
    o.long_row = 120;
    o.seed = 11;
    const HostMatrix a = random_matrix(e, o);
    const int V = e.num_vector_components();
    const auto perm = random_permutation(a.rows, 5);
    const HostMatrix b = permute_symmetric(a, perm);
    b.validate();  // columns sorted and unique
    CHECK(b.nnz() == a.nnz());
    CHECK(b.row_ptr[perm[o.long_row_index()] + 1] - b.row_ptr[perm[o.long_row_index()]] ==
          a.row_ptr[o.long_row_index() + 1] - a.row_ptr[o.long_row_index()]);
    const auto x = random_vector(a.cols, V, 3);
    const auto want = permute_vector(reference_spmv(a, x), perm, V);
    const auto got = reference_spmv(b, permute_vector(x, perm, V));
    const auto scale = reference_abs_scale(b, permute_vector(x, perm, V));
    const VerifyResult r = verify_result(got, want, scale, 1e-14, V);
    CHECK_MESSAGE(r.ok, r.message);
    // Entries move unchanged, and the inverse undoes it bit for bit.
    CHECK(matrix_hash(permute_symmetric(b, inverse_permutation(perm))) == matrix_hash(a));
  }
}

TEST_CASE("permutation: permute_symmetric rejects non-square matrices and bad permutations") {
  RandomMatrixOptions o;
  o.rows = 5;
  o.cols = 6;
  const HostMatrix rect = random_matrix(EntryRegistry::instance().get("real"), o);
  CHECK_THROWS_WITH_AS(permute_symmetric(rect, {0, 1, 2, 3, 4}), doctest::Contains("not square"),
                       InvalidArgument);
  o.cols = 5;
  const HostMatrix sq = random_matrix(EntryRegistry::instance().get("complex"), o);
  CHECK_THROWS_WITH_AS(permute_symmetric(sq, {0, 1, 2, 3}), doctest::Contains("4 entries"), InvalidArgument);
  CHECK_THROWS_WITH_AS(permute_symmetric(sq, {0, 1, 2, 3, 3}), doctest::Contains("not a permutation"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(permute_symmetric(sq, {0, 1, 2, 3, 5}), doctest::Contains("not a permutation"),
                       InvalidArgument);
  CHECK(matrix_hash(permute_symmetric(sq, {0, 1, 2, 3, 4})) == matrix_hash(sq));
}

TEST_CASE("permutation: scan order goes slab after slab, by the line coordinate within a slab") {
  // A 6 x 5 x 4 grid, numbered x fastest, slightly perturbed so that coordinates differ.
  std::vector<std::array<double, 3>> points;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 6; ++i) points.push_back({i + 0.01 * j, j + 0.01 * k, k + 0.01 * i});
  const auto perm = scan_permutation(points, 2, 1, 2);
  REQUIRE(is_permutation(perm, static_cast<int64_t>(points.size())));
  const auto inv = inverse_permutation(perm);
  // Slabs of z in [0, 1.53) and [1.53, 3.06]: layers k = 0, 1 then k = 2, 3.
  for (size_t r = 1; r < inv.size(); ++r) {
    const auto &p = points[inv[r - 1]], &q = points[inv[r]];
    const int sp = p[2] < 1.5 ? 0 : 1, sq = q[2] < 1.5 ? 0 : 1;
    CHECK(sp <= sq);
    if (sp == sq) CHECK(p[1] <= q[1]);
  }
  CHECK(perm[6 * 5 * 2] >= 60);  // (0, 0, 2) opens the second slab, after the 60 points of layers 0 and 1
  CHECK(scan_permutation(points, 2, 1, 2) == perm);
  CHECK_THROWS_AS(scan_permutation(points, 1, 1, 2), InvalidArgument);
  CHECK_THROWS_AS(scan_permutation(points, 0, 3, 2), InvalidArgument);
  CHECK_THROWS_AS(scan_permutation(points, 0, 1, 0), InvalidArgument);
  points[3][0] = std::nan("");
  CHECK_THROWS_AS(scan_permutation(points, 0, 1, 2), InvalidArgument);
}
