#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// Compulsory bytes of one y = A x in the native compound format (DESIGN.md), the same for every
// competitor: nnz*(C*S + 4) + (rows+1)*4 + (rows + cols)*V*S. Effective bandwidth = this / time.
inline double compulsory_bytes(int64_t rows, int64_t cols, int64_t nnz, int components, int vector_components,
                               Precision p) {
  const double s = scalar_bytes(p);
  return static_cast<double>(nnz) * (components * s + 4) + static_cast<double>(rows + 1) * 4 +
         static_cast<double>(rows + cols) * vector_components * s;
}

inline double compulsory_bytes(const HostMatrix& a, Precision p) {
  return compulsory_bytes(a.rows, a.cols, a.nnz(), a.components(), a.vector_components(), p);
}

// Bytes of CSR with 32-bit indices (row pointers, column indices, values): the memory yardstick of
// HiSparse (issue 9).
inline int64_t csr32_bytes(int64_t rows, int64_t nnz, int entry_bytes) { return 4 * (rows + 1) + nnz * (4 + entry_bytes); }

// Whether a matrix of these compulsory bytes stays in the L2 between products (the L2 unknown: no). In it,
// cached matrix loads pay; above it they never won (H100, twentieth session).
inline bool stays_in_l2(double compulsory_bytes, long long l2_bytes) {
  return l2_bytes > 0 && compulsory_bytes > 0 && compulsory_bytes <= static_cast<double>(l2_bytes);
}

// Whether unrolling a row kernel's loop (more loads in flight) may pay: on matrices over half the L2, whose
// speed the loads in flight bound; the tuner and quick tuning time unrolled twins only there.
inline bool unrolling_may_pay(double compulsory_bytes, long long l2_bytes) {
  return compulsory_bytes > 0.5 * static_cast<double>(l2_bytes);
}

// GB/s (1e9 bytes per second) for a time in microseconds.
inline double effective_gbps(double bytes, double microseconds) {
  return microseconds > 0 ? bytes / (microseconds * 1e3) : 0.0;
}

// Speedups over a baseline (its time over ours) summarised as the issues state their targets: the
// geometric mean, and how many reach a target ratio or fall below 1 (slower than the baseline). Ratios that
// are not positive and finite (a failed or untimed case) are not counted.
struct SpeedupSummary {
  int cases = 0;
  double geomean = 0;  // 0 without cases
  int at_target = 0;
  int below_one = 0;
};

inline SpeedupSummary summarize_speedups(const std::vector<double>& speedups, double target) {
  SpeedupSummary s;
  double log_sum = 0;
  for (double x : speedups) {
    if (!(x > 0) || !std::isfinite(x)) continue;
    ++s.cases;
    log_sum += std::log(x);
    s.at_target += x >= target;
    s.below_one += x < 1;
  }
  s.geomean = s.cases > 0 ? std::exp(log_sum / s.cases) : 0;
  return s;
}

}  // namespace jitsparse
