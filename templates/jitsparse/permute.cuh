// Moving vectors between a renumbered matrix's numbering and the caller's (Variant::ordering): the products
// of a renumbered variant run on P A P^T with x moved in first; they write their result into the caller's
// y themselves (SpmvParams::y_map), or into a scratch y in their own numbering that this kernel then
// gathers back (RenumberedY::moved, beta applied here: the product ran with beta = 0).
//   dst[i] = src[from[i]]                  (beta == 0: dst is never read, it may hold NaN)
//   dst[i] = src[from[i]] + beta * dst[i]
// for n elements of V components: aos (element i at i*V) or soa (component c at c*stride + i). One thread
// per element: the writes are coalesced, the reads gather through `from`.
#pragma once

namespace jitsparse {

template <class T, int V, bool Soa>
__global__ void __launch_bounds__(256) permute_vector(const T* __restrict__ src, T* __restrict__ dst,
                                                      const int* __restrict__ from, int n, long long stride,
                                                      T beta) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;  // i + step may pass 2^31
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const long long j = __ldg(from + i);
#pragma unroll
    for (int c = 0; c < V; ++c) {
      T* d = dst + (Soa ? c * stride + i : i * V + c);
      const T moved = src[Soa ? c * stride + j : j * V + c];
      *d = beta == T(0) ? moved : moved + beta * *d;
    }
  }
}

}  // namespace jitsparse
