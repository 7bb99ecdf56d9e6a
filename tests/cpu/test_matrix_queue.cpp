// cli/matrix_sources.hpp: the matrices `tune` and `bench` run, with --reorder rcm's renumbered copies.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/matrix_sources.hpp"
#include "core/error.hpp"
#include "core/permutation.hpp"

using namespace jitsparse;
using namespace jitsparse::cli;

TEST_CASE("matrix queue: rcm puts each square matrix's reordering right after it, in a domain of its own") {
  const std::string data = JITSPARSE_TEST_DATA;
  // bcsstk13 is square, lp_afiro 27 x 51 (not reordered, with a note).
  MatrixQueue queue(matrix_sources({data + "/real/bcsstk13.mtx", data + "/real/lp_afiro.mtx"}, "real", "all"),
                    Ordering::rcm);
  CHECK(queue.planned() == 4);
  std::vector<std::string> names, domains;
  std::vector<int64_t> bandwidths;
  while (const LoadedMatrix* m = queue.next()) {
    names.push_back(m->matrix.name);
    domains.push_back(m->domain);
    bandwidths.push_back(bandwidth(m->matrix));
    m->matrix.validate();
  }
  CHECK(names == std::vector<std::string>{"bcsstk13", "bcsstk13@rcm", "lp_afiro"});
  CHECK(domains == std::vector<std::string>{"files-real", "files-real@rcm", "files-real"});
  CHECK(bandwidths[1] < bandwidths[0]);
  CHECK(queue.next() == nullptr);  // stays at the end

  MatrixQueue plain(matrix_sources({data + "/real/bcsstk13.mtx"}, "real", "all"), Ordering::none);
  CHECK(plain.planned() == 1);
  REQUIRE(plain.next() != nullptr);
  CHECK(plain.next() == nullptr);

  CHECK(parse_reorder_option("rcm") == Ordering::rcm);
  CHECK_THROWS_WITH_AS(parse_reorder_option("amd"), doctest::Contains("--reorder must be none, rcm or degree, got 'amd'"),
                       InvalidArgument);
}
