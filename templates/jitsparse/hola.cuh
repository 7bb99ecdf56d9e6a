// Hola-style CSR (after Steinberger, Zayer, Seidel, ICS'17): no preprocessing of the matrix. Each block
// takes a fixed share of the entries (NT x EPT, global balance) and each thread EPT consecutive ones
// (local balance), whatever the rows look like.
//   hola_prepare: one thread per row. Writes the row of each block's first entry (the only per-launch
//                 setup), and sets y = beta * y for the rows that no block completes: empty rows and
//                 rows that cross a block boundary (their sums are added in later). With ScaleCols it
//                 scales the p.cols elements of y instead (op t/h by atomics).
//   hola_spmv:    A x (and op t/h on a transposed copy). The block's entry products are formed with
//                 coalesced loads into shared memory; each thread then sums its EPT products row by row.
//                 A row inside one thread is stored directly; a row shared by threads is summed in a
//                 shared slot (the thread where it starts, or NT for the row entering the block) by
//                 shared atomics, then written to y once: stored if it ends in the block, added by a
//                 global atomic if it continues into the next.
//   hola_scatter: A^T x / A^H x: rows decoded per thread into shared memory, then each entry's product is
//                 added into y by atomics, with coalesced loads.
#pragma once
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"

namespace jitsparse {

// Shared memory of hola_spmv: the products (padded one word in 32 against bank conflicts) and the slots.
template <class T, int V, int NT, int EPT>
struct HolaShared {
  static constexpr int kEntries = NT * EPT;
  static constexpr int kPadded = kEntries + kEntries / 32;
  T prod[V][kPadded];
  T slot[V][NT + 1];
};

template <class T, class E, class Vec, int NPB, int EPT, bool ScaleCols>
__global__ void __launch_bounds__(256) hola_prepare(const __grid_constant__ SpmvParams<T> p) {
  const int n = ScaleCols && p.cols > p.rows ? p.cols : p.rows;
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    if (r < p.rows) {
      const long long begin = __ldg(p.row_ptr + r), end = __ldg(p.row_ptr + r + 1);
      for (long long b = (begin + NPB - 1) / NPB; b * NPB < end; ++b) p.block_row[b] = r;
      // Rows that hola_spmv adds into rather than stores: empty ones and those crossing a block boundary.
      if (!ScaleCols && (begin == end || begin / NPB != (end - 1) / NPB)) Vec::template scale_y<E>(p, r);
    }
    if (ScaleCols && r < p.cols) Vec::template scale_y<E>(p, r);
  }
}

// The last row r in [lo, hi] with row_ptr[r] <= k: the row holding entry k (empty rows share its start).
__device__ __forceinline__ int hola_row_of(const int* row_ptr, long long k, int lo, int hi) {
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (__ldg(row_ptr + mid) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <class T, class E, class Inner, class Vec, class Mac, int NT, int NB, int EPT>
__global__ void __launch_bounds__(NT, NB) hola_spmv(const __grid_constant__ SpmvParams<T> p) {
  constexpr int V = E::V;
  using Shared = HolaShared<T, V, NT, EPT>;
  __shared__ Shared sh;
  const int t = threadIdx.x;
  const long long e0 = static_cast<long long>(blockIdx.x) * Shared::kEntries;
  const long long e1 = e0 + Shared::kEntries < p.nnz ? e0 + Shared::kEntries : p.nnz;

  // 1. Every entry's product, entry k by thread k % NT: coalesced loads of columns and values.
#pragma unroll
  for (int i = 0; i < EPT; ++i) {
    const int l = i * NT + t;
    T out[V];
    if (e0 + l < e1) {
      const int k = static_cast<int>(e0 + l);
      const int col = load_matrix(p.col_idx + k);
      typename E::Matrix a;
      Inner::template load<E, LoadStreaming>(p, k, a);
      typename E::Vector xv, acc;
      Vec::template load_x<E>(p, col, xv);
      E::zero(acc);
      Mac::template mac<E>(acc, a, xv);
      E::get(acc, out);
    } else {
#pragma unroll
      for (int c = 0; c < V; ++c) out[c] = T(0);
    }
#pragma unroll
    for (int c = 0; c < V; ++c) sh.prod[c][l + l / 32] = out[c];
  }
  for (int s = t; s <= NT; s += NT)
#pragma unroll
    for (int c = 0; c < V; ++c) sh.slot[c][s] = T(0);
  const long long s0 = e0 + static_cast<long long>(t) * EPT;  // this thread's entries: [s0, s1)
  const long long s1 = s0 + EPT < e1 ? s0 + EPT : e1;
  int r = 0;
  long long row_begin = 0, row_end = 0;
  if (s0 < e1) {
    const int lo = p.block_row[blockIdx.x];
    const int hi = blockIdx.x + 1 < gridDim.x ? p.block_row[blockIdx.x + 1] : p.rows - 1;
    r = hola_row_of(p.row_ptr, s0, lo, hi);
    row_begin = __ldg(p.row_ptr + r);
    row_end = __ldg(p.row_ptr + r + 1);
  }
  __syncthreads();

  // 2. Sum this thread's products row by row.
  T acc[V];
#pragma unroll
  for (int c = 0; c < V; ++c) acc[c] = T(0);
  auto flush = [&]() {
    if (row_begin >= s0 && row_end <= s1) {  // the whole row is here
      Vec::template store_y<E>(p, r, acc);
    } else {
      const int slot = row_begin < e0 ? NT : static_cast<int>((row_begin - e0) / EPT);
#pragma unroll
      for (int c = 0; c < V; ++c) atomicAdd(&sh.slot[c][slot], acc[c]);
    }
#pragma unroll
    for (int c = 0; c < V; ++c) acc[c] = T(0);
  };
  if (s0 < e1) {
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
      const long long k = s0 + j;
      if (k >= s1) break;
      if (k >= row_end) {
        flush();
        do {  // next row holding k (empty rows were handled by hola_prepare)
          ++r;
          row_begin = row_end;
          row_end = __ldg(p.row_ptr + r + 1);
        } while (k >= row_end);
      }
      const int l = static_cast<int>(k - e0);
#pragma unroll
      for (int c = 0; c < V; ++c) acc[c] += sh.prod[c][l + l / 32];
    }
    flush();
  }
  __syncthreads();

  // 3. One writer per slot: the row leaving thread t (slot t), the row entering the block (slot NT). A row
  // that ends in the block is complete here and stored once (y is read only for beta); one that goes on
  // into the next block was scaled by hola_prepare and is added by atomics.
  T sum[V];
  if (s0 < e1 && row_begin >= s0 && row_end > s1) {
#pragma unroll
    for (int c = 0; c < V; ++c) sum[c] = sh.slot[c][t];
    if (row_end <= e1)
      Vec::template store_y<E>(p, r, sum);
    else
      Vec::template add_y_atomic<E>(p, r, sum);
  }
  if (t == 0 && e0 < e1 && __ldg(p.row_ptr + p.block_row[blockIdx.x]) < e0) {
#pragma unroll
    for (int c = 0; c < V; ++c) sum[c] = sh.slot[c][NT];
    Vec::template add_y_atomic<E>(p, p.block_row[blockIdx.x], sum);
  }
}

template <class T, class E, class Inner, class Vec, class Mac, int NT, int NB, int EPT>
__global__ void __launch_bounds__(NT, NB) hola_scatter(const __grid_constant__ SpmvParams<T> p) {
  constexpr int kEntries = NT * EPT;
  __shared__ int row_of[kEntries];
  const int t = threadIdx.x;
  const long long e0 = static_cast<long long>(blockIdx.x) * kEntries;
  const long long e1 = e0 + kEntries < p.nnz ? e0 + kEntries : p.nnz;
  const long long s0 = e0 + static_cast<long long>(t) * EPT;
  if (s0 < e1) {
    const int lo = p.block_row[blockIdx.x];
    const int hi = blockIdx.x + 1 < gridDim.x ? p.block_row[blockIdx.x + 1] : p.rows - 1;
    int r = hola_row_of(p.row_ptr, s0, lo, hi);
    long long row_end = __ldg(p.row_ptr + r + 1);
    for (int j = 0; j < EPT && s0 + j < e1; ++j) {
      while (s0 + j >= row_end) row_end = __ldg(p.row_ptr + ++r + 1);
      row_of[t * EPT + j] = r;
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < EPT; ++i) {
    const int l = i * NT + t;
    if (e0 + l >= e1) break;
    const int k = static_cast<int>(e0 + l);
    const int col = load_matrix(p.col_idx + k);
    typename E::Matrix a;
    Inner::template load<E, LoadStreaming>(p, k, a);
    typename E::Vector xv, acc;
    Vec::template load_x<E>(p, row_of[l], xv);
    E::zero(acc);
    Mac::template mac<E>(acc, a, xv);
    T out[E::V];
    E::get(acc, out);
    Vec::template add_y_atomic<E>(p, col, out);
  }
}

}  // namespace jitsparse
