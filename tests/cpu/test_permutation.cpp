// Orderings (core/permutation.hpp): P A P^T against the reference, random and scanner-like orders, reverse
// Cuthill-McKee with bandwidth and profile.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/permutation.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "tuner/builtin_matrices.hpp"

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

TEST_CASE("permutation: a large matrix, renumbered in shares on threads, comes back bit for bit") {
  // Past 2^18 rows permute_symmetric fills its rows in shares on threads, and reverse Cuthill-McKee's
  // searches prefetch: the result must not depend on either.
  RandomMatrixOptions o;
  o.rows = o.cols = 300000;
  o.mean_row = 4;
  o.band = 40;
  o.empty_fraction = 0.05;
  o.seed = 17;
  const HostMatrix a = random_matrix(EntryRegistry::instance().get("complex"), o);
  const auto perm = random_permutation(a.rows, 23);
  const HostMatrix b = permute_symmetric(a, perm);
  b.validate();
  for (int32_t r : {0, 1234, 150000, 299999})  // row r of A is row perm[r] of B, entries in new column order
    CHECK(b.row_ptr[perm[r] + 1] - b.row_ptr[perm[r]] == a.row_ptr[r + 1] - a.row_ptr[r]);
  CHECK(matrix_hash(permute_symmetric(b, inverse_permutation(perm))) == matrix_hash(a));
  // RCM of the scrambled band finds a band again (a pure function of the pattern: run twice, the same).
  const auto rcm = rcm_permutation(b);
  CHECK(rcm == rcm_permutation(b));
  CHECK(bandwidth(permute_symmetric(b, rcm)) < bandwidth(b) / 100);
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

// ---- reverse Cuthill-McKee

namespace {

// A real matrix with 1 at each listed (row, col).
HostMatrix pattern_matrix(int32_t rows, int32_t cols, const std::vector<std::pair<int32_t, int32_t>>& entries) {
  TripletList t(EntryRegistry::instance().get("real"), rows, cols);
  const double one = 1;
  for (const auto& [i, j] : entries) t.add(i, j, &one);
  HostMatrix m = t.build();
  m.name = "pattern";
  return m;
}

// The 5-point Laplacian pattern of a w x h grid, numbered x fastest: bandwidth w in this natural order.
// upper_only keeps the entries above the diagonal (an unsymmetric pattern with the same closure, minus the diagonal).
HostMatrix grid_laplacian(int32_t w, int32_t h, bool upper_only = false) {
  std::vector<std::pair<int32_t, int32_t>> e;
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x) {
      const int32_t v = x + w * y;
      if (!upper_only) e.emplace_back(v, v);
      for (const int32_t u : {x > 0 ? v - 1 : -1, x + 1 < w ? v + 1 : -1, y > 0 ? v - w : -1, y + 1 < h ? v + w : -1})
        if (u >= 0 && (!upper_only || u > v)) e.emplace_back(v, u);
    }
  return pattern_matrix(w * h, w * h, e);
}

}  // namespace

TEST_CASE("permutation: rcm brings a randomly renumbered grid Laplacian back to a narrow band") {
  const int32_t w = 30, h = 40;
  const HostMatrix grid = grid_laplacian(w, h);
  CHECK(bandwidth(grid) == w);
  const HostMatrix shuffled = permute_symmetric(grid, random_permutation(grid.rows, 3));
  CHECK(bandwidth(shuffled) > 10 * w);  // the shuffle really destroyed the band
  const auto perm = rcm_permutation(shuffled);
  REQUIRE(is_permutation(perm, shuffled.rows));
  const HostMatrix banded = permute_symmetric(shuffled, perm);
  // From a corner, RCM's levels are the grid's anti-diagonals (at most w vertices): the band stays within
  // two levels.
  CHECK(bandwidth(banded) <= 2 * w);
  CHECK(profile(banded) <= profile(grid));  // no worse an envelope than row by row
  CHECK(profile(banded) * 10 < profile(shuffled));
  CHECK(rcm_permutation(shuffled) == perm);  // deterministic
}

TEST_CASE("permutation: rcm on small graphs, pinned") {
  // A path in natural order: Cuthill-McKee from vertex 0 (the lower-index end), reversed.
  CHECK(rcm_permutation(pattern_matrix(5, 5, {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 3}})) ==
        std::vector<int32_t>{4, 3, 2, 1, 0});
  // Components: path 0-2-5, edge 1-6, isolated 3 and 4. Components start in (degree, index) order of their
  // first vertex: 3, 4, then 0-2-5 (0 is an end already), then 1-6; the whole order is reversed.
  const HostMatrix parts = pattern_matrix(7, 7, {{0, 2}, {2, 0}, {2, 5}, {5, 2}, {1, 6}, {6, 1}, {3, 3}});
  const auto perm = rcm_permutation(parts);
  CHECK(perm == std::vector<int32_t>{4, 1, 3, 6, 5, 2, 0});
  CHECK(bandwidth(permute_symmetric(parts, perm)) == 1);
  // A star: the centre has the highest degree, so it is reached from a leaf and numbered second to last.
  const HostMatrix star = pattern_matrix(5, 5, {{2, 0}, {2, 1}, {2, 3}, {2, 4}, {0, 2}, {1, 2}, {3, 2}, {4, 2}});
  CHECK(rcm_permutation(star) == std::vector<int32_t>{4, 2, 3, 1, 0});
}

TEST_CASE("permutation: rcm keeps components apart, each a contiguous block") {
  // Three shuffled grids side by side, plus isolated vertices (empty rows and columns).
  const HostMatrix g1 = grid_laplacian(8, 9), g2 = grid_laplacian(5, 5), g3 = grid_laplacian(12, 3);
  std::vector<std::pair<int32_t, int32_t>> e;
  std::vector<int> component;
  int32_t offset = 0;
  int id = 0;
  for (const HostMatrix* g : {&g1, &g2, &g3}) {
    for (int32_t r = 0; r < g->rows; ++r) {
      for (int32_t k = g->row_ptr[r]; k < g->row_ptr[r + 1]; ++k) e.emplace_back(offset + r, offset + g->col_idx[k]);
      component.push_back(id);
    }
    offset += g->rows;
    ++id;
  }
  for (int i = 0; i < 7; ++i, ++offset) component.push_back(id++);  // isolated
  const HostMatrix joined = pattern_matrix(offset, offset, e);
  const auto shuffle = random_permutation(joined.rows, 9);
  const HostMatrix a = permute_symmetric(joined, shuffle);
  std::vector<int> component_of(a.rows);
  for (int32_t i = 0; i < joined.rows; ++i) component_of[shuffle[i]] = component[i];
  const auto perm = rcm_permutation(a);
  REQUIRE(is_permutation(perm, a.rows));
  const auto inv = inverse_permutation(perm);
  // Walking the new numbering, a component never comes back once left.
  std::vector<char> finished(id, 0);
  for (int32_t k = 1; k < a.rows; ++k) {
    const int before = component_of[inv[k - 1]], now = component_of[inv[k]];
    if (now != before) {
      CHECK_FALSE(finished[now]);
      finished[before] = 1;
    }
  }
  CHECK(bandwidth(permute_symmetric(a, perm)) <= 2 * 8);  // levels of at most 8 vertices (the 8 x 9 grid)
}

TEST_CASE("permutation: rcm of empty, tiny, hollow and unsymmetric matrices") {
  CHECK(rcm_permutation(pattern_matrix(0, 0, {})).empty());
  CHECK(rcm_permutation(pattern_matrix(1, 1, {})) == std::vector<int32_t>{0});
  CHECK(rcm_permutation(pattern_matrix(1, 1, {{0, 0}})) == std::vector<int32_t>{0});
  CHECK(bandwidth(pattern_matrix(0, 0, {})) == 0);
  CHECK(profile(pattern_matrix(0, 0, {})) == 0);
  // No entries at all: every vertex is its own component.
  CHECK(is_permutation(rcm_permutation(pattern_matrix(50, 50, {})), 50));

  // Only entries above the diagonal (so the last row is empty): the pattern counts as its symmetric
  // closure, so the order is that of the full symmetric Laplacian.
  const auto shuffle = random_permutation(20 * 15, 4);
  const HostMatrix full = permute_symmetric(grid_laplacian(20, 15), shuffle);
  const HostMatrix upper = permute_symmetric(grid_laplacian(20, 15, true), shuffle);
  CHECK(upper.nnz() * 2 + upper.rows == full.nnz());
  CHECK(rcm_permutation(upper) == rcm_permutation(full));
  // A path stored one way per edge, alternating (0,1), (2,1), (2,3), (4,3), ...: every odd row is empty.
  // Shuffled and reordered it becomes a band of width 1.
  std::vector<std::pair<int32_t, int32_t>> e;
  for (int32_t i = 0; i + 1 < 40; ++i) e.push_back(i % 2 == 0 ? std::make_pair(i, i + 1) : std::make_pair(i + 1, i));
  const HostMatrix path = permute_symmetric(pattern_matrix(40, 40, e), random_permutation(40, 5));
  CHECK(bandwidth(path) > 1);
  CHECK(bandwidth(permute_symmetric(path, rcm_permutation(path))) == 1);
}

TEST_CASE("permutation: rcm rejects non-square matrices; bandwidth and profile by hand") {
  CHECK_THROWS_WITH_AS(rcm_permutation(pattern_matrix(3, 4, {{0, 1}})), doctest::Contains("3 x 4, not square"),
                       InvalidArgument);
  CHECK_THROWS_AS(rcm_permutation(pattern_matrix(4, 3, {})), InvalidArgument);
  // Entries (0,3), (2,0), (3,1), (3,3): bandwidth 3; profile: row 2 from column 0 (2), row 3 from 1 (2).
  const HostMatrix m = pattern_matrix(4, 4, {{0, 3}, {2, 0}, {3, 1}, {3, 3}});
  CHECK(bandwidth(m) == 3);
  CHECK(profile(m) == 4);
  CHECK(bandwidth(pattern_matrix(2, 9, {{1, 8}})) == 7);  // any shape
}

TEST_CASE("permutation: degree order puts the most connected vertices first, ties in index order") {
  // A star around vertex 3 plus an edge 0-1: degrees (row + column entries) 3: 8, 0, 1: 4 (with the
  // star's edge), 2, 4: 2; 5 isolated.
  const HostMatrix m = pattern_matrix(6, 6, {{3, 0}, {0, 3}, {3, 2}, {2, 3}, {3, 4}, {4, 3}, {3, 1}, {1, 3}, {0, 1}, {1, 0}});
  const auto perm = degree_permutation(m);
  CHECK(perm == std::vector<int32_t>{1, 2, 3, 0, 4, 5});
  CHECK(ordering_permutation(m, Ordering::degree) == perm);
  CHECK(ordering_permutation(m, Ordering::rcm) == rcm_permutation(m));
  CHECK(ordering_permutation(m, Ordering::none) == std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  // Unsymmetric: a column read by every row counts as much as a row holding every column.
  const HostMatrix col = pattern_matrix(4, 4, {{0, 2}, {1, 2}, {2, 2}, {3, 2}});
  CHECK(degree_permutation(col) == std::vector<int32_t>{1, 2, 0, 3});
  // On an R-MAT graph: a permutation, degrees non-increasing along the new numbering.
  const HostMatrix g = rmat_graph(5000, 8, 0.57, 0.19, 0.19, 7);
  const auto p = degree_permutation(g);
  REQUIRE(is_permutation(p, g.rows));
  const HostMatrix r = permute_symmetric(g, p);
  for (int32_t i = 0; i + 1 < r.rows; ++i)
    CHECK((r.row_ptr[i + 1] - r.row_ptr[i]) >= (r.row_ptr[i + 2] - r.row_ptr[i + 1]));  // symmetric: rows = degree
  CHECK(degree_permutation(pattern_matrix(0, 0, {})).empty());
  CHECK_THROWS_WITH_AS(degree_permutation(pattern_matrix(3, 4, {{0, 1}})), doctest::Contains("3 x 4, not square"),
                       InvalidArgument);
}

// The speed that matters: a 14M-entry mesh matrix shuffled, and a 1.4M-row R-MAT graph. Run by hand:
//   jitsparse_cpu_tests -tc="*rcm timing*" --no-skip
TEST_CASE("permutation: rcm timing on large matrices" * doctest::skip()) {
  auto report = [](const HostMatrix& a) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto perm = rcm_permutation(a);
    const auto t1 = std::chrono::steady_clock::now();
    const HostMatrix b = permute_symmetric(a, perm);
    const auto t2 = std::chrono::steady_clock::now();
    MESSAGE(a.name << ": " << a.rows << " rows, " << a.nnz() << " entries: rcm_permutation "
                   << std::chrono::duration<double>(t1 - t0).count() << " s, permute_symmetric "
                   << std::chrono::duration<double>(t2 - t1).count() << " s; bandwidth " << bandwidth(a) << " -> "
                   << bandwidth(b) << ", profile " << profile(a) << " -> " << profile(b));
    CHECK(is_permutation(perm, a.rows));
  };
  HostMatrix lap = builtin_matrix("laplacian_large").matrix;
  report(lap);
  HostMatrix shuffled = permute_symmetric(lap, random_permutation(lap.rows, 1));
  shuffled.name = "laplacian_large shuffled";
  report(shuffled);
  HostMatrix graph = rmat_graph(1400000, 8, 0.45, 0.22, 0.22, 1);
  graph.name = "rmat45 1.4M";
  report(graph);
}

TEST_CASE("permutation: the narrow check of P A P^T without building it") {
  RandomMatrixOptions o;
  o.rows = o.cols = 70000;
  o.mean_row = 4;
  o.band = 20;
  o.seed = 5;
  const HostMatrix banded = random_matrix(EntryRegistry::instance().get("real"), o);
  const std::vector<int32_t> shuffle = random_permutation(banded.rows, 9);
  const HostMatrix shuffled = permute_symmetric(banded, shuffle);
  CHECK(narrow_columns_fit(banded));
  CHECK_FALSE(narrow_columns_fit(shuffled));
  for (const auto* perm : {&shuffle}) {
    CHECK(narrow_columns_fit(banded, *perm) == narrow_columns_fit(permute_symmetric(banded, *perm)));
    CHECK(narrow_columns_fit(shuffled, inverse_permutation(*perm)));  // back to the band
  }
  const std::vector<int32_t> rcm = rcm_permutation(shuffled);
  CHECK(narrow_columns_fit(shuffled, rcm) == narrow_columns_fit(permute_symmetric(shuffled, rcm)));
  CHECK(narrow_columns_fit(shuffled, rcm));
  CHECK_THROWS_AS(narrow_columns_fit(shuffled, std::vector<int32_t>(10)), InvalidArgument);
}
