#pragma once
#include <string>
#include <vector>

#include "runtime/gpu_timer.hpp"

namespace jitsparse {

// The launch floor (DESIGN.md, Measuring): a kernel that does nothing, one block of one warp, timed
// exactly like the methods of `jitsparse bench`: single launches with the bench's timing options
// (back-to-back when warm, one per event pair after the flush when cold) and calls_per_graph launches in a
// CUDA graph (time_in_graph). No SpMV can be faster than its floor; a small matrix near it is launch-bound.
struct EmptyKernelFloor {
  std::string status;  // "ok", or "error: <why>" (then nothing below is set)
  double single_us = 0, single_q1_us = 0, single_q3_us = 0;
  std::vector<double> single_samples_us;
  std::string graph_status;  // "ok" or "unavailable: <why>"
  double graph_us = 0, graph_q1_us = 0, graph_q3_us = 0;  // per launch
  std::vector<double> graph_samples_us;
  int calls_per_graph = 0;
};

// Never throws for a failed measurement (it is recorded in status); throws InvalidArgument for
// calls_per_graph < 1.
EmptyKernelFloor measure_empty_kernel_floor(int device, const TimingOptions& timing, int calls_per_graph);

// The kernel's source and its NVRTC compile (exposed so a CPU test can compile it without a GPU).
const char* empty_kernel_source();
std::string compile_empty_kernel(const std::string& arch);

}  // namespace jitsparse
