// The row shares of host passes over large matrices: every row once, in order within a share, and an
// exception of any share reaches the caller.
#include <doctest/doctest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/host_passes.hpp"

using namespace jitsparse;

TEST_CASE("host passes: the shares cover every row once") {
  CHECK(row_share_count(kThreadedRows - 1) == 1);
  CHECK(row_share_count(kThreadedRows - 1, 2) == 1);  // small: never a thread
  CHECK(row_share_count(kThreadedRows) >= 1);
  CHECK(row_share_count(kThreadedRows) <= kRowShareThreads);
  CHECK(row_share_count(kThreadedRows, 2) >= 2);
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{1000003}})
    for (const int shares : {1, 2, 3, 4}) {
      CAPTURE(n);
      CAPTURE(shares);
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::atomic<int> calls{0};
      std::atomic<bool> bad_share{false};  // checked here, not on the shares' threads
      for_row_shares(n, shares, [&](int share, int64_t first, int64_t last) {
        if (share < 0 || share >= shares || first > last) bad_share = true;
        ++calls;
        for (int64_t r = first; r < last; ++r) ++hits[static_cast<size_t>(r)];
      });
      CHECK_FALSE(bad_share);
      CHECK(calls == shares);
      bool once = true;
      for (const auto& h : hits) once = once && h == 1;
      CHECK(once);
    }
}

TEST_CASE("host passes: an exception in any share is thrown to the caller") {
  for (const int thrower : {0, 1, 3})
    CHECK_THROWS_AS(for_row_shares(100, 4,
                                   [&](int share, int64_t, int64_t) {
                                     if (share == thrower) throw std::bad_alloc();
                                   }),
                    std::bad_alloc);
  CHECK_THROWS_WITH_AS(for_row_shares(100, 2, [](int share, int64_t, int64_t) {
                         if (share == 1) throw std::runtime_error("share 1 failed");
                       }),
                       "share 1 failed", std::runtime_error);
}
