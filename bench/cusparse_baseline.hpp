#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu_timer.hpp"
#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"

namespace jitsparse {

// cuSPARSE as a user would try it on a compound matrix (DESIGN.md "Measuring"), y = A x with alpha 1,
// beta 0. Which methods apply depends on the entry type (see cusparse_methods):
//   real (V == 1)           cusparse-csr-alg1, cusparse-csr-alg2, cusparse-sell
//   complex                 the same three with CUDA_C_32F / CUDA_C_64F values
//                           cusparse-sell: sliced ELL (cusparseCreateSlicedEll, CUSPARSE_SPMV_SELL_ALG1),
//                           built on the host from the CSR (cuSPARSE has no CSR-to-SELL conversion; its
//                           sample builds the arrays by hand too), slice size kSellSliceSize
//   any other (V >= 2)      the real V x V left-multiplication blocks (EntryType::expansion):
//                           cusparse-bsr-row, cusparse-bsr-col      generic SpMV, CUSPARSE_SPMV_BSR_ALG1
//                           cusparse-bsrmv-row, cusparse-bsrmv-col  legacy cusparse<S|D>bsrmv
//                           cusparse-csr-alg1-expanded, cusparse-csr-alg2-expanded  CSR of the real
//                           (rows*V) x (cols*V) expansion, every block stored whole (as bsr2csr would)
//   quaternion-structured (V == 4, checked on the multiplication): also the cheapest form cuSPARSE takes,
//                           2x2 complex blocks (DESIGN.md): cusparse-bsr-complex2x2 (generic, row-major)
//                           and cusparse-bsrmv-complex2x2 (legacy C/Zbsrmv); their x and y are the
//                           complex-pair form (w, x, -y, z), mapped back before the check
// For quaternions the aos vector (w, x, y, z per element) is exactly the expanded real vector, so every
// other method reads the same x and writes the same y.
//
// op t and h (y = A^T x, A^H x; x has rows * V numbers): the forms a cuSPARSE user would pick:
//   <method>-explicit   every method above on the explicit transposed matrix (what csr2csc gives, with
//                       conjugated or transposed blocks for A^H), whose conversion time on the GPU
//                       (cusparseCsr2cscEx2, once) is reported as setup_us
//   cusparse-csr-alg1-implicit  CSR ALG1 with CUSPARSE_OPERATION_TRANSPOSE (real; complex op t) or
//                       CONJUGATE_TRANSPOSE (complex op h); for block types op h only, on the real
//                       expansion (its transpose is A^H; cuSPARSE has no product for A^T of those)
//   cusparse-sell-implicit  the same operations with SELL ALG1 on A's own sliced ELL (real and complex).
//                       cuSPARSE's SpMV documentation restricts BSR ALG1 to the non-transposed product but
//                       lists no such restriction for SELL ALG1; if this cuSPARSE declines, the row says
//                       "unsupported" with cuSPARSE's message.
//
// Slice size 32: one warp, the usual GPU choice (one row per lane reads a column-major slice in coalesced
// 128-byte lines; Ginkgo's default too). cuSPARSE's docs prescribe none (their sample's 2 fits its 4-row
// matrix), so 32 is what a user would pick.
constexpr int kSellSliceSize = 32;
struct BaselineOptions {
  Op op = Op::n;
  TimingOptions timing;
  int device = 0;
  bool time = true;                  // false: verify only (tests)
  std::vector<std::string> methods;  // run only these (names as above); empty: all that apply
  // > 0 (and time): each method is also timed as this many calls captured in one CUDA graph
  // (time_in_graph), so the host's launch cost is separated from the GPU's. Always warm (no flush).
  int graph_calls = 0;
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
  double setup_us = 0;       // explicit transposes: cusparseCsr2cscEx2 on the GPU, once per matrix
  // CUDA-graph timing (BaselineOptions::graph_calls > 0 on a method that is "ok"): "ok" with per-call
  // times, or "unavailable: <why>" (e.g. a call that cannot be captured); empty when not asked for.
  std::string graph_status;
  double graph_median_us = 0, graph_q1_us = 0, graph_q3_us = 0;
  std::vector<double> graph_samples_us;

  bool ok() const { return status == "ok"; }
};

// The method names run_cusparse_baselines would try for this entry type and operation, in order.
std::vector<std::string> cusparse_methods(const EntryType& entry, Op op = Op::n);

// Runs every applicable method (each verified against reference_spmv before it is timed) and returns one
// result per method; a failure of one method is recorded in its status and never stops the others.
// x: cols * V doubles (aos) for op n, rows * V for op t and h. Throws InvalidArgument for a wrong x size or an unknown method name and
// DeviceError when there is no usable GPU.
std::vector<BaselineResult> run_cusparse_baselines(const HostMatrix& a, Precision p,
                                                   const std::vector<double>& x,
                                                   const BaselineOptions& options = {});

// cuSPARSE's version as "12.6.3".
std::string cusparse_version_string();

}  // namespace jitsparse
