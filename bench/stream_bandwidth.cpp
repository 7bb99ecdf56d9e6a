#include "bench/stream_bandwidth.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "bench/nvrtc_kernel.hpp"
#include "core/error.hpp"
#include "core/yardstick.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {
namespace {

constexpr const char* kKernelName = "jitsparse_stream_read";
constexpr int kReadBlock = 256;

// Sum of n float4 (16-byte loads), one partial per block. Four independent loads per thread and
// iteration keep enough bytes in flight to saturate HBM; extern "C" so the name needs no lowering.
constexpr const char* kReadKernel = R"(
extern "C" __global__ void __launch_bounds__(256)
jitsparse_stream_read(const float4* __restrict__ a, unsigned long long n, float* __restrict__ partial) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 v0 = a[i];
    const float4 v1 = a[i + stride];
    const float4 v2 = a[i + 2 * stride];
    const float4 v3 = a[i + 3 * stride];
    s0 += (v0.x + v0.y) + (v0.z + v0.w);
    s1 += (v1.x + v1.y) + (v1.z + v1.w);
    s2 += (v2.x + v2.y) + (v2.z + v2.w);
    s3 += (v3.x + v3.y) + (v3.z + v3.w);
  }
  for (; i < n; i += stride) {
    const float4 v = a[i];
    s0 += (v.x + v.y) + (v.z + v.w);
  }
  float s = (s0 + s1) + (s2 + s3);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  __shared__ float warp_sums[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (int)((blockDim.x + 31) / 32) ? warp_sums[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) partial[blockIdx.x] = s;
  }
}
)";

std::string status_of(const std::exception& e) { return std::string("error: ") + e.what(); }

}  // namespace

const char* stream_read_kernel_source() { return kReadKernel; }

std::string compile_stream_read_kernel(const std::string& arch) {
  return compile_cubin(kReadKernel, "jitsparse_stream_read.cu", arch);
}

StreamBandwidthResult measure_stream_bandwidth(const StreamBandwidthOptions& options) {
  const DeviceInfo info = query_device(options.device);  // throws DeviceError without a GPU
  cuda_check(cudaSetDevice(options.device), "cudaSetDevice");
  StreamBandwidthResult res;
  res.device = info.key();
  res.copy_status = options.copy ? "" : "skipped";
  res.read_status = options.read ? "" : "skipped";
  if (!options.copy && !options.read) return res;

  // Room for source and destination (the copy needs both); leave a tenth of the free memory alone.
  size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const int arrays = options.copy ? 2 : 1;
  size_t bytes = options.bytes / 16 * 16;
  while (bytes > options.min_bytes &&
         static_cast<double>(bytes) * arrays > 0.9 * static_cast<double>(free_bytes))
    bytes = bytes / 2 / 16 * 16;
  if (bytes < 16 || static_cast<double>(bytes) * arrays > 0.9 * static_cast<double>(free_bytes))
    throw DeviceError("not enough free GPU memory for the bandwidth test (" +
                      std::to_string(free_bytes >> 20) + " MiB free)");
  res.bytes = bytes;

  CudaStream stream;
  DeviceBuffer src(bytes, "bandwidth source array");
  // Defined contents: the read kernel sums them, and a copy of uninitialized pages could be cheaper.
  cuda_check(cudaMemsetAsync(src.get(), 0, bytes, stream.get()), "cudaMemsetAsync (bandwidth source)");
  stream.synchronize("bandwidth source init");

  if (options.copy) {
    try {
      DeviceBuffer dst(bytes, "bandwidth destination array");
      cuda_check(cudaMemsetAsync(dst.get(), 0, bytes, stream.get()),
                 "cudaMemsetAsync (bandwidth destination)");
      cudaStream_t s = stream.get();
      void* d = dst.get();
      const void* sp = src.get();
      TimingResult t = time_on_stream(
          s,
          [=] {
            // Inside the timed loop: build cuda_check's message string only on failure.
            cudaError_t e = cudaMemcpyAsync(d, sp, bytes, cudaMemcpyDeviceToDevice, s);
            if (e != cudaSuccess) cuda_check(e, "cudaMemcpyAsync (device to device)");
          },
          options.timing);
      res.copy_median_us = t.median_us;
      res.copy_samples_us = std::move(t.samples_us);
      res.copy_gbps = effective_gbps(2.0 * static_cast<double>(bytes), t.median_us);  // read + write
      res.copy_status = "ok";
    } catch (const std::exception& e) {
      res.copy_status = status_of(e);
    }
  }

  if (options.read) {
    try {
      const LoadedKernel read_kernel(compile_stream_read_kernel(info.arch()), kKernelName);
      const void* kernel = read_kernel.function();

      const int per_sm = info.max_threads_per_sm > 0 ? std::max(1, info.max_threads_per_sm / kReadBlock) : 4;
      const int grid = std::max(1, info.sm_count) * per_sm;
      DeviceBuffer partial(static_cast<size_t>(grid) * sizeof(float), "read kernel partial sums");
      res.read_grid = grid;
      res.read_block = kReadBlock;

      const float4* a = src.as<const float4>();
      unsigned long long n = bytes / 16;
      float* out = partial.as<float>();
      cudaStream_t s = stream.get();
      TimingResult t = time_on_stream(
          s,
          [=]() mutable {
            void* args[] = {&a, &n, &out};
            // Inside the timed loop: build cuda_check's message string only on failure.
            cudaError_t e = cudaLaunchKernel(kernel, dim3(grid), dim3(kReadBlock), args, 0, s);
            if (e != cudaSuccess) cuda_check(e, "cudaLaunchKernel (jitsparse_stream_read)");
          },
          options.timing);
      res.read_median_us = t.median_us;
      res.read_samples_us = std::move(t.samples_us);
      res.read_gbps = effective_gbps(static_cast<double>(bytes), t.median_us);
      res.read_status = "ok";
    } catch (const std::exception& e) {
      res.read_status = status_of(e);
    }
  }
  return res;
}

}  // namespace jitsparse
