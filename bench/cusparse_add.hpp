#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/gpu_timer.hpp"

namespace jitsparse {

// cuSPARSE's sparse addition C = alpha op(A) + beta op(B) as a user would call it: the legacy
// cusparse<S|D|C|Z>csrgeam2 (bufferSizeExt once, then cusparseXcsrgeam2Nnz + csrgeam2 per addition). It is
// the baseline of the HiSparse A + B kernel (runtime/hisparse_add.hpp). By entry type:
//   real (V == 1)     S/D csrgeam2 on the values (M(a), a 1x1 block)
//   complex           C/Z csrgeam2 on the (re, im) pairs as cuComplex / cuDoubleComplex
//   any other         S/D csrgeam2 on the real (rows*V) x (cols*V) expansion, every entry a whole V x V
//                     block M(a) (as the "-expanded" SpMV baselines build it); method name "-expanded"
// op t: csrgeam2 only adds untransposed matrices, so a user converts first: cusparseCsr2cscEx2 of A and of
// B into preallocated arrays, then the same calls (method "cusparse-csr2csc+csrgeam2"). For expanded types
// the uploaded expansion holds M(a)^T per block, so its csr2csc holds M(a) at (j, i): op(A) = A^T.
// op h: the expanded form uploads M(a) itself, and its csr2csc is exactly A^H's expansion (the transpose of
// M(a) is the adjoint entry); real entries: A^H = A^T; complex entries: "unsupported" (csr2csc does not
// conjugate); types declared without an adjoint: "unsupported".
struct AddBaselineOptions {
  Op op = Op::n;
  TimingOptions timing;  // warm by default; timing.before_each set (an L2 flush): cold, one call per sample
  int device = 0;
  bool time = true;  // false: verify only (tests)
};

struct AddBaselineResult {
  // "cusparse-csrgeam2" (op n) or "cusparse-csr2csc+csrgeam2" (op t, h), + "-expanded" for types that go
  // through the real expansion
  std::string method;
  std::string
      status;  // "ok", "wrong" (verification failed, not timed), "unsupported: <why>", "error: <message>"
  std::string detail;  // the verification message for "wrong"; the form and sizes otherwise
  // One call = what a user pays per addition with preallocated arrays: (op t/h: two csr2csc,) then
  // cusparseXcsrgeam2Nnz (host pointer mode: it returns nnz(C) to the host, so it waits for the GPU) and
  // csrgeam2. 0 when not timed.
  double median_us = 0, q1_us = 0, q3_us = 0;
  std::vector<double> samples_us;
  int reps_per_sample = 0;
  double convert_us = 0;  // op t/h: the two cusparseCsr2cscEx2 alone, median of a separate timing
  // Stored elements of C as cuSPARSE holds it, in elements of its value type: complex numbers for complex
  // entries, real scalars otherwise (for expanded types V*V per compound entry, zeros inside blocks too).
  int64_t nnz_c = 0;
  int64_t device_bytes = 0;     // bytes of C's arrays at their final size: (rows+1)*4 + nnz_c*(4 + value)
  int64_t allocated_bytes = 0;  // bytes of C's arrays as allocated once (col/val at nnz(A) + nnz(B))
  // max over C's scalars of |c - ref| / (|alpha a| + |beta b|) against add_matrices of op(A), op(B) on the
  // host (in double; for expanded types its expansion)
  double max_rel_error = 0;
  bool ok() const { return status == "ok"; }
};

// The method name run_cusparse_add reports for this entry type and operation.
std::string cusparse_add_method(const EntryType& entry, Op op);

// Verifies C (pattern exactly, values within default_tolerance(p) of |alpha a| + |beta b|, from a
// poisoned C) and, when options.time and it is right, times it with time_on_stream. Failures of cuSPARSE
// or CUDA land in the status. Before any GPU work, throws InvalidArgument when A and B differ in entry type
// (by name) or size, alpha or beta is not finite, or a matrix is malformed (HostMatrix::validate); throws
// DeviceError when there is no usable GPU. Empty matrices (0 rows or columns), a precision the entry type
// does not define and sizes beyond 32-bit indices are "unsupported: ...".
AddBaselineResult run_cusparse_add(const HostMatrix& a, const HostMatrix& b, double alpha, double beta,
                                   Precision p, const AddBaselineOptions& options = {});

}  // namespace jitsparse
