// The bandwidth yardstick (core/yardstick.hpp) against numbers worked out by hand from DESIGN.md's formula
// nnz*(c*S + 4) + (rows+1)*4 + (rows+cols)*v*S, for a 3 x 4 matrix with 5 entries.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/entry_type.hpp"
#include "core/host_matrix.hpp"
#include "core/precision.hpp"
#include "core/yardstick.hpp"

using namespace jitsparse;

namespace {

// 3 x 4 entries, 5 stored: (0,0) (0,3) (1,1) (2,0) (2,2); the values do not matter to the yardstick.
HostMatrix three_by_four(const std::string& entry) {
  const EntryType& e = EntryRegistry::instance().get(entry);
  TripletList t(e, 3, 4);
  const std::vector<double> value(e.num_components(), 1.5);
  for (auto [r, c] : {std::pair{0, 0}, {0, 3}, {1, 1}, {2, 0}, {2, 2}}) t.add(r, c, value.data());
  return t.build();
}

struct Expected {
  const char* entry;
  Precision precision;
  double bytes;
};

// By hand: (rows+1)*4 = 16 bytes of row pointers, rows+cols = 7 vector elements (x read, y written).
const Expected kExpected[] = {
    {"real", Precision::f64, 5 * (1 * 8 + 4) + 16 + 7 * 1 * 8},        // 60 + 16 + 56 = 132
    {"real", Precision::f32, 5 * (1 * 4 + 4) + 16 + 7 * 1 * 4},        // 40 + 16 + 28 = 84
    {"complex", Precision::f64, 5 * (2 * 8 + 4) + 16 + 7 * 2 * 8},     // 100 + 16 + 112 = 228
    {"complex", Precision::f32, 5 * (2 * 4 + 4) + 16 + 7 * 2 * 4},     // 60 + 16 + 56 = 132
    {"quaternion", Precision::f64, 5 * (4 * 8 + 4) + 16 + 7 * 4 * 8},  // 180 + 16 + 224 = 420
    {"quaternion", Precision::f32, 5 * (4 * 4 + 4) + 16 + 7 * 4 * 4},  // 100 + 16 + 112 = 228
    {"block3", Precision::f64, 5 * (9 * 8 + 4) + 16 + 7 * 3 * 8},      // 380 + 16 + 168 = 564
    {"block3", Precision::f32, 5 * (9 * 4 + 4) + 16 + 7 * 3 * 4},      // 200 + 16 + 84 = 300
};

}  // namespace

TEST_CASE("yardstick: compulsory bytes of a 3 x 4 matrix with 5 entries, by hand") {
  // The sums above, written out, so a slip in the table's arithmetic cannot hide one in the code.
  const double literal[] = {132, 84, 228, 132, 420, 228, 564, 300};
  for (size_t i = 0; i < sizeof kExpected / sizeof kExpected[0]; ++i) {
    const Expected& x = kExpected[i];
    CAPTURE(x.entry);
    CAPTURE(to_string(x.precision));
    CHECK(x.bytes == literal[i]);
    const HostMatrix a = three_by_four(x.entry);
    REQUIRE(a.rows == 3);
    REQUIRE(a.cols == 4);
    REQUIRE(a.nnz() == 5);
    CHECK(compulsory_bytes(a, x.precision) == x.bytes);
    CHECK(compulsory_bytes(3, 4, 5, a.components(), a.vector_components(), x.precision) == x.bytes);
  }
}

TEST_CASE("yardstick: effective bandwidth from bytes and microseconds") {
  // 564 bytes (block3, f64) in 0.5 us: 564 / 0.5e-6 s = 1.128e9 B/s = 1.128 GB/s.
  CHECK(effective_gbps(compulsory_bytes(three_by_four("block3"), Precision::f64), 0.5) == doctest::Approx(1.128));
  // 180 MB in 60 us (the order of a large tuned matrix on an H100): 3000 GB/s.
  CHECK(effective_gbps(180e6, 60.0) == doctest::Approx(3000.0));
  // No time measured: no bandwidth, not a division by zero.
  CHECK(effective_gbps(132, 0.0) == 0.0);
}

TEST_CASE("yardstick: speedups summarised as the issues state targets (geometric mean, at target, below 1)") {
  // 4x, 1x and 0.25x: geometric mean 1; one at 3x or more, one below 1 (1x is not below).
  const SpeedupSummary s = summarize_speedups({4.0, 1.0, 0.25}, 3.0);
  CHECK(s.cases == 3);
  CHECK(s.geomean == doctest::Approx(1.0));
  CHECK(s.at_target == 1);
  CHECK(s.below_one == 1);
  // Failed cases (NaN, infinite, zero, negative) are left out; none left: no mean.
  const SpeedupSummary t = summarize_speedups({2.0, 8.0, std::nan(""), INFINITY, 0.0, -1.0}, 3.0);
  CHECK(t.cases == 2);
  CHECK(t.geomean == doctest::Approx(4.0));
  CHECK(t.at_target == 1);
  CHECK(summarize_speedups({}, 3.0).geomean == 0.0);
  CHECK(summarize_speedups({std::nan("")}, 3.0).cases == 0);
}
