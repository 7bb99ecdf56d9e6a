// Loads of N contiguous scalars with the widest aligned vector load (16 bytes at most). The caller
// guarantees the address is aligned to the N*sizeof(T) chunk width (entries start at multiples of N).
#pragma once

namespace jitsparse {

template <class T, int W>
struct VectorOf;
template <> struct VectorOf<float, 1> { using type = float; };
template <> struct VectorOf<float, 2> { using type = float2; };
template <> struct VectorOf<float, 4> { using type = float4; };
template <> struct VectorOf<double, 1> { using type = double; };
template <> struct VectorOf<double, 2> { using type = double2; };

// Widest W (in scalars) with W*sizeof(T) <= 16 that divides N.
template <class T, int N>
struct LoadWidth {
  static constexpr int max_w = 16 / sizeof(T);
  static constexpr int value = (N % max_w == 0) ? max_w : (N % 2 == 0 && max_w >= 2) ? 2 : 1;
};

template <int N>
__device__ __forceinline__ void unpack_vector(float v, float (&out)[N], int at) { out[at] = v; }
template <int N>
__device__ __forceinline__ void unpack_vector(double v, double (&out)[N], int at) { out[at] = v; }
template <int N>
__device__ __forceinline__ void unpack_vector(const float2& v, float (&out)[N], int at) {
  out[at] = v.x; out[at + 1] = v.y;
}
template <int N>
__device__ __forceinline__ void unpack_vector(const float4& v, float (&out)[N], int at) {
  out[at] = v.x; out[at + 1] = v.y; out[at + 2] = v.z; out[at + 3] = v.w;
}
template <int N>
__device__ __forceinline__ void unpack_vector(const double2& v, double (&out)[N], int at) {
  out[at] = v.x; out[at + 1] = v.y;
}

// Matrix data is read once per product, so it is loaded evict-first (ld.global.cs), leaving the caches
// to x. Measured on an H100: 6-19% faster than the read-only path (__ldg) on matrices 2-5x the L2.
// JITSPARSE_CACHED_MATRIX (an NVRTC option, see JITSPARSE_NVRTC_FLAGS) restores the read-only path.
template <class V>
__device__ __forceinline__ V load_matrix(const V* p) {
#ifdef JITSPARSE_CACHED_MATRIX
  return __ldg(p);
#else
  return __ldcs(p);
#endif
}

// Load policies of matrix data, a template argument of the row kernels (the tuner measures both):
// evict-first for a matrix streamed once per product, the read-only path for one that stays in L2.
struct LoadStreaming {
  template <class V>
  __device__ __forceinline__ static V load(const V* p) { return load_matrix(p); }
};
struct LoadCached {
  template <class V>
  __device__ __forceinline__ static V load(const V* p) { return __ldg(p); }
};
// The read-only path, for vectors.
struct LoadVector {
  template <class V>
  __device__ __forceinline__ static V load(const V* p) { return __ldg(p); }
};

// Load of N scalars at p through policy L (LoadVector for x, a matrix policy for matrix data).
template <class T, int N, class L>
__device__ __forceinline__ void load_contiguous(const T* __restrict__ p, T (&out)[N]) {
  constexpr int W = LoadWidth<T, N>::value;
  using V = typename VectorOf<T, W>::type;
  const V* vp = reinterpret_cast<const V*>(p);
#pragma unroll
  for (int i = 0; i < N / W; ++i) unpack_vector<N>(L::load(vp + i), out, i * W);
}

}  // namespace jitsparse
