// The row kernel family: y = alpha * op(A) x + beta * y for any entry type E (generated from its JSON
// definition), outer layout (csr, ell, sell), inner layout, vector layout and schedule.
//   spmv:         gathers one row of the stored matrix per group of TPR threads (a sub-warp, each taking
//                 every TPR-th element, reduced with shuffles). A x, and A^T x / A^H x on a transposed
//                 copy (Mac picks the entry product).
//   spmv_scatter: A^T x / A^H x on the matrix itself: each stored entry a_ij adds op(a_ij) x_i into y_j by
//                 atomics, after scale_y has set y = beta * y.
// L is the load policy of the matrix arrays (load.cuh: LoadStreaming or LoadCached), U the iterations of
// a row's loop unrolled (loads in flight per thread).
#pragma once
#include "jitsparse/grid_dependency.cuh"
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"
#include "jitsparse/schedules.cuh"

namespace jitsparse {

// How both row kernels split a block: groups of TPR threads, one stored row per group and chunk.
template <int NT, int TPR>
struct RowGroups {
  static_assert(NT % 32 == 0, "threads per block must be a multiple of the warp size");
  static_assert(TPR >= 1 && TPR <= 32 && (32 % TPR) == 0, "threads per row must divide 32");
  static constexpr int kRowsPerChunk = NT / TPR;
  __device__ __forceinline__ static int group() { return threadIdx.x / TPR; }
  __device__ __forceinline__ static int lane() { return threadIdx.x % TPR; }
  __device__ __forceinline__ static int chunks(int rows) { return (rows + kRowsPerChunk - 1) / kRowsPerChunk; }
};

template <class T, class E, class Outer, class Inner, class Vec, class Sched, class Mac, class L, int NT, int NB, int TPR, int U>
struct SpmvKernel : RowGroups<NT, TPR> {
  using G = RowGroups<NT, TPR>;

  // ELL (kLoadsAhead): a row's first U elements per thread sit at fixed positions inside the padded array,
  // so their columns and entries are loaded before the row's length has arrived, which takes one memory
  // round trip out of the chain row_len -> column -> x (it counts where the L2 is cold and the matrix
  // small: a few round trips are then a tenth of the kernel). Elements past the length (padding: column 0
  // or the row, entry 0 or NaN) are never used. At most U elements, as many as a quarter of the registers
  // the launch bounds leave a thread holds, and none where that is fewer than two (ptxas spilled then:
  // block3 and f64 complex at 32-42 registers) or where U > 2 with TPR > 1 (those ran 5-9% slower with it;
  // the others 1.6% faster on the geometric mean, up to 10%: H100, 57 ELL variant x matrix cases cold,
  // 2026-11-25). Returns the first element the row loop still has to do.
  // Ell::position and Ell::length repeat Ell::row on purpose: taking begin, stride and the length from
  // one Outer::row call first (the length's load then issued before the loads ahead) ran 1.7% slower on
  // 21 of these cases (0.93-1.02x, H100, sixteenth session).
  static constexpr int kRegisters = 65536 / (NT * NB) < 255 ? 65536 / (NT * NB) : 255;
  static constexpr int kElementRegisters = E::C * static_cast<int>(sizeof(T) / 4) + 1;
  static constexpr int kAheadFit = kRegisters / 4 / kElementRegisters;
  static constexpr int kAhead = kAheadFit > U ? U : kAheadFit;
  static constexpr bool kLoadsAhead = Outer::kLoadsAhead && kAheadFit >= 2 && (U <= 2 || TPR == 1);

  __device__ __forceinline__ int mac_ahead(const SpmvParams<T>& p, int row, int lane, typename E::Vector& acc) const {
    const int base = Outer::column_base(p, row);
    int col[kAhead];
    typename E::Matrix a[kAhead];
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      const int k = lane + i * TPR;
      if (k < p.ell_width) {
        const int pos = Outer::position(p, row, k);
        col[i] = Outer::template column<L>(p, pos, base);
        Inner::template load<E, L>(p, pos, a[i]);
      }
    }
    const int len = Outer::template length<L>(p, row);
#pragma unroll
    for (int i = 0; i < kAhead; ++i) {
      if (lane + i * TPR < len) {
        typename E::Vector xv;
        Vec::template load_x<E>(p, col[i], xv);
        Mac::template mac<E>(acc, a[i], xv);
      }
    }
    return lane + kAhead * TPR;
  }

  __device__ __forceinline__ void operator()(const SpmvParams<T>& p) const {
    const int group = G::group(), lane = G::lane();
    Sched::run(p.counters, G::chunks(p.rows), [&](int chunk) {
      const int row = chunk * G::kRowsPerChunk + group;
      typename E::Vector acc;
      E::zero(acc);
      // A sorted sell's y element takes one or two dependent loads (row_perm, then a renumbered product's
      // y_map). Asked for before the row's loads, their round trips overlap the row's instead of
      // following them: sorted sell variants ran 1.02-1.035x faster, renumbered or not (H100, twenty-fourth
      // session). Only there: asked for early in every layout, the other layouts gained nothing and ptxas
      // spilled more in some compound f64 kernels at 32 registers.
      int element = -1;  // of y; -1: past the last row
      if (Outer::kRowPermuted && row < p.rows) element = y_element(p, Outer::matrix_row(p, row));
      if (row < p.rows) {
        int first = lane;  // the loop below starts after what was loaded ahead
        if constexpr (kLoadsAhead) first = mac_ahead(p, row, lane, acc);
        int begin, len, stride;
        Outer::template row<L>(p, row, begin, len, stride);
        const int base = Outer::column_base(p, row);
#pragma unroll U
        for (int k = first; k < len; k += TPR) {
          const int pos = begin + k * stride;
          const int col = Outer::template column<L>(p, pos, base);
          typename E::Matrix a;
          Inner::template load<E, L>(p, pos, a);
          typename E::Vector xv;
          Vec::template load_x<E>(p, col, xv);
          Mac::template mac<E>(acc, a, xv);
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
      if constexpr (Outer::kRowPermuted) {
        if (lane == 0 && element >= 0) Vec::template store_y_element<E>(p, element, out);
      } else {
        if (lane == 0 && row < p.rows) Vec::template store_y<E>(p, Outer::matrix_row(p, row), out);
      }
    });
  }
};

template <class T, class E, class Outer, class Inner, class Vec, class Sched, class Mac, class L, int NT, int TPR, int U>
struct SpmvScatterKernel : RowGroups<NT, TPR> {
  using G = RowGroups<NT, TPR>;

  __device__ __forceinline__ void operator()(const SpmvParams<T>& p) const {
    const int group = G::group(), lane = G::lane();
    Sched::run(p.counters, G::chunks(p.rows), [&](int chunk) {
      const int row = chunk * G::kRowsPerChunk + group;
      if (row >= p.rows) return;
      int begin, len, stride;
      Outer::template row<L>(p, row, begin, len, stride);
      if (len <= lane) return;
      typename E::Vector xv;  // x is indexed by the matrix row: one load per row
      Vec::template load_x<E>(p, Outer::matrix_row(p, row), xv);
      const int base = Outer::column_base(p, row);
      wait_for_prologue();  // scale_y has set y = beta * y (the loads above are already out)
#pragma unroll U
      for (int k = lane; k < len; k += TPR) {
        const int pos = begin + k * stride;
        const int col = Outer::template column<L>(p, pos, base);
        typename E::Matrix a;
        Inner::template load<E, L>(p, pos, a);
        typename E::Vector acc;
        E::zero(acc);
        Mac::template mac<E>(acc, a, xv);
        T out[E::V];
        E::get(acc, out);
        Vec::template add_y_atomic<E>(p, col, out);
      }
    });
  }
};

template <class T, class E, class Outer, class Inner, class Vec, class Sched, class Mac, class L, int NT, int NB, int TPR, int U>
__global__ void __launch_bounds__(NT, NB) spmv(const __grid_constant__ SpmvParams<T> p) {
  SpmvKernel<T, E, Outer, Inner, Vec, Sched, Mac, L, NT, NB, TPR, U>()(p);
}

template <class T, class E, class Outer, class Inner, class Vec, class Sched, class Mac, class L, int NT, int NB, int TPR, int U>
__global__ void __launch_bounds__(NT, NB) spmv_scatter(const __grid_constant__ SpmvParams<T> p) {
  SpmvScatterKernel<T, E, Outer, Inner, Vec, Sched, Mac, L, NT, TPR, U>()(p);
}

// y = beta * y over the p.cols elements of y, before spmv_scatter adds into it (256 threads per block).
template <class T, class E, class Vec>
__global__ void __launch_bounds__(256) scale_y(const __grid_constant__ SpmvParams<T> p) {
  let_main_kernel_launch();
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < p.cols; j += gridDim.x * blockDim.x)
    Vec::template scale_y<E>(p, j);
}

}  // namespace jitsparse
