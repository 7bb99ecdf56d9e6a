#pragma once
#include <string>

#include "generator/search_space.hpp"

namespace jitsparse {

// What the tuner and the launcher need to know of a GPU.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;        // compute capability
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  long long global_memory = 0;     // bytes
  long long l2_bytes = 0;
  int driver_version = 0;          // CUDA driver API version, e.g. 13000
  int runtime_version = 0;
  std::string arch() const { return "sm_" + std::to_string(major) + std::to_string(minor); }
  // "NVIDIA H100 80GB HBM3/sm_90/132sm": the key of this GPU's tuning records.
  std::string key() const;
};

// A GPU described, not queried (selection and evaluation offline, the CPU tests): the thread and block
// limits of ScheduleLimits' defaults (those of the H100, where the databases were tuned), no SMs, the
// given L2 size.
DeviceInfo described_device(long long l2_bytes = 0);

// The limits the generator builds schedules within, from this GPU.
ScheduleLimits schedule_limits(const DeviceInfo& d);

// Number of usable GPUs; 0 when there is no GPU or no driver (why says which).
int device_count(std::string* why = nullptr);
// Throws DeviceError (no GPU, bad ordinal) with a clear message.
DeviceInfo query_device(int ordinal = 0);

}  // namespace jitsparse
