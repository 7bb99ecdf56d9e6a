// The statistics the bench reports beside each median (no GPU needed).
#include <doctest/doctest.h>

#include <vector>

#include "runtime/gpu_timer.hpp"

using namespace jitsparse;

TEST_CASE("timing: median and quartiles of samples") {
  const std::vector<double> v = {9, 1, 5, 3, 7};  // sorted: 1 3 5 7 9
  CHECK(median(v) == 5);
  CHECK(quantile(v, 0.25) == 3);
  CHECK(quantile(v, 0.75) == 7);
  CHECK(quantile(v, 0) == 1);
  CHECK(quantile(v, 1) == 9);
  CHECK(quantile({1, 2}, 0.25) == doctest::Approx(1.25));  // interpolated between order statistics
  CHECK(quantile({4}, 0.75) == 4);
  CHECK(quantile({}, 0.5) == 0);
  CHECK(median({}) == 0);
}
