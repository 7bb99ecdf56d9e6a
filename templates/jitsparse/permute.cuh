// Moving vectors between a matrix's numbering and a renumbered one (Variant::ordering): the products of
// a renumbered variant run on P A P^T, with x moved in before and the result moved back after.
//   dst[i] = alpha * src[from[i]] (+ beta * dst[i] when beta != 0; dst is not read otherwise, so a NaN
//   there does not leak, as in the SpMV kernels)
// for n elements of V components: aos (element i at i*V) or soa (component c at c*stride + i). One thread
// per element: the writes are coalesced, the reads gather through `from`.
#pragma once

namespace jitsparse {

template <class T, int V, bool Soa>
__global__ void __launch_bounds__(256) permute_vector(const T* __restrict__ src, T* __restrict__ dst,
                                                      const int* __restrict__ from, int n, long long stride,
                                                      T alpha, T beta) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;  // i + step may pass 2^31
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const long long j = __ldg(from + i);
#pragma unroll
    for (int c = 0; c < V; ++c) {
      const long long s = Soa ? c * stride + j : j * V + c;
      const long long d = Soa ? c * stride + i : i * V + c;
      const T v = alpha * src[s];
      dst[d] = beta != T(0) ? v + beta * dst[d] : v;
    }
  }
}

}  // namespace jitsparse
