#include "runtime/device_info.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include "core/error.hpp"

namespace jitsparse {

std::string DeviceInfo::key() const { return name + "/" + arch() + "/" + std::to_string(sm_count) + "sm"; }

DeviceInfo described_device(long long l2_bytes) {
  const ScheduleLimits l;
  DeviceInfo d;
  d.warp_size = l.warp_size;
  d.max_threads_per_block = l.max_threads_per_block;
  d.max_threads_per_sm = l.max_threads_per_sm;
  d.max_blocks_per_sm = l.max_blocks_per_sm;
  d.l2_bytes = l2_bytes;
  return d;
}

ScheduleLimits schedule_limits(const DeviceInfo& d) {
  ScheduleLimits l;
  l.warp_size = d.warp_size;
  l.max_threads_per_block = d.max_threads_per_block;
  l.max_threads_per_sm = d.max_threads_per_sm;
  l.max_blocks_per_sm = d.max_blocks_per_sm;
  return l;
}

int device_count(std::string* why) {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    if (why) {
      // The static runtime reports a missing driver as "insufficient driver": say what it really is.
      void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
      if (!driver) driver = dlopen("libcuda.so.1", RTLD_LAZY);
      if (!driver)
        *why = "no GPU: no NVIDIA driver on this machine (libcuda.so.1 not found)";
      else
        *why = std::string("no GPU: ") + cudaGetErrorString(err);
      if (driver) dlclose(driver);
    }
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  if (n == 0 && why) *why = "no GPU: the driver reports no CUDA device";
  return n;
}

DeviceInfo query_device(int ordinal) {
  std::string why;
  int n = device_count(&why);
  if (n == 0) throw DeviceError(why);
  if (ordinal < 0 || ordinal >= n)
    throw DeviceError("GPU " + std::to_string(ordinal) + " does not exist (" + std::to_string(n) + " found)");
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess)
    throw DeviceError("cannot read the properties of GPU " + std::to_string(ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.global_memory = static_cast<long long>(p.totalGlobalMem);
  d.l2_bytes = p.l2CacheSize;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

}  // namespace jitsparse
