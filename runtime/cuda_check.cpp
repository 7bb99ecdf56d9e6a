#include "runtime/cuda_check.hpp"

#include "core/error.hpp"

namespace jitsparse {

void cuda_check(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  std::string msg = what + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess)
      msg += " (GPU memory: " + std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total >> 20) +
             " MiB)";
  }
  throw DeviceError(msg);
}

}  // namespace jitsparse
