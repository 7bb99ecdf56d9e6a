// Hola-style CSR (after Steinberger, Zayer, Seidel, ICS'17): no preprocessing of the matrix. Each block
// takes a fixed share of the entries (NT x EPT, global balance) and each thread EPT consecutive ones
// (local balance), whatever the rows look like.
//   hola_prepare: one thread per row. Writes the row of each block's first entry (the only per-launch
//                 setup), and sets y = beta * y for the rows that no block completes: empty rows and
//                 rows that cross a block boundary (their sums are added in later). With ScaleCols it
//                 scales the p.cols elements of y instead (op t/h by atomics).
//   hola_spmv:    A x (and op t/h on a transposed copy). The block's entry products are formed with
//                 coalesced loads (entry k by thread k % NT) into shared memory; each thread then sums its
//                 EPT consecutive products row by row. A row inside one thread is stored directly. A row
//                 shared by threads is summed by a segmented scan over the threads (warp shuffles, a
//                 shared slot per thread and a flag per warp): the thread where it ends stores it, or
//                 adds it by a global atomic if it began in an earlier block; the block's last thread
//                 adds the row that goes on into the next block. Against the first version (shared
//                 atomics per shared row), same variants on the H100: 1.00-1.37x on 49 of 52 cases,
//                 the R-MAT graph f64 81 -> 69 us (NOTES.md, tenth session).
//   hola_scatter: A^T x / A^H x: rows decoded per thread into shared memory, then each entry's product is
//                 added into y by atomics, with coalesced loads.
#pragma once
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"

namespace jitsparse {

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

// Shared memory of hola_spmv: the products (padded one word in 32 against bank conflicts), each
// thread's partial sum of the scan and a flag per warp.
template <class T, int V, int NT, int EPT>
struct HolaShared {
  static constexpr int kEntries = NT * EPT;
  static constexpr int kPadded = kEntries + kEntries / 32;
  static constexpr int kWarps = NT / 32;
  T prod[V][kPadded];
  T tail[V][NT];       // each thread's u of the scan
  int warp_new[kWarps];
};

template <class T, class E, class Inner, class Vec, class Mac, int NT, int NB, int EPT>
__global__ void __launch_bounds__(NT, NB) hola_spmv(const __grid_constant__ SpmvParams<T> p) {
  static_assert(NT % 32 == 0, "threads per block must be a multiple of the warp size");
  constexpr int V = E::V, kWarps = NT / 32;
  using Shared = HolaShared<T, V, NT, EPT>;
  __shared__ Shared sh;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  // Positions fit in 32 bits (row_ptr is int); s0 may pass nnz only in the last block.
  const long long e0l = static_cast<long long>(blockIdx.x) * Shared::kEntries;
  const int e0 = static_cast<int>(e0l);
  const int e1 = static_cast<int>(e0l + Shared::kEntries < p.nnz ? e0l + Shared::kEntries : p.nnz);
  const int avail = e1 - e0 - t * EPT;  // entries of the block from this thread's first on
  const int n = avail <= 0 ? 0 : avail < EPT ? avail : EPT;
  const int s0 = e0 + t * EPT, s1 = s0 + n;  // this thread's entries (meaningful where n > 0)

  // 1. Every entry's product, entry k by thread k % NT: coalesced loads of columns and values.
#pragma unroll
  for (int i = 0; i < EPT; ++i) {
    const int l = i * NT + t;
    T out[V];
    if (l < e1 - e0) {
      const int k = e0 + l;
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

  // 2. Sum this thread's products row by row. A row that began before s0 and ends here is the head (it
  // needs the sums of the threads before); one that goes on past s1 is the tail (the threads after need it).
  // The head's sum waits in the thread's first product slot (only this thread reads its slots).
  T acc[V];
#pragma unroll
  for (int c = 0; c < V; ++c) acc[c] = T(0);
  int r = 0, head_row = -1, row_begin = 0, row_end = 0;
  bool head_began_before = false;  // the head row began in an earlier block
  if (n > 0) {
    const int lo = p.block_row[blockIdx.x];
    const int hi = blockIdx.x + 1 < gridDim.x ? p.block_row[blockIdx.x + 1] : p.rows - 1;
    r = hola_row_of(p.row_ptr, s0, lo, hi);
    row_begin = __ldg(p.row_ptr + r);
    row_end = __ldg(p.row_ptr + r + 1);
  }
  __syncthreads();
  const int own = t * EPT + t * EPT / 32;  // the padded index of this thread's first slot
  auto finish_row = [&]() {  // row r ends in this thread
    if (row_begin < s0) {
      head_row = r;
      head_began_before = row_begin < e0;
#pragma unroll
      for (int c = 0; c < V; ++c) sh.prod[c][own] = acc[c];
    } else {
      Vec::template store_y<E>(p, r, acc);
    }
#pragma unroll
    for (int c = 0; c < V; ++c) acc[c] = T(0);
  };
#pragma unroll
  for (int j = 0; j < EPT; ++j) {
    if (j < n) {
      const int k = s0 + j;
      if (k >= row_end) {
        finish_row();
        do {  // the next row holding k (empty rows were handled by hola_prepare)
          ++r;
          row_begin = row_end;
          row_end = __ldg(p.row_ptr + r + 1);
        } while (k >= row_end);
      }
      const int l = t * EPT + j;
#pragma unroll
      for (int c = 0; c < V; ++c) acc[c] += sh.prod[c][l + l / 32];
    }
  }
  const bool has_tail = n > 0 && row_end > s1;
  if (n > 0 && !has_tail) finish_row();

  // 3. Segmented inclusive scan of the tails over the threads: u = this thread's tail plus, if the thread
  // holds nothing but that row ("through"), the u of the thread before. fresh: a segment starts at or
  // before this thread in its warp. The flags are scanned first, then each component with them, one at
  // a time (scanning all at once kept too many registers live: compound entries spilled).
  bool fresh = !(has_tail && row_begin < s0);
  unsigned add = 0;  // bit i: step i adds the value of the lane 2^i below
#pragma unroll
  for (int i = 0, d = 1; d < 32; ++i, d <<= 1) {
    const bool below = __shfl_up_sync(0xffffffffu, static_cast<int>(fresh), d) != 0;
    if (lane >= d) {
      if (!fresh) add |= 1u << i;
      fresh = fresh || below;
    }
  }
  const unsigned fresh_lanes = __ballot_sync(0xffffffffu, fresh);
#pragma unroll
  for (int c = 0; c < V; ++c) sh.tail[c][t] = acc[c];  // zero unless has_tail
#pragma unroll 1
  for (int c = 0; c < V; ++c) {  // one component at a time, through shared memory
    T u = sh.tail[c][t];
#pragma unroll
    for (int i = 0, d = 1; d < 32; ++i, d <<= 1) {
      const T below = __shfl_up_sync(0xffffffffu, u, d);
      if (add & (1u << i)) u += below;
    }
    sh.tail[c][t] = u;
  }
  if (lane == 31) sh.warp_new[warp] = fresh;
  __syncthreads();

  // 4. The threads that write: the sums of the warps before this one (in) complete a warp's scan.
  const bool ends_block = has_tail && s1 == e1;  // its row goes on into the next block
  if (head_row >= 0 || ends_block) {
    T in[V];
#pragma unroll
    for (int c = 0; c < V; ++c) in[c] = T(0);
    for (int w = 0; w < warp; ++w) {
      const bool w_new = sh.warp_new[w] != 0;
#pragma unroll
      for (int c = 0; c < V; ++c) in[c] = w_new ? sh.tail[c][w * 32 + 31] : in[c] + sh.tail[c][w * 32 + 31];
    }
    // The head row ends here: stored if it began in this block, else added (hola_prepare scaled it).
    // What came before it in this block is the u of the thread before.
    if (head_row >= 0) {
      const bool before_in_warp = lane > 0;
      const bool before_takes_in = !before_in_warp || !((fresh_lanes >> (lane - 1)) & 1u);
      T head[V];
#pragma unroll
      for (int c = 0; c < V; ++c)
        head[c] = sh.prod[c][own] + (before_in_warp ? sh.tail[c][t - 1] : T(0)) + (before_takes_in ? in[c] : T(0));
      if (head_began_before)
        Vec::template add_y_atomic<E>(p, head_row, head);
      else
        Vec::template store_y<E>(p, head_row, head);
    }
    if (ends_block) {
      T sum[V];
#pragma unroll
      for (int c = 0; c < V; ++c) sum[c] = sh.tail[c][t] + (fresh ? T(0) : in[c]);
      Vec::template add_y_atomic<E>(p, r, sum);
    }
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
