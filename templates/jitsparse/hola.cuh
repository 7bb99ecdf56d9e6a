// Hola-style CSR (after Steinberger, Zayer, Seidel, ICS'17): no preprocessing of the matrix. Each block
// takes a fixed share of the entries (NT x EPT, global balance) and each thread EPT consecutive ones
// (local balance), whatever the rows look like.
//   hola_prepare: one thread per row. Writes the row of each block's first entry (the only per-launch
//                 setup), and sets y = beta * y for the rows that no block completes: empty rows and
//                 rows that cross a block boundary (their sums are added in later). With ScaleCols it
//                 scales the p.cols elements of y instead (op t/h by atomics).
//   hola_spmv:    A x (and op t/h on a transposed copy). 1: the block's entry products are formed with
//                 coalesced loads (entry k by thread k % NT; a thread's loads issued in groups before use)
//                 into shared memory. Each thread's first row is written by the row's owner (the thread
//                 that reads it from row_ptr), not searched. 2: each thread sums its EPT consecutive
//                 products row by row; a row inside one thread is stored directly. 3: a row shared by
//                 threads is summed by a segmented scan over the threads (warp shuffles, a shared slot per
//                 thread and a flag per warp): the thread where it ends stores it, or adds it by a global
//                 atomic if it began in an earlier block; the block's last thread adds the row that goes
//                 on into the next block (NOTES.md, tenth and twelfth sessions).
//   hola_scatter: A^T x / A^H x: rows decoded per thread into shared memory, then each entry's product is
//                 added into y by atomics, with coalesced loads issued in groups.
#pragma once
#include "jitsparse/grid_dependency.cuh"
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"

// hola_spmv sums up to this many entries per thread unrolled, more row by row (its phase 2). An NVRTC
// option (JITSPARSE_NVRTC_FLAGS=-DJITSPARSE_HOLA_UNROLLED_MAX=0) changes it for experiments; 4 was
// fastest of 0, 4 and 8 on the H100 (NOTES.md, twelfth session).
#ifndef JITSPARSE_HOLA_UNROLLED_MAX
#define JITSPARSE_HOLA_UNROLLED_MAX 4
#endif

// Where hola_spmv waits for hola_prepare (grid_dependency.cuh): 1, after its first group of product loads
// is out (the block rows are loaded after the wait, so the owners' row bounds take one more round trip);
// 0, at its start (the launch overlaps, the loads do not).
#ifndef JITSPARSE_HOLA_WAIT_LATE
#define JITSPARSE_HOLA_WAIT_LATE 1
#endif

namespace jitsparse {

// hola_prepare also moves x into a renumbered matrix's numbering (x_caller set, through x_map): hola_spmv reads x only
// after its wait for this kernel, hola_scatter after its first line, so the move needs no kernel of its own.
template <class T, class E, class Vec, int NPB, int EPT, bool ScaleCols>
__global__ void __launch_bounds__(256) hola_prepare(const __grid_constant__ SpmvParams<T> p) {
  let_main_kernel_launch();
  const int n = ScaleCols && p.cols > p.rows ? p.cols : p.rows;
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
    if (p.x_caller && r < p.rows) {  // renumbered: square, so x has p.rows elements for every op
      const int from = __ldg(p.x_map + r);
#pragma unroll
      for (int c = 0; c < E::V; ++c)
        p.x_moved[Vec::template x_index<E>(p, r, c)] = __ldg(p.x_caller + Vec::template x_index<E>(p, from, c));
    }
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

// The first row of each thread's entries, written by the rows' owners (hola_first_rows).
template <int NT>
struct HolaFirstRows {
  int row[NT];
};

// Shared memory of hola_spmv: the products (padded one word in 32 against bank conflicts), each
// thread's partial sum of the scan, a flag per warp and each thread's first row.
template <class T, int V, int NT, int EPT>
struct HolaShared {
  static constexpr int kEntries = NT * EPT;
  static constexpr int kPadded = kEntries + kEntries / 32;
  static constexpr int kWarps = NT / 32;
  T prod[V][kPadded];
  T tail[V][NT];       // each thread's u of the scan
  int warp_new[kWarps];
  HolaFirstRows<NT> first;
};

// A block of fewer rows than this finds its threads' first rows by hola_first_rows; one with more (many
// empty rows) lets each thread binary-search row_ptr.
template <int NT>
struct HolaOwnedRows {
  static constexpr int value = 4 * NT;
};

// Each row of the block [lo, hi] (hi - lo < HolaOwnedRows) is read once, coalesced, by thread (r - lo) % NT,
// which writes it as the first row of the threads whose first entry it holds: entry e0 + u * EPT lies in
// row r for u in [ceil((begin - e0) / EPT), ceil((end - e0) / EPT)). A row spanning more than 32 threads
// gets its first 32 written (one thread writing hundreds kept the block waiting); the threads after them
// find their row by hola_first_row's check and search. Replaces a binary search per thread: about nine
// dependent loads against one round of coalesced ones. The caller synchronises before reading.
template <int NT, int EPT>
__device__ __forceinline__ void hola_first_rows(const int* row_ptr, int e0, int lo, int hi, int begin, int end,
                                                HolaFirstRows<NT>& f) {
  // begin, end: the bounds of this thread's first row (lo + threadIdx.x), loaded early by the caller
  for (int r = lo + static_cast<int>(threadIdx.x); r <= hi;) {
    int u = begin <= e0 ? 0 : (begin - e0 + EPT - 1) / EPT;
    const int span = min(end - e0, NT * EPT);  // clamped first: end - e0 + EPT - 1 may pass 2^31 - 1
    const int u_end = min((span + EPT - 1) / EPT, u + 32);
    for (; u < u_end; ++u) f.row[u] = r;
    r += NT;
    if (r <= hi) {
      begin = __ldg(row_ptr + r);
      end = __ldg(row_ptr + r + 1);
    }
  }
}

// The bounds of thread t's first row for hola_first_rows (zero where it has none).
__device__ __forceinline__ void hola_owned_bounds(const int* row_ptr, int lo, int hi, bool owned, int& begin, int& end) {
  const int r = lo + static_cast<int>(threadIdx.x);
  begin = end = 0;
  if (owned && r <= hi) {
    begin = __ldg(row_ptr + r);
    end = __ldg(row_ptr + r + 1);
  }
}

// This thread's first row (the one holding entry s0) and its bounds, from hola_first_rows where it wrote
// this thread's slot, else by binary search. The slot is trusted only if that row holds s0 (shared memory
// may hold anything where no owner wrote, and a row that holds s0 is the right one).
__device__ __forceinline__ void hola_first_row(const int* row_ptr, int s0, int lo, int hi, bool owned, int slot,
                                               int& r, int& begin, int& end) {
  if (owned && slot >= lo && slot <= hi) {
    r = slot;
    begin = __ldg(row_ptr + r);
    end = __ldg(row_ptr + r + 1);
    if (begin <= s0 && s0 < end) return;
  }
  r = hola_row_of(row_ptr, s0, lo, hi);
  begin = __ldg(row_ptr + r);
  end = __ldg(row_ptr + r + 1);
}

// How many of its entries a thread of hola_spmv keeps in flight at once in the first phase: as many as
// half the registers a thread may use (the launch bounds' share) hold, counting C matrix and V vector
// scalars per entry; at least one, at most EPT. More would spill.
template <class T, class E, int NT, int NB, int EPT>
struct HolaGroup {
  static constexpr int kRegsPerEntry = (E::C + E::V) * static_cast<int>(sizeof(T)) / 4;
  static constexpr int kBudget = 65536 / (NT * NB) / 2;
  static constexpr int kFit = kBudget / kRegsPerEntry > 0 ? kBudget / kRegsPerEntry : 1;
  static constexpr int value = kFit < EPT ? kFit : EPT;
};

// The products of a block's entries, entry e0 + l by thread l % NT (coalesced). A group of G entries is
// loaded before any is used, so a thread waits for one round trip per group, not per entry. Not Full (the
// last block): the missing entries load the block's last entry again and are passed on as not valid,
// without branches. x_at(l, col): the element of x entry l multiplies (its column for A x, its row for
// the scatter); use(l, col, valid, product) takes each product. issued() runs once the first group's
// loads are out: loads that do not depend on them go out then and overlap their round trip.
template <bool Full, class T, class E, class Inner, class Vec, class Mac, int NT, int EPT, int G, class XAt, class Use,
          class Issued>
__device__ __forceinline__ void hola_entry_products(const SpmvParams<T>& p, int e0, int count, XAt x_at, Use use,
                                                    Issued issued) {
  const int t = threadIdx.x;
#pragma unroll
  for (int i0 = 0; i0 < EPT; i0 += G) {
    int col[G];
    typename E::Matrix a[G];
    typename E::Vector xv[G];
#pragma unroll
    for (int g = 0; g < G; ++g) {
      if (i0 + g < EPT) {
        const int l = Full ? (i0 + g) * NT + t : min((i0 + g) * NT + t, count - 1);
        col[g] = load_matrix(p.col_idx + e0 + l);
        Inner::template load<E, LoadStreaming>(p, e0 + l, a[g]);
      }
    }
    if (i0 == 0) issued();
#pragma unroll
    for (int g = 0; g < G; ++g)
      if (i0 + g < EPT) Vec::template load_x<E>(p, x_at((i0 + g) * NT + t, col[g]), xv[g]);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      if (i0 + g < EPT) {
        const int l = (i0 + g) * NT + t;
        typename E::Vector acc;
        E::zero(acc);
        Mac::template mac<E>(acc, a[g], xv[g]);
        T out[E::V];
        E::get(acc, out);
        use(l, col[g], Full || l < count, out);
      }
    }
  }
}

// hola_spmv's first phase: the products into shared memory at the padded index l + l / 32 (zero for the
// missing entries of the last block).
template <bool Full, class T, class E, class Inner, class Vec, class Mac, int NT, int EPT, int G, int P, class Issued>
__device__ __forceinline__ void hola_products(const SpmvParams<T>& p, int e0, int count, T (&prod)[E::V][P],
                                              Issued issued) {
  hola_entry_products<Full, T, E, Inner, Vec, Mac, NT, EPT, G>(
      p, e0, count, [](int, int col) { return col; },
      [&](int l, int, bool valid, const T (&out)[E::V]) {
#pragma unroll
        for (int c = 0; c < E::V; ++c) prod[c][l + (l >> 5)] = valid ? out[c] : T(0);
      },
      issued);
}

template <class T, class E, class Inner, class Vec, class Mac, int NT, int NB, int EPT>
__global__ void __launch_bounds__(NT, NB) hola_spmv(const __grid_constant__ SpmvParams<T> p) {
  static_assert(NT % 32 == 0, "threads per block must be a multiple of the warp size");
  constexpr int V = E::V;
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

  // The block's rows [lo, hi]: hi is the row of the next block's first entry (an upper bound), both
  // written by hola_prepare. Their loads, and those of this thread's row for hola_first_rows, overlap the
  // products' (below). Every write to y comes after the wait too (hola_prepare scales y's shared rows).
  int lo = 0, hi = 0;
  auto load_block_rows = [&]() {
    wait_for_prologue();
    lo = p.block_row[blockIdx.x];
    hi = blockIdx.x + 1 < gridDim.x ? p.block_row[blockIdx.x + 1] : p.rows - 1;
  };
  if constexpr (!JITSPARSE_HOLA_WAIT_LATE) load_block_rows();
  bool owned_rows = false;
  int own_begin = 0, own_end = 0;
  auto issued = [&]() {
    if constexpr (JITSPARSE_HOLA_WAIT_LATE) load_block_rows();
    owned_rows = hi - lo < HolaOwnedRows<NT>::value;
    hola_owned_bounds(p.row_ptr, lo, hi, owned_rows, own_begin, own_end);
  };

  // 1. Every entry's product, entry k by thread k % NT: coalesced loads of columns and values. A full
  // block (all but the last) indexes without bounds, so its addresses are one base plus constants.
  const int count = e1 - e0;
  if (count == Shared::kEntries)
    hola_products<true, T, E, Inner, Vec, Mac, NT, EPT, HolaGroup<T, E, NT, NB, EPT>::value>(p, e0, count, sh.prod, issued);
  else
    hola_products<false, T, E, Inner, Vec, Mac, NT, EPT, HolaGroup<T, E, NT, NB, EPT>::value>(p, e0, count, sh.prod, issued);
  if (owned_rows) hola_first_rows<NT, EPT>(p.row_ptr, e0, lo, hi, own_begin, own_end, sh.first);

  // 2. Sum this thread's products row by row. A row that began before s0 and ends here is the head (it
  // needs the sums of the threads before); one that goes on past s1 is the tail (the threads after need it).
  // The head's sum waits in the thread's first product slot (only this thread reads its slots).
  T acc[V];
#pragma unroll
  for (int c = 0; c < V; ++c) acc[c] = T(0);
  int r = 0, head_row = -1, row_begin = 0, row_end = 0;
  bool head_began_before = false;  // the head row began in an earlier block
  __syncthreads();
  if (n > 0) hola_first_row(p.row_ptr, s0, lo, hi, owned_rows, sh.first.row[t], r, row_begin, row_end);
  const int own = t * EPT + (t * EPT >> 5);  // the padded index of this thread's first slot
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
  auto next_row_holding = [&](int k) {  // past row r to the row holding entry k (hola_prepare did the empty ones)
    do {
      ++r;
      row_begin = row_end;
      row_end = __ldg(p.row_ptr + r + 1);
    } while (k >= row_end);
  };
  // Few entries per thread (EPT <= JITSPARSE_HOLA_UNROLLED_MAX): unrolled over the entries, a row's end checked
  // at each. More: row by row, each segment a short loop over shared memory, so a warp runs as many loop
  // bodies as its longest segments take (unrolled, the row-end code ran for every entry: ~45 instructions
  // per entry on laplacian_large against ~7).
  bool has_tail = false;
  if constexpr (EPT <= JITSPARSE_HOLA_UNROLLED_MAX) {
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
      if (j < n) {
        const int k = s0 + j;
        if (k >= row_end) {
          finish_row();
          next_row_holding(k);
        }
        const int l = t * EPT + j;
#pragma unroll
        for (int c = 0; c < V; ++c) acc[c] += sh.prod[c][l + (l >> 5)];
      }
    }
    has_tail = n > 0 && row_end > s1;
    if (n > 0 && !has_tail) finish_row();
  } else if (n > 0) {
    int k = s0;
    while (true) {
      const int stop = row_end < s1 ? row_end : s1;
      for (; k < stop; ++k) {
        const int l = k - e0;
#pragma unroll
        for (int c = 0; c < V; ++c) acc[c] += sh.prod[c][l + (l >> 5)];
      }
      if (row_end > s1) {  // the row goes on into the next thread: acc is this thread's tail
        has_tail = true;
        break;
      }
      finish_row();
      if (k == s1) break;
      next_row_holding(k);
    }
  }

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
  __shared__ HolaFirstRows<NT> first;
  const int t = threadIdx.x;
  // Positions fit in 32 bits (row_ptr is int).
  const long long e0l = static_cast<long long>(blockIdx.x) * kEntries;
  const int e0 = static_cast<int>(e0l);
  const int count = static_cast<int>(e0l + kEntries < p.nnz ? kEntries : p.nnz - e0l);
  const int s0 = e0 + t * EPT;
  wait_for_prologue();  // hola_prepare wrote the block rows and scaled y
  const int lo = p.block_row[blockIdx.x];
  const int hi = blockIdx.x + 1 < gridDim.x ? p.block_row[blockIdx.x + 1] : p.rows - 1;
  const bool owned_rows = hi - lo < HolaOwnedRows<NT>::value;
  int own_begin, own_end;
  hola_owned_bounds(p.row_ptr, lo, hi, owned_rows, own_begin, own_end);
  if (owned_rows) hola_first_rows<NT, EPT>(p.row_ptr, e0, lo, hi, own_begin, own_end, first);
  __syncthreads();
  if (t * EPT < count) {
    int r, row_begin, row_end;
    hola_first_row(p.row_ptr, s0, lo, hi, owned_rows, first.row[t], r, row_begin, row_end);
    for (int j = 0; j < EPT && t * EPT + j < count; ++j) {
      while (s0 + j >= row_end) row_end = __ldg(p.row_ptr + ++r + 1);
      row_of[t * EPT + j] = r;
    }
  }
  __syncthreads();
  // Each entry's product added into y at its column; missing entries of the last block add nothing.
  hola_entry_products<false, T, E, Inner, Vec, Mac, NT, EPT, HolaGroup<T, E, NT, NB, EPT>::value>(
      p, e0, count, [&](int l, int) { return row_of[min(l, count - 1)]; },
      [&](int, int col, bool valid, const T (&out)[E::V]) {
        if (valid) Vec::template add_y_atomic<E>(p, col, out);
      },
      [] {});
}

}  // namespace jitsparse
