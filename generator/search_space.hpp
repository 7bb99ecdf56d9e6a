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

// Size of the full search space for one entry type and precision and op n on a GPU.
size_t full_space_size(const ScheduleLimits& l);

}  // namespace jitsparse
