#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"

namespace jitsparse {

// Random test matrices and vectors. Deterministic per seed on every platform: std::mt19937_64 with our own
// mapping to ranges (the std distributions differ between standard libraries).
struct RandomMatrixOptions {
  int32_t rows = 100;
  int32_t cols = 100;
  double mean_row = 5;        // mean entries of a non-empty row (lengths uniform in 1 .. 2*mean_row - 1)
  double empty_fraction = 0;  // probability that a row is empty
  int32_t long_row = 0;       // > 0: row long_row_index() gets this many entries (capped at cols)
  int32_t band = 0;           // > 0: columns within +-band of the row's diagonal position (locality)
  uint64_t seed = 1;
  std::string name;           // empty: "random_<rows>x<cols>"
  // The long row sits at rows / 3: not at a slice boundary, the same for every seed.
  int32_t long_row_index() const { return rows / 3; }
};

// Uniform draws from the top bits of std::mt19937_64, the same on every platform (unlike the
// std::uniform_*_distribution, whose results differ between standard libraries).
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }  // [0, 1)
inline double uniform_pm1(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0; }  // [-1, 1)
// [0, n); the modulo bias is negligible for the sizes drawn here.
inline int64_t uniform_int(std::mt19937_64& rng, int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); }

// Values uniform in [-1, 1] per component; columns sorted and unique.
HostMatrix random_matrix(const EntryType& entry, const RandomMatrixOptions& options);
// Same pattern (and name) as `pattern`, new random values of `entry` (uniform in [-1, 1]): turns real test
// matrices into complex, quaternion or block ones.
HostMatrix with_entry_type(const HostMatrix& pattern, const EntryType& entry, uint64_t seed);
// n * vector_components values uniform in [-1, 1], aos.
std::vector<double> random_vector(int64_t n, int vector_components, uint64_t seed);

}  // namespace jitsparse
