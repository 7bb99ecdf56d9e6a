#pragma once
#include <cstdint>

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
// speed the loads in flight bound, and at any size for entries of 4 bytes (real f32), whose loop body
// loads too little to keep the SM busy (H100, twenty-ninth session: below half the L2 the evaluations had
// timed 100 unrolled-by-4 twins of real f32 row kernels: 0.85x their plain twin at one thread per row
// on meshes, 0.82x at 8-32 on graphs, the record's best several times; never the search's, which did not
// try them; wider entries 1.0-1.07x there). The tuner and quick tuning time unrolled twins only there.
inline bool unrolling_may_pay(double compulsory_bytes, long long l2_bytes, int entry_bytes) {
  return compulsory_bytes > 0.5 * static_cast<double>(l2_bytes) || (entry_bytes > 0 && entry_bytes <= 4);
}

// GB/s (1e9 bytes per second) for a time in microseconds.
inline double effective_gbps(double bytes, double microseconds) {
  return microseconds > 0 ? bytes / (microseconds * 1e3) : 0.0;
}

}  // namespace jitsparse
