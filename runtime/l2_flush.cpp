#include "runtime/l2_flush.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "generator/source_gen.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {

L2Flush::L2Flush(Context& ctx, double factor) {
  const DeviceInfo& d = ctx.device();
  if (d.l2_bytes <= 0) throw DeviceError("the GPU reports no L2 size: cannot size the L2 flush buffer");
  bytes_ = (static_cast<int64_t>(factor * static_cast<double>(d.l2_bytes)) + 15) / 16 * 16;
  buffer_ = DeviceBuffer(static_cast<size_t>(bytes_), "L2 flush buffer");
  sink_ = DeviceBuffer(sizeof(float), "L2 flush sink");
  cuda_check(cudaMemsetAsync(buffer_.get(), 0, static_cast<size_t>(bytes_), ctx.stream()), "cudaMemsetAsync (L2 flush buffer)");
  ctx.synchronize();
  kernel_ = ctx.kernel(single_kernel_source("l2_flush.cuh", "jitsparse::l2_flush", "l2_flush"));
  grid_ = static_cast<unsigned>(std::max(1, d.sm_count) * std::max(1, d.max_threads_per_sm / 256));
}

void L2Flush::operator()(cudaStream_t stream) const {
  const float4* buffer = buffer_.as<const float4>();
  long long n = bytes_ / 16;
  float* sink = sink_.as<float>();
  void* args[] = {&buffer, &n, &sink};
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(grid_), dim3(256), args, 0, stream);
  if (e != cudaSuccess) cuda_check(e, "launch the L2 flush");
}

}  // namespace jitsparse
