#pragma once
#include <string>

#include <cuda_runtime.h>

namespace jitsparse {

// Throws DeviceError "<what>: <CUDA's message>" unless e is cudaSuccess; an out-of-memory error also
// gets the device's free and total memory.
void cuda_check(cudaError_t e, const std::string& what);

}  // namespace jitsparse
