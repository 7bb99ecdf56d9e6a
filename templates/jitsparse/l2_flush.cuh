// Evicts the L2 cache between timed launches (`jitsparse bench --l2 cold`): every block reads its share of
// a buffer twice the L2's size with ordinary cached loads, so what a timed kernel left in L2 is replaced.
// The sum is written only if it equals a value the buffer (zeros) never sums to, so the loads are kept.
#pragma once

namespace jitsparse {

__global__ void l2_flush(const float4* buffer, long long n, float* sink) {
  float s = 0.f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 v = buffer[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.f) *sink = s;
}

}  // namespace jitsparse
