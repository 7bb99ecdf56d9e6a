#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gpu_timer.hpp"

namespace jitsparse {

// The GPU's streaming bandwidth, the ceiling against which effective SpMV bandwidth is judged
// (DESIGN.md "Measuring"): a large device-to-device copy and a read-only kernel.
struct StreamBandwidthOptions {
  int device = 0;
  size_t bytes = size_t(4) << 30;       // size of the copied (and read) array; halved while memory is short
  size_t min_bytes = size_t(64) << 20;  // give up below this rather than measure the L2 cache
  TimingOptions timing;
  bool copy = true;  // (a) cudaMemcpyAsync device to device
  bool read = true;  // (b) NVRTC-compiled read-only sum kernel
};

struct StreamBandwidthResult {
  std::string device;  // DeviceInfo::key()
  size_t bytes = 0;    // array size actually used

  std::string copy_status;  // "ok", "error: ...", "skipped"
  double copy_gbps = 0;     // (bytes read + bytes written) / median time
  double copy_median_us = 0;
  std::vector<double> copy_samples_us;

  std::string read_status;
  double read_gbps = 0;  // bytes read / median time
  double read_median_us = 0;
  std::vector<double> read_samples_us;
  int read_grid = 0, read_block = 0;  // launch shape of the read kernel
};

// Throws DeviceError when there is no usable GPU; a failure of one measurement is recorded in its
// status and does not stop the other.
StreamBandwidthResult measure_stream_bandwidth(const StreamBandwidthOptions& options = {});

// The read kernel's CUDA source (exposed so a CPU test can compile it with NVRTC without a GPU).
const char* stream_read_kernel_source();
// Compile stream_read_kernel_source() to a cubin for `arch` ("sm_90"); throws CompileError with the log.
std::string compile_stream_read_kernel(const std::string& arch);

}  // namespace jitsparse
