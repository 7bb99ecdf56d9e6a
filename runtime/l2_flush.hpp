#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "runtime/context.hpp"
#include "runtime/device_buffer.hpp"

namespace jitsparse {

// A buffer of `factor` times the GPU's L2 and a kernel that reads it: run before each timed launch (one
// launch per event pair) so no launch finds the previous one's data in L2. DESIGN.md (Measuring): a share
// of bandwidth counts only so measured, or on matrices at least 4x the L2.
class L2Flush {
 public:
  explicit L2Flush(Context& ctx, double factor = 2.0);
  // Enqueues the read on `stream` (any stream of this device).
  void operator()(cudaStream_t stream) const;
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = 0;
  DeviceBuffer buffer_, sink_;
  cudaKernel_t kernel_ = nullptr;
  unsigned grid_ = 1;
};

}  // namespace jitsparse
