#pragma once
// What a search measures and how (jitsparse tune's options): the Tuner's, stage_variants' and quick
// tuning's input.
#include <cstdint>
#include <string>
#include <vector>

#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/gpu_timer.hpp"
#include "selection/quick_plan.hpp"

namespace jitsparse {

struct TuneOptions {
  std::string mode = "joint";  // "joint": layouts and schedules; "schedule": schedules on csr-aos-aos only
  std::vector<Precision> precisions = {Precision::f32, Precision::f64};
  double budget_seconds = 0;           // 0: no limit; else stop cleanly with the best found so far
  bool remeasure = false;              // ignore measurements already in the database
  int64_t memory_cap_bytes = 0;        // a layout packing larger than this is skipped; 0: a quarter of GPU memory
  std::vector<int> threads_per_row = {1, 2, 4, 8, 16, 32};
  std::vector<int> entries_per_thread = {2, 4, 8};  // hola schedules of stage one
  // HiSparse layouts of stage one (each is a tree to build on the host). The first is timed in several
  // setups, the others in its fastest. d 64 first: in the same setups it was 1.1-2.2x faster than d 32 on
  // the large set and held the fastest setup on the small set (H100, 2026-11-25); d 256 leaves too few
  // strips for every SM on the small matrices. Then d 256, which the large real grids ran 1.2-2.5x faster
  // than d 64 and complex ones 1.0-1.04x, where d 32 was never the fastest (1.15-1.5x slower than d 64;
  // H100, thirty-second session); d 64 with COO4 leaves; last, d 64 with CSR leaves (the smallest pool;
  // 3x3 blocks ran it 0.53-0.80x the time of COO leaves, real and complex grids 1.1-1.4x: H100,
  // thirty-first session).
  std::vector<std::string> hisparse_layouts = {"hisparse64c2-aos-aos", "hisparse256c2-aos-aos", "hisparse64c4-aos-aos",
                                               "hisparse64c2r-aos-aos"};
  Op op = Op::n;                       // the product tuned: A x, A^T x or A^H x (a record per op)
  bool deterministic = false;          // only variants whose result bits never change (no float atomics)
  int top_layouts = 2;                 // (layout, threads per row) pairs whose n_t x n_b grid is measured (coarse, refined)
  // Quick timing while searching, and in quick tuning's rounds. Samples of 0.1 ms there halved quick
  // tuning's GPU time on the H100 but ranked worse (NOTES.md, eleventh session).
  TimingOptions search_timing{1, 3, 0.3, 100000};
  // A matrix whose compulsory bytes fit in the L2 is timed in CUDA graphs of graph_calls launches
  // (MatrixRecord::timing "graph"): its kernels run shorter than the host takes to launch one, so launches
  // back to back time the host's launch rate, not the kernel. On the H100 (2026-11-25: 40 variants of four
  // 1-2 us matrices, timed three times) back-to-back times ranked the variants alike from one run to the
  // next with a rank correlation of -0.1 to 0.64 and the best of one run was up to 1.67x the best of
  // another; in graphs 0.99-1.00 and at most 1.003x. False: every matrix on the stream.
  bool graph_timing = true;
  int graph_calls = 64;
  // Each graph about as long as a sample (time_in_graph's graph_ms): a kernel of 10-40 us (matrices of
  // 20-50 MB, in the L2) runs in graphs of 8-30 calls, not 64. False: always graph_calls.
  bool graph_fits_sample = true;
  TimingOptions final_timing{3, 9, 3.0, 100000};   // the reported numbers of the winners
  // Quick tuning's finalists: 9 samples of 0.3 ms, a tenth of final_timing's GPU time; a quick tune is
  // meant to cost milliseconds.
  TimingOptions quick_final_timing{1, 9, 0.3, 100000};
  double quick_warmup_ms = kQuickWarmupMs;  // untimed launches before quick tuning re-times its finalists
  // A matrix whose compulsory bytes exceed the L2: the finalists (kColdCandidates fastest warm, and the
  // three fastest csr-aos-aos and deterministic ones) are also timed with the L2 flushed before each
  // launch (cold_timing, one launch per sample) and the winners are chosen on that.
  bool cold_finalists = true;
  TimingOptions cold_timing{1, 15, 0, 1};
  double variant_time_limit_ms = 500;  // a single launch slower than this is recorded as "timeout"
  bool progress = true;                // progress line with ETA on stderr (when it is a terminal)
  bool verbose = false;                // a line per matrix even without a terminal
  // Quick tuning: a matrix the database does not hold gets only the selection model's candidates measured
  // in rounds (selection/quick_plan.hpp; quick_k: the groups or layout pairs of round one, 0: the
  // plan's default), recorded as search "quick".
  bool quick = false;
  int quick_k = 0;
  QuickPlanKind quick_plan = QuickPlanKind::groups;
};

}  // namespace jitsparse
