// cli/matrix_sources.hpp: the matrices `tune` and `bench` run, with --reorder rcm's renumbered copies.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
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

TEST_CASE("matrix queue: loaded_next gives the matrix next() hands out next, at the same address, never waiting") {
  const std::string data = JITSPARSE_TEST_DATA;
  const std::vector<std::string> files = {data + "/real/bcsstk13.mtx", data + "/real/lp_afiro.mtx",
                                          data + "/real/bcsstk13.mtx"};
  MatrixQueue queue(matrix_sources(files, "real", "all"), Ordering::none);
  CHECK(queue.loaded_next() == nullptr);  // nothing is loading before the first next()
  std::vector<std::string> names;
  while (const LoadedMatrix* m = queue.next()) {
    names.push_back(m->matrix.name);
    // The background load finishes soon: poll as the tuner would, without waiting inside the queue.
    const HostMatrix* following = nullptr;
    for (int i = 0; i < 2000 && !following && names.size() < files.size(); ++i) {
      following = queue.loaded_next();
      if (!following) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (names.size() == files.size()) {
      CHECK(queue.loaded_next() == nullptr);  // the last one: nothing follows
      continue;
    }
    REQUIRE(following != nullptr);
    CHECK(queue.loaded_next() == following);  // asked again: the same
    const LoadedMatrix* after = queue.next();
    REQUIRE(after != nullptr);
    CHECK(&after->matrix == following);
    names.push_back(after->matrix.name);
    after->matrix.validate();
    if (names.size() == files.size()) break;
  }
  CHECK(names == std::vector<std::string>{"bcsstk13", "lp_afiro", "bcsstk13"});
  CHECK(queue.next() == nullptr);

  // With a reordering the next matrix is made by next() itself: loaded_next() says nothing is ready.
  MatrixQueue reordered(matrix_sources({data + "/real/bcsstk13.mtx"}, "real", "all"), Ordering::rcm);
  REQUIRE(reordered.next() != nullptr);
  CHECK(reordered.loaded_next() == nullptr);
  REQUIRE(reordered.next() != nullptr);
  CHECK(reordered.next() == nullptr);

  // A file that fails to load fails when its turn comes, not when loaded_next() looks at it.
  const std::string bad = std::filesystem::temp_directory_path() / "jitsparse_queue_bad.mtx";
  { std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n3 3 1\n9 9 1.0\n"; }
  MatrixQueue failing(matrix_sources({data + "/real/lp_afiro.mtx", bad}, "real", "all"), Ordering::none);
  REQUIRE(failing.next() != nullptr);
  for (int i = 0; i < 400; ++i) {
    CHECK(failing.loaded_next() == nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK_THROWS(failing.next());
  std::filesystem::remove(bad);
}
