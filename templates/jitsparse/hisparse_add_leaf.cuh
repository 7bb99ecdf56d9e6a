// HiSparse addition on the GPU, the leaf level (issue 9): pairs of leaves become C's leaves.
//
// The level's items go through two kernels, both launched by runtime/hisparse_add.cpp:
//   hisparse_add_leaf_small: a warp reads 32 items at once, a lane each. A pair of leaves holding one entry
//     each (or one and nothing) is added by its lane alone: one or two entries out, the node written from
//     registers, the warp's nodes placed side by side by one allocation. Randomly numbered matrices are
//     nearly all such pairs (bench-add: 2.8-3.7x faster than a warp a pair), and so is a sum whose B adds
//     scattered entries to A's pattern. The other items go to the level's list of big items.
//   hisparse_add_leaf_big: a warp per big item, as the inner levels: marks both leaves' entries in a d x d
//     bitmap, ranks the union, writes C's coordinates, then op(A)'s scaled entries, then adds op(B)'s.
//     (Two rewrites that batch the loads and read nothing back from C needed 96-128 registers and ran up to
//     2.6x slower on ordered matrices: NOTES.md, thirty-fifth session.)
// Every byte of an output node is written (the pool is not cleared first).
#pragma once
#include "jitsparse/hisparse_add.cuh"

namespace jitsparse {

// f(cell, entry) for every entry of a leaf (C scalars each); a dense leaf's cells whose bytes are all
// zero are no entries.
template <class T, int C, int D, class F>
__device__ __forceinline__ void hi_add_entries(const unsigned char* pool, unsigned long long ptr, int trans, int lane,
                                               F f) {
  if (ptr == 0) return;
  const unsigned char* node = pool + (ptr & ~15ull);
  if ((ptr & 15) == kHiAddDenseLeaf) {
    const T* cells = reinterpret_cast<const T*>(node);
    for (int k = lane; k < D * D; k += 32) {
      bool any = false;
#pragma unroll
      for (int c = 0; c < C; ++c) any |= !hi_add_zero_bits(cells[k * C + c]);
      if (any) f(trans ? (k % D) * D + k / D : k, cells + k * C);
    }
  } else if ((ptr & 15) == kHiAddCsrLeaf) {
    // rows' lengths, then columns (bytes). 32 rows at a time: a warp scan of their lengths gives each row's
    // first entry; the lanes then take the rows' entries in turn (coalesced, balanced), each finding its
    // entry's row by a binary search over the 32 starts (shuffles).
    const unsigned n = reinterpret_cast<const unsigned*>(node)[0];
    const unsigned rows = reinterpret_cast<const unsigned*>(node)[2];
    const unsigned char* lengths = node + 16;
    const unsigned char* cols = lengths + rows;
    const T* entries = reinterpret_cast<const T*>(node + 16 + hi_add_round16(static_cast<unsigned long long>(rows) + n));
    unsigned base = 0;
    for (unsigned r0 = 0; r0 < rows; r0 += 32) {
      const unsigned r = r0 + lane;
      const unsigned len = r < rows ? lengths[r] : 0u;
      unsigned incl = len;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const unsigned up = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off) incl += up;
      }
      const unsigned start = base + incl - len;  // rows past the leaf: the chunk's end
      const unsigned total = __shfl_sync(0xffffffffu, incl, 31);
      for (unsigned j = 0; j < total; j += 32) {  // uniform over the warp: the search shuffles
        const unsigned k = base + j + lane;
        int l = 0;  // the last of the 32 rows starting at or before entry k (empty rows start where the next does)
#pragma unroll
        for (int step = 16; step > 0; step >>= 1)
          if (__shfl_sync(0xffffffffu, start, l + step) <= k) l += step;
        if (j + lane < total) {
          const int row = static_cast<int>(r0) + l, col = cols[k];
          f(trans ? col * D + row : row * D + col, entries + static_cast<unsigned long long>(k) * C);
        }
      }
      base += total;
    }
  } else {
    const unsigned n = reinterpret_cast<const unsigned*>(node)[0];
    const unsigned padded = reinterpret_cast<const unsigned*>(node)[1];
    const unsigned char* xy = node + 16;
    const T* entries = reinterpret_cast<const T*>(node + 16 + hi_add_round16(2ull * padded));
    for (unsigned k = lane; k < n; k += 32) {
      const int r = xy[2 * k], col = xy[2 * k + 1];
      f(trans ? col * D + r : r * D + col, entries + static_cast<unsigned long long>(k) * C);
    }
  }
}


// s = map(in) (C scalars; the entry itself where there is no map).
template <class T, int C>
__device__ __forceinline__ void hi_add_mapped(T (&s)[C], const T (&v)[C], const T* m) {
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (m == nullptr) {
      s[c] = v[c];
    } else {
      T acc = T(0);
#pragma unroll
      for (int k = 0; k < C; ++k) acc += m[c * C + k] * v[k];
      s[c] = acc;
    }
  }
}

// v = coef * map(v), in place.
template <class T, int C>
__device__ __forceinline__ void hi_add_scaled(T (&v)[C], const T* m, T coef) {
  T s[C];
  hi_add_mapped<T, C>(s, v, m);
#pragma unroll
  for (int c = 0; c < C; ++c) v[c] = coef * s[c];
}

// The leaf level's items held by one lane (one entry or none in each leaf): C's leaf written by the lane.
// Others go to the list of big items.
template <class T, int C, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS) hisparse_add_leaf_small(const __grid_constant__ HiAddParams<T> p) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (p.state[kHiAddOverflow] != 0) return;
  const unsigned items = min(*p.in_count, p.in_capacity);
  constexpr unsigned long long kEntryBytes = static_cast<unsigned long long>(C) * sizeof(T);
  HiAddAllocator<T> alloc;  // lane 0's
  for (unsigned first = (blockIdx.x * WARPS + warp) * 32u; first < items; first += gridDim.x * WARPS * 32u) {
    const unsigned item = first + lane;
    const bool valid = item < items;
    unsigned long long pa = 0, pb = 0, slot = 0;
    if (valid) {
      pa = p.in_a[item];
      pb = p.in_b[item];
      slot = p.in_slot[item];
    }
    // A COO1 leaf holds one entry unless COO1 is also the matrix's COO width (then its header says).
    bool small = valid && (pa == 0 || (pa & 15) == kHiAddCoo1) && (pb == 0 || (pb & 15) == kHiAddCoo1);
    uint4 ha = make_uint4(0, 0, 0, 0), hb = ha;
    unsigned short ia = 0, ib = 0;
    T va[C], vb[C];
    if (small) {  // header, coordinates and entry of each: one round of loads
      const unsigned char* na = p.pool_a + (pa & ~15ull);
      const unsigned char* nb = p.pool_b + (pb & ~15ull);
      if (pa) {
        ha = *reinterpret_cast<const uint4*>(na);
        ia = *reinterpret_cast<const unsigned short*>(na + 16);
#pragma unroll
        for (int c = 0; c < C; ++c) va[c] = reinterpret_cast<const T*>(na + 32)[c];
      }
      if (pb) {
        hb = *reinterpret_cast<const uint4*>(nb);
        ib = *reinterpret_cast<const unsigned short*>(nb + 16);
#pragma unroll
        for (int c = 0; c < C; ++c) vb[c] = reinterpret_cast<const T*>(nb + 32)[c];
      }
      if ((pa && ha.x != 1) || (pb && hb.x != 1)) small = false;
    }
    // The rest to the big list (their order there does not matter: each item has its own slot).
    const unsigned big = __ballot_sync(0xffffffffu, valid && !small);
    if (big) {
      unsigned base = 0;
      if (lane == 0) base = static_cast<unsigned>(atomicAdd(p.state + kHiAddBig, static_cast<unsigned long long>(__popc(big))));
      base = __shfl_sync(0xffffffffu, base, 0);
      if ((big >> lane) & 1u) p.big_items[base + __popc(big & ((1u << lane) - 1u))] = item;
    }
    // This lane's sum: cells in C's orientation, sorted; equal cells merge.
    int ca = -1, cb = -1;
    if (small && pa) ca = p.trans_a ? (ia >> 8) * D + (ia & 0xff) : (ia & 0xff) * D + (ia >> 8);
    if (small && pb) cb = p.trans_b ? (ib >> 8) * D + (ib & 0xff) : (ib & 0xff) * D + (ib >> 8);
    // Each entry scaled (and mapped) in place; a shared cell adds B's to A's. a_first: A's entry is C's first.
    int cell0 = -1, cell1 = -1;
    bool a_first = true;
    if (small) {
      if (ca >= 0) hi_add_scaled<T, C>(va, p.map_a, p.coef_a);
      if (cb >= 0) hi_add_scaled<T, C>(vb, p.map_b, p.coef_b);
      if (ca >= 0 && cb == ca) {
#pragma unroll
        for (int c = 0; c < C; ++c) va[c] += vb[c];
        cell0 = ca;
      } else {
        a_first = cb < 0 || (ca >= 0 && ca < cb);
        cell0 = a_first ? ca : cb;
        cell1 = a_first ? cb : ca;
      }
    }
    // The node: one entry: COO1; two: COOx, or CSR where strictly smaller (a dense leaf never is).
    const unsigned n = cell1 >= 0 ? 2u : 1u;
    const unsigned padded = n == 1 ? 1u : (n + p.coo_width - 1) / p.coo_width * p.coo_width;
    const unsigned csr_rows = static_cast<unsigned>((cell1 >= 0 ? cell1 : cell0) / D) + 1;
    const unsigned long long coo_bytes = 16 + hi_add_round16(2ull * padded) + hi_add_round16(padded * kEntryBytes);
    const unsigned long long csr_bytes = 16 + hi_add_round16(csr_rows + n) + hi_add_round16(n * kEntryBytes);
    const bool csr = small && p.csr_leaves && csr_bytes < coo_bytes;
    const unsigned type = csr ? kHiAddCsrLeaf : n == 1 || p.coo_width == 1 ? kHiAddCoo1 : p.coo_width == 2 ? kHiAddCoo2 : kHiAddCoo4;
    const unsigned long long bytes = small ? (csr ? csr_bytes : coo_bytes) : 0ull;
    // The warp's nodes side by side in one allocation.
    unsigned long long incl = bytes;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned long long up = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += up;
    }
    const unsigned long long total = __shfl_sync(0xffffffffu, incl, 31);
    if (total == 0) continue;
    unsigned long long at = 0;
    if (lane == 0) at = alloc.take(p, total);
    at = __shfl_sync(0xffffffffu, at, 0);
    if (at == ~0ull || !small) continue;  // overflow: reported by the host
    at += incl - bytes;
    hi_add_link(p, slot, at | type);
    unsigned char* node = p.out + at;
    *reinterpret_cast<uint4*>(node) = make_uint4(n, csr ? n : padded, csr ? csr_rows : 0u, 0u);
    const unsigned r0 = cell0 / D, c0 = cell0 % D, r1 = cell1 / D, c1 = cell1 % D;
    unsigned long long index_bytes;
    if (csr) {  // R row lengths, then the columns, then zeros to 16 bytes
      index_bytes = hi_add_round16(csr_rows + n);
      for (unsigned q0 = 0; q0 < index_bytes; q0 += 16) {
        unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
        for (int b = 0; b < 16; ++b) {
          const unsigned q = q0 + b;
          unsigned v = 0;
          if (q < csr_rows)
            v = (q == r0) + (n == 2 && q == r1);
          else if (q == csr_rows)
            v = c0;
          else if (q == csr_rows + 1 && n == 2)
            v = c1;
          w[b / 4] |= v << (8 * (b % 4));
        }
        *reinterpret_cast<uint4*>(node + 16 + q0) = make_uint4(w[0], w[1], w[2], w[3]);
      }
    } else {  // the pairs; padding repeats the last entry's (core/hisparse.hpp); padded <= 4: one 16-byte row
      index_bytes = 16;
      const unsigned first_pair = r0 | (c0 << 8), last_pair = n == 2 ? (r1 | (c1 << 8)) : first_pair;
      unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
      for (unsigned q = 0; q < 4; ++q)
        if (q < padded) w[q / 2] |= (q == 0 ? first_pair : last_pair) << (16 * (q % 2));
      *reinterpret_cast<uint4*>(node + 16) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    T* entries = reinterpret_cast<T*>(node + 16 + index_bytes);
    const unsigned slots = csr ? n : padded;
    const unsigned words = static_cast<unsigned>(hi_add_round16(slots * kEntryBytes) / sizeof(T));
#pragma unroll
    for (int c = 0; c < C; ++c) entries[c] = a_first ? va[c] : vb[c];
    if (n == 2) {
#pragma unroll
      for (int c = 0; c < C; ++c) entries[C + c] = a_first ? vb[c] : va[c];
    }
    for (unsigned k = n * C; k < words; ++k) entries[k] = T(0);  // padding entries are zero
  }
  if (lane == 0) alloc.finish(p);
}

// out = coef * map(in) (C scalars); add: out += ...
template <class T, int C, bool Add>
__device__ __forceinline__ void hi_add_store(T* out, const T* in, const T* m, T coef) {
  T v[C], s[C];
#pragma unroll
  for (int c = 0; c < C; ++c) v[c] = in[c];
  hi_add_mapped<T, C>(s, v, m);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    if (Add)
      out[c] += coef * s[c];
    else
      out[c] = coef * s[c];
  }
}

// Resident warps an SM the big kernel is compiled for, for entries of at most 8 bytes at d 64 (0: the
// compiler's choice, 56 registers, 36 warps). Its items are chains of dependent loads, so resident warps
// set its speed: 48 (40 registers, nvcc -Xptxas -v, sm_90: no spills for real entries, 12 bytes for
// complex f32) made the real and complex f32 sums 1.02-1.09x faster on the H100 (thirty-sixth session,
// one-wave grids). Wider entries keep the compiler's choice (block3 f64: 80 registers), and so do the
// other d (d 128 spills 52 bytes at 40 registers; d 256's bitmaps, 12 KB a warp, leave room for 18 warps
// an SM). JITSPARSE_NVRTC_FLAGS=-DJITSPARSE_ADD_BIG_WARPS_PER_SM=N sets it for experiments.
#ifndef JITSPARSE_ADD_BIG_WARPS_PER_SM
#define JITSPARSE_ADD_BIG_WARPS_PER_SM 48
#endif
template <class T, int C, int D, int WARPS>
__host__ __device__ constexpr int hi_add_big_min_blocks() {
  return C * sizeof(T) <= 8 && D == 64 ? JITSPARSE_ADD_BIG_WARPS_PER_SM / WARPS : 0;
}

// The leaf level's big items (hisparse_add_leaf_small's list): pairs of leaves (or one and nothing), one per
// warp at a time.
template <class T, int C, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS, (hi_add_big_min_blocks<T, C, D, WARPS>()))
    hisparse_add_leaf_big(const __grid_constant__ HiAddParams<T> p) {
  constexpr int W = D * D / 32;
  __shared__ unsigned bits_all[WARPS][W];
  __shared__ unsigned short prefix_all[WARPS][W];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const HiAddBitmap<D> map{bits_all[warp], prefix_all[warp], lane};
  if (p.state[kHiAddOverflow] != 0) return;
  const unsigned count = min(static_cast<unsigned>(p.state[kHiAddBig]), p.in_capacity);
  HiAddAllocator<T> alloc;  // used by lane 0 only
  for (unsigned i = blockIdx.x * WARPS + warp; i < count; i += gridDim.x * WARPS) {
    const unsigned item = p.big_items[i];
    const unsigned long long pa = p.in_a[item], pb = p.in_b[item];
    map.clear();
    __syncwarp();
    hi_add_entries<T, C, D>(p.pool_a, pa, p.trans_a, lane, [&](int cell, const T*) { map.mark(cell); });
    hi_add_entries<T, C, D>(p.pool_b, pb, p.trans_b, lane, [&](int cell, const T*) { map.mark(cell); });
    __syncwarp();
    unsigned n = map.scan();
    // A pair whose dense leaves hold only zeros: one explicit zero at (0, 0), so no pointer is empty.
    if (n == 0) {
      if (lane == 0) map.bits[0] = 1u;
      __syncwarp();
      n = map.scan();
    }
    const int width = n == 1 ? 1 : p.coo_width;
    const unsigned padded = (n + width - 1) / width * width;
    const unsigned long long coo_bytes =
        16 + hi_add_round16(2ull * padded) + hi_add_round16(static_cast<unsigned long long>(padded) * C * sizeof(T));
    const unsigned long long dense_bytes = hi_add_round16(static_cast<unsigned long long>(D) * D * C * sizeof(T));
    // The build's choice: CSR where smaller than COO and every row fits its length byte, dense where
    // smaller still. R is the last occupied row + 1.
    unsigned csr_rows = 0, longest = 0;
    for (int r = lane; r < D; r += 32) {
      const unsigned len = map.row_length(r);
      if (len > 0) csr_rows = r + 1;
      longest = max(longest, len);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      csr_rows = max(csr_rows, __shfl_xor_sync(0xffffffffu, csr_rows, off));
      longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, off));
    }
    const unsigned long long csr_bytes = 16 + hi_add_round16(static_cast<unsigned long long>(csr_rows) + n) +
                                         hi_add_round16(static_cast<unsigned long long>(n) * C * sizeof(T));
    const bool csr = p.csr_leaves && longest <= 255 && csr_bytes < coo_bytes;
    const unsigned long long sparse_bytes = csr ? csr_bytes : coo_bytes;
    const bool dense = p.dense_leaves && dense_bytes < sparse_bytes;
    const unsigned type = dense ? kHiAddDenseLeaf
                          : csr ? kHiAddCsrLeaf
                                : width == 1 ? kHiAddCoo1 : width == 2 ? kHiAddCoo2 : kHiAddCoo4;
    unsigned long long at = 0;
    if (lane == 0) {
      at = alloc.take(p, dense ? dense_bytes : sparse_bytes);
      if (at != ~0ull) hi_add_link(p, p.in_slot[item], at | type);
    }
    at = __shfl_sync(0xffffffffu, at, 0);
    if (at == ~0ull) continue;
    unsigned char* node = p.out + at;
    T* entries;
    if (dense) {
      entries = reinterpret_cast<T*>(node);
      for (int k = lane; k < D * D * C; k += 32) entries[k] = T(0);
    } else if (csr) {
      const unsigned index_bytes = static_cast<unsigned>(hi_add_round16(static_cast<unsigned long long>(csr_rows) + n));
      entries = reinterpret_cast<T*>(node + 16 + index_bytes);
      if (lane < 4) reinterpret_cast<unsigned*>(node)[lane] = lane < 2 ? n : lane == 2 ? csr_rows : 0u;
      for (unsigned r = lane; r < csr_rows; r += 32) node[16 + r] = static_cast<unsigned char>(map.row_length(r));
      for (unsigned k = csr_rows + n + lane; k < index_bytes; k += 32) node[16 + k] = 0;
      const unsigned entry_words =
          static_cast<unsigned>(hi_add_round16(static_cast<unsigned long long>(n) * C * sizeof(T)) / sizeof(T));
      for (unsigned k = lane; k < entry_words; k += 32) entries[k] = T(0);
      map.for_each([&](int cell, unsigned r) { node[16 + csr_rows + r] = static_cast<unsigned char>(cell % D); });
    } else {
      const unsigned coord_bytes = static_cast<unsigned>(hi_add_round16(2ull * padded));
      entries = reinterpret_cast<T*>(node + 16 + coord_bytes);
      if (lane < 4) reinterpret_cast<unsigned*>(node)[lane] = lane == 0 ? n : lane == 1 ? padded : 0u;
      const unsigned entry_words =
          static_cast<unsigned>(hi_add_round16(static_cast<unsigned long long>(padded) * C * sizeof(T)) / sizeof(T));
      for (unsigned k = lane; k < entry_words; k += 32) entries[k] = T(0);
      for (unsigned k = 2 * padded + lane; k < coord_bytes; k += 32) node[16 + k] = 0;
      unsigned short* pairs = reinterpret_cast<unsigned short*>(node + 16);  // row, then column
      map.for_each([&](int cell, unsigned r) {
        const unsigned short pair = static_cast<unsigned short>(cell / D | cell % D << 8);
        pairs[r] = pair;
        if (r == n - 1)  // padding repeats the last entry's coordinates (core/hisparse.hpp)
          for (unsigned q = n; q < padded; ++q) pairs[q] = pair;
      });
    }
    __syncwarp();
    hi_add_entries<T, C, D>(p.pool_a, pa, p.trans_a, lane, [&](int cell, const T* e) {
      hi_add_store<T, C, false>(entries + static_cast<unsigned long long>(dense ? cell : map.rank(cell)) * C, e, p.map_a,
                                p.coef_a);
    });
    __syncwarp();
    hi_add_entries<T, C, D>(p.pool_b, pb, p.trans_b, lane, [&](int cell, const T* e) {
      hi_add_store<T, C, true>(entries + static_cast<unsigned long long>(dense ? cell : map.rank(cell)) * C, e, p.map_b,
                               p.coef_b);
    });
    __syncwarp();
  }
  if (lane == 0) alloc.finish(p);
}


}  // namespace jitsparse
