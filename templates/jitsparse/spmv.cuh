// The SpMV kernel family: y = alpha * A x + beta * y for any entry type E (generated from its JSON
// definition), outer layout, inner layout, vector layout and schedule. TPR threads share a row (a
// sub-warp), each taking every TPR-th element, then reduce with shuffles.
#pragma once
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"
#include "jitsparse/schedules.cuh"

namespace jitsparse {

template <class T, class E, class Outer, class Inner, class Vec, class Sched, int NT, int TPR>
struct SpmvKernel {
  static_assert(NT % 32 == 0, "threads per block must be a multiple of the warp size");
  static_assert(TPR >= 1 && TPR <= 32 && (32 % TPR) == 0, "threads per row must divide 32");
  static constexpr int kRowsPerChunk = NT / TPR;

  __device__ __forceinline__ void operator()(const SpmvParams<T>& p) const {
    const int group = threadIdx.x / TPR;
    const int lane = threadIdx.x % TPR;
    const int num_chunks = (p.rows + kRowsPerChunk - 1) / kRowsPerChunk;
    Sched::run(p.counters, num_chunks, [&](int chunk) {
      const int row = chunk * kRowsPerChunk + group;
      typename E::Vector acc;
      E::zero(acc);
      if (row < p.rows) {
        int begin, len, stride;
        Outer::row(p, row, begin, len, stride);
#pragma unroll 2
        for (int k = lane; k < len; k += TPR) {
          const int pos = begin + k * stride;
          const int col = load_matrix(p.col_idx + pos);
          typename E::Matrix a;
          Inner::template load<E>(p, pos, a);
          typename E::Vector xv;
          Vec::template load_x<E>(p, col, xv);
          E::mac(acc, a, xv);
        }
      }
      T out[E::V];
      E::get(acc, out);
      if (TPR > 1) {
#pragma unroll
        for (int i = 0; i < E::V; ++i)
#pragma unroll
          for (int offset = TPR / 2; offset > 0; offset /= 2)
            out[i] += __shfl_down_sync(0xffffffffu, out[i], offset, TPR);
      }
      if (lane == 0 && row < p.rows) Vec::template store_y<E>(p, row, out);
    });
  }
};

template <class T, class E, class Outer, class Inner, class Vec, class Sched, int NT, int NB, int TPR>
__global__ void __launch_bounds__(NT, NB) spmv(const __grid_constant__ SpmvParams<T> p) {
  SpmvKernel<T, E, Outer, Inner, Vec, Sched, NT, TPR>()(p);
}

}  // namespace jitsparse
