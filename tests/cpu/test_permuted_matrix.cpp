// runtime/permuted_matrix.hpp: a solver working on P A P^T gets A x back through to_permuted/from_permuted.
#include <doctest/doctest.h>

#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/permutation.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "runtime/permuted_matrix.hpp"

using namespace jitsparse;

TEST_CASE("permuted matrix: from_permuted(B to_permuted(x)) equals A x for every entry type") {
  for (const auto& name : EntryRegistry::instance().names()) {
    CAPTURE(name);
    const EntryType& e = EntryRegistry::instance().get(name);
    RandomMatrixOptions o;
    o.rows = o.cols = 400;
    o.mean_row = 5;
    o.band = 30;  // a local pattern that a shuffle spreads out and RCM gathers again
    o.empty_fraction = 0.1;
    o.seed = 21;
    o.name = "banded";
    const HostMatrix local = random_matrix(e, o);
    const HostMatrix a = permute_symmetric(local, random_permutation(local.rows, 2));
    const int V = e.num_vector_components();
    const PermutedMatrix p = reorder(a, Ordering::rcm);
    CHECK(p.ordering == Ordering::rcm);
    CHECK(p.matrix.name == "banded@rcm");
    CHECK(is_permutation(p.perm, a.rows));
    CHECK(inverse_permutation(p.perm) == p.inverse);
    CHECK(bandwidth(p.matrix) < bandwidth(a) / 2);
    const auto x = random_vector(a.cols, V, 8);
    const auto xp = p.to_permuted(x);
    CHECK(p.from_permuted(xp) == x);  // a pure reshuffle, bit for bit
    const auto y = p.from_permuted(reference_spmv(p.matrix, xp));
    const VerifyResult r = verify_result(y, reference_spmv(a, x), reference_abs_scale(a, x), 1e-14, V);
    CHECK_MESSAGE(r.ok, r.message);
  }
}

TEST_CASE("permuted matrix: none is the identity; errors are clear") {
  const EntryType& complex = EntryRegistry::instance().get("complex");
  RandomMatrixOptions o;
  o.rows = o.cols = 50;
  const HostMatrix a = random_matrix(complex, o);
  const PermutedMatrix same = reorder(a, Ordering::none);
  CHECK(matrix_hash(same.matrix) == matrix_hash(a));
  CHECK(same.matrix.name == a.name);
  const auto x = random_vector(50, 2, 1);
  CHECK(same.to_permuted(x) == x);
  CHECK(same.from_permuted(x) == x);

  const PermutedMatrix p = reorder(a, Ordering::rcm);
  CHECK_THROWS_WITH_AS(p.to_permuted(std::vector<double>(99)), doctest::Contains("99 values, expected 50 elements of 2"),
                       InvalidArgument);
  CHECK_THROWS_AS(p.from_permuted(std::vector<double>(50)), InvalidArgument);

  o.cols = 60;
  CHECK_THROWS_WITH_AS(reorder(random_matrix(complex, o), Ordering::rcm), doctest::Contains("not square"),
                       InvalidArgument);
  CHECK(parse_ordering("rcm") == Ordering::rcm);
  CHECK(parse_ordering("degree") == Ordering::degree);
  CHECK(parse_ordering("none") == Ordering::none);
  CHECK_THROWS_WITH_AS(parse_ordering("amd"), doctest::Contains("expected none, rcm or degree"), InvalidArgument);
  CHECK(to_string(Ordering::rcm) == "rcm");
  CHECK(to_string(Ordering::degree) == "degree");
  CHECK(ordering_suffix(Ordering::degree) == "@degree");
  const PermutedMatrix by_degree = reorder(a, Ordering::degree);
  CHECK(by_degree.perm == degree_permutation(a));
  CHECK(by_degree.matrix.name == a.name + "@degree");
  CHECK(by_degree.from_permuted(by_degree.to_permuted(std::vector<double>(100, 1.5))) == std::vector<double>(100, 1.5));

  // 0 x 0 goes through as well.
  const PermutedMatrix empty = reorder(HostMatrix{complex, "empty"}, Ordering::rcm);
  CHECK(empty.perm.empty());
  CHECK(empty.to_permuted({}).empty());
}
