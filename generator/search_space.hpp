#pragma once
#include <string>
#include <vector>

#include "generator/variant.hpp"

namespace jitsparse {

// Limits the schedule space is built from: a plain value, so the generator needs no GPU. The runtime
// fills it from the device (schedule_limits in runtime/device_info.hpp); the defaults are the H100's.
struct ScheduleLimits {
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
};

// n_t from {w*2^i, 3w*2^i}, n_b from {2^i, 3*2^i}, inside the limits; tpr from {1,2,...,32}.
std::vector<int> thread_counts(const ScheduleLimits& l);
std::vector<int> block_counts(const ScheduleLimits& l);
std::vector<Schedule> all_schedules(const ScheduleLimits& l, const std::vector<int>& threads_per_row = {1, 2, 4, 8, 16, 32});

// One variant per entry x precision x layout x schedule kind (hola layouts: hola-128x16-ept2), with the
// given threads/blocks/tpr; for op t and h in both transpose kinds: the structural
// variants (they differ in generated code beyond template numbers).
std::vector<Variant> structural_variants(const std::vector<std::string>& entries, const Schedule& base = {},
                                         Op op = Op::n);
// A hola schedule of n_t threads and ept entries per thread, n_b half an SM's threads over n_t; and every
// one: n_t x entries per thread {1..32} (shared memory not checked here).
Schedule hola_schedule(const ScheduleLimits& l, int threads, int ept);
std::vector<Schedule> hola_schedules(const ScheduleLimits& l);

// Stage one's row schedule: static, 256 threads, as many blocks as the SM holds, or half as many for an
// entry whose vector element is 32 bytes or more (quaternion f64, dual quaternions). At 2048 threads
// __launch_bounds__ leaves 32 registers per thread, and such a row's sum, x element and matrix entry do
// not fit: ptxas (CUDA 13.0) spilled 96-208 bytes in every quaternion f64 kernel sampled (block3 f64 0-56,
// complex f64 0-48, quaternion f32 0-56, most none). Measured on the H100 main set (twenty-seventh
// session, op n, the tuner timing both forms of every spilling stage-one kernel: Tuner::register_twins),
// the spilled quaternion f64 kernel was slower than its 1024-thread twin in all 316 pairs, so those start
// at 1024 threads (their spilled forms were 5% of a tune's compiles, and a wait for the twins). Block3 f64
// keeps both forms: its spilled kernel lost in 210 of 214 pairs, but one of the 4 it won was the pair of
// elasticity_small f64's winner, which started at 1024 threads ran 1.10x slower cold (twenty-eighth
// session, call G: 9.50 against 8.51 us); complex f64 and quaternion f32 won spilled in 29% and 16%.
// The schedule grid still tries 2048 threads for the best pairs.
int stage_one_blocks_per_sm(const ScheduleLimits& l, int vector_components, Precision p);
Schedule stage_one_row_schedule(const ScheduleLimits& l, int vector_components, Precision p, int threads_per_row);

// Size of the full search space for one entry type and precision and op n on a GPU.
size_t full_space_size(const ScheduleLimits& l);

}  // namespace jitsparse
