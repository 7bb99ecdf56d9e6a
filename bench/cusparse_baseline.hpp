#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu_timer.hpp"
#include "core/host_matrix.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// cuSPARSE as a user would try it on a compound matrix (DESIGN.md "Measuring"), y = A x with alpha 1,
// beta 0. Which methods apply depends on the entry type (see cusparse_methods):
//   real (V == 1)           cusparse-csr-alg1, cusparse-csr-alg2
//   complex                 cusparse-csr-alg1, cusparse-csr-alg2 (CUDA_C_32F / CUDA_C_64F)
//   any other (V >= 2)      the real V x V left-multiplication blocks (EntryType::expansion):
//                           cusparse-bsr-row, cusparse-bsr-col      generic SpMV, CUSPARSE_SPMV_BSR_ALG1
//                           cusparse-bsrmv-row, cusparse-bsrmv-col  legacy cusparse<S|D>bsrmv
//                           cusparse-csr-alg1-expanded, cusparse-csr-alg2-expanded  CSR of the real
//                           (rows*V) x (cols*V) expansion, every block stored whole (as bsr2csr would)
// For quaternions the aos vector (w, x, y, z per element) is exactly the expanded real vector, so every
// method reads the same x and writes the same y.
struct BaselineOptions {
  TimingOptions timing;
  int device = 0;
  bool time = true;                  // false: verify only (tests)
  std::vector<std::string> methods;  // run only these (names as above); empty: all that apply
};

struct BaselineResult {
  std::string method;
  // "ok", "wrong" (verification failed, not timed), "unsupported: <why>", "error: <message>"
  std::string status;
  std::string detail;    // the verification message for "wrong"; format notes otherwise
  double median_us = 0;  // 0 when not timed
  std::vector<double> samples_us;
  int reps_per_sample = 0;
  double gbps = 0;           // compulsory_bytes of the native compound matrix / median time
  double max_rel_error = 0;  // max_i |y_i - ref_i| / sum_j |a_ij| |x_j| (row scale of the reference)
  int64_t device_bytes = 0;  // bytes of the method's matrix arrays on the GPU (not x, y, work buffers)

  bool ok() const { return status == "ok"; }
};

// The method names run_cusparse_baselines would try for this entry type, in order.
std::vector<std::string> cusparse_methods(const EntryType& entry);

// Runs every applicable method (each verified against reference_spmv before it is timed) and returns one
// result per method; a failure of one method is recorded in its status and never stops the others.
// x: cols * V doubles (aos). Throws InvalidArgument for a wrong x size or an unknown method name and
// DeviceError when there is no usable GPU.
std::vector<BaselineResult> run_cusparse_baselines(const HostMatrix& a, Precision p,
                                                   const std::vector<double>& x,
                                                   const BaselineOptions& options = {});

// cuSPARSE's version as "12.6.3".
std::string cusparse_version_string();

}  // namespace jitsparse
