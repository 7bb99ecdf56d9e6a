// HiSparse addition on the GPU (issue 9): C = a_coef op_a(A) + b_coef op_b(B), HiSparse in and out
// (the pool format of core/hisparse.hpp).
//
// A dual traversal, one tree level per launch from the root down (DESIGN.md: work discovered at run time;
// a launch per level replaces the paper's spinning controller, which CDP2 cannot synchronise). A work
// item is a pair of nodes at the same place, one from each tree (0 where that tree has nothing there),
// and the byte offset of the slot in C's pool that receives the output node's pointer. One warp takes
// one item at a time (several per block):
//   1. marks the cells of op(A)'s and op(B)'s children (or entries) in a d x d bitmap in shared memory,
//      transposing the local coordinates of an operand read as its transpose;
//   2. counts them, and ranks every cell in row-major order by a warp scan of the words' bit counts;
//   3. picks the smaller node type (the build's rule), takes its bytes from its warp's chunk of C's pool
//      (nodes are placed in no fixed order, their contents are fixed) and writes its pointer to the slot;
//   4. inner nodes: writes the union's coordinates and appends one item per child to the next level's
//      list (another atomicAdd); leaves: writes coordinates, then A's scaled entries, then adds B's.
// Every byte of an output node is written (the pool is not cleared first). A leaf whose entries cancel
// to +0 in every component stays in a COO leaf as an explicit zero and vanishes from a dense one
// (core/hisparse.hpp, limits). Past the pool's capacity a warp sets the overflow flag and writes
// nothing; the host reports it.
#pragma once
#include "jitsparse/hisparse_add_params.cuh"

namespace jitsparse {

__device__ __forceinline__ unsigned long long hi_add_round16(unsigned long long b) { return (b + 15) & ~15ull; }

template <class T>
__device__ __forceinline__ bool hi_add_zero_bits(T v) {
  if constexpr (sizeof(T) == 8)
    return __double_as_longlong(v) == 0;
  else
    return __float_as_uint(v) == 0;
}

// One warp's d x d bitmap of occupied cells with row-major ranks (a work item belongs to one warp, so
// its steps need only __syncwarp, and several items are in flight per block).
template <int D>
struct HiAddBitmap {
  static constexpr int W = D * D / 32;           // words
  static constexpr int PER = (W + 31) / 32;      // words per lane, contiguous
  unsigned* bits;
  unsigned* prefix;  // exclusive prefix of the words' bit counts
  int lane;

  __device__ __forceinline__ void clear() const {
    for (int i = lane; i < W; i += 32) bits[i] = 0;
  }
  __device__ __forceinline__ void mark(int cell) const { atomicOr(bits + (cell >> 5), 1u << (cell & 31)); }
  __device__ __forceinline__ unsigned rank(int cell) const {
    return prefix[cell >> 5] + __popc(bits[cell >> 5] & ((1u << (cell & 31)) - 1u));
  }
  // After the marks (and __syncwarp): fills prefix, returns the number of cells. Ends with __syncwarp.
  __device__ __forceinline__ unsigned scan() const {
    const int first = lane * PER;
    unsigned mine = 0;
#pragma unroll
    for (int i = 0; i < PER; ++i)
      if (first + i < W) mine += __popc(bits[first + i]);
    unsigned incl = mine;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned v = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += v;
    }
    unsigned run = incl - mine;
#pragma unroll
    for (int i = 0; i < PER; ++i)
      if (first + i < W) {
        prefix[first + i] = run;
        run += __popc(bits[first + i]);
      }
    __syncwarp();
    return __shfl_sync(0xffffffffu, incl, 31);
  }
  // Occupied cells of row r (its D bits: D / 32 words, or half a word where D = 16).
  __device__ __forceinline__ unsigned row_length(int r) const {
    if constexpr (D < 32) {
      return __popc(bits[r * D / 32] & (((1u << D) - 1u) << (r * D % 32)));
    } else {
      unsigned n = 0;
      for (int w = r * D / 32; w < (r + 1) * D / 32; ++w) n += __popc(bits[w]);
      return n;
    }
  }
  // f(cell, rank) for every occupied cell, each by one lane.
  template <class F>
  __device__ __forceinline__ void for_each(F f) const {
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      const int w = lane * PER + i;
      if (w >= W) break;
      unsigned word = bits[w];
      unsigned r = prefix[w];
      while (word) {
        const int b = __ffs(word) - 1;
        word &= word - 1;
        f(w * 32 + b, r++);
      }
    }
  }
};

// f(cell, child pointer) for every child of an inner node, cells in the orientation read.
template <int D, class F>
__device__ __forceinline__ void hi_add_children(const unsigned char* pool, unsigned long long ptr, int trans, int lane,
                                                F f) {
  if (ptr == 0) return;
  const unsigned char* node = pool + (ptr & ~15ull);
  if ((ptr & 15) == kHiAddDenseInner) {
    const unsigned long long* c = reinterpret_cast<const unsigned long long*>(node);
    for (int k = lane; k < D * D; k += 32) {
      const unsigned long long p = c[k];
      if (p != 0) f(trans ? (k % D) * D + k / D : k, p);
    }
  } else {
    const unsigned n = *reinterpret_cast<const unsigned*>(node);
    const unsigned char* xy = node + 16;
    const unsigned long long* c = reinterpret_cast<const unsigned long long*>(node + 16 + hi_add_round16(2ull * n));
    for (unsigned k = lane; k < n; k += 32) {
      const int r = xy[2 * k], col = xy[2 * k + 1];
      f(trans ? col * D + r : r * D + col, c[k]);
    }
  }
}

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

// A warp's allocator (its lane 0 only). One atomicAdd per node on one counter serialises every warp of
// a launch (about 1.3 ns each on the H100: 9.6 ms for the 7M one-entry leaves of a shuffled graph), so a
// warp takes chunks of p.chunk bytes and places its nodes in them; a node above a quarter chunk gets its
// own allocation, so at least three quarters of every chunk but each warp's last is used. ~0 past the
// capacity, with the overflow flag set.
template <class T>
struct HiAddAllocator {
  unsigned long long cur = 0, end = 0, nodes = 0;
  __device__ __forceinline__ unsigned long long global(const HiAddParams<T>& p, unsigned long long bytes) {
    const unsigned long long at = atomicAdd(p.state + kHiAddUsed, bytes);
    if (at + bytes > p.capacity) {
      atomicExch(p.state + kHiAddOverflow, 1ull);
      return ~0ull;
    }
    return at;
  }
  __device__ __forceinline__ unsigned long long take(const HiAddParams<T>& p, unsigned long long bytes) {
    unsigned long long at;
    if (4 * bytes > p.chunk) {
      at = global(p, bytes);
    } else {
      if (cur + bytes > end) {
        const unsigned long long c = global(p, p.chunk);
        if (c == ~0ull) return ~0ull;
        cur = c;
        end = c + p.chunk;
      }
      at = cur;
      cur += bytes;
    }
    if (at != ~0ull) nodes += bytes;
    return at;
  }
  // At the end of the launch: the bytes of this warp's nodes, for the pool's statistics.
  __device__ __forceinline__ void finish(const HiAddParams<T>& p) const {
    if (nodes) atomicAdd(p.state + kHiAddNodeBytes, nodes);
  }
};

template <class T>
__device__ __forceinline__ void hi_add_link(const HiAddParams<T>& p, unsigned long long slot, unsigned long long ptr) {
  if (slot == kHiAddRootSlot)
    p.state[kHiAddRoot] = ptr;
  else
    *reinterpret_cast<unsigned long long*>(p.out + slot) = ptr;
}

// One inner level: items are pairs of inner nodes (or one and nothing), one per warp at a time.
template <class T, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS) hisparse_add_inner(const __grid_constant__ HiAddParams<T> p) {
  constexpr int W = D * D / 32;
  __shared__ unsigned bits_all[WARPS][W], prefix_all[WARPS][W];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const HiAddBitmap<D> map{bits_all[warp], prefix_all[warp], lane};
  // After an overflow the lists of this level may hold unwritten items: stop (the host reports it).
  if (p.state[kHiAddOverflow] != 0) return;
  const unsigned items = min(*p.in_count, p.in_capacity);
  HiAddAllocator<T> alloc;  // used by lane 0 only
  for (unsigned item = blockIdx.x * WARPS + warp; item < items; item += gridDim.x * WARPS) {
    const unsigned long long pa = p.in_a[item], pb = p.in_b[item];
    map.clear();
    __syncwarp();
    hi_add_children<D>(p.pool_a, pa, p.trans_a, lane, [&](int cell, unsigned long long) { map.mark(cell); });
    hi_add_children<D>(p.pool_b, pb, p.trans_b, lane, [&](int cell, unsigned long long) { map.mark(cell); });
    __syncwarp();
    const unsigned n = map.scan();
    const unsigned long long sparse_bytes = 16 + hi_add_round16(2ull * n) + hi_add_round16(8ull * n);
    const unsigned long long dense_bytes = 8ull * D * D;
    const bool dense = dense_bytes < sparse_bytes;
    unsigned long long at = 0, base = 0;
    if (lane == 0) {
      at = alloc.take(p, dense ? dense_bytes : sparse_bytes);
      base = at == ~0ull ? 0ull : atomicAdd(p.next_count, n);
      if (base + n > p.next_capacity) atomicExch(p.state + kHiAddOverflow, 1ull);
      if (at != ~0ull && base + n <= p.next_capacity)
        hi_add_link(p, p.in_slot[item], at | (dense ? kHiAddDenseInner : kHiAddSparseInner));
      else
        at = ~0ull;
    }
    at = __shfl_sync(0xffffffffu, at, 0);
    base = __shfl_sync(0xffffffffu, base, 0);
    if (at == ~0ull) continue;  // uniform: the host reports the overflow
    unsigned char* node = p.out + at;
    const unsigned long long pointers = dense ? at : at + 16 + hi_add_round16(2ull * n);
    if (dense) {
      for (int k = lane; k < D * D; k += 32) reinterpret_cast<unsigned long long*>(node)[k] = 0;
    } else {
      if (lane < 4) reinterpret_cast<unsigned*>(node)[lane] = lane == 0 ? n : 0u;
      for (unsigned k = 2 * n + lane; k < hi_add_round16(2ull * n); k += 32) node[16 + k] = 0;
      if ((n & 1) && lane == 0)  // the pointer array is padded to 16 bytes
        *reinterpret_cast<unsigned long long*>(p.out + pointers + 8ull * n) = 0;
    }
    map.for_each([&](int cell, unsigned r) {
      if (!dense) {
        node[16 + 2 * r] = static_cast<unsigned char>(cell / D);
        node[16 + 2 * r + 1] = static_cast<unsigned char>(cell % D);
      }
      p.next_a[base + r] = 0;
      p.next_b[base + r] = 0;
      p.next_slot[base + r] = pointers + 8ull * (dense ? cell : r);
    });
    __syncwarp();
    hi_add_children<D>(p.pool_a, pa, p.trans_a, lane, [&](int cell, unsigned long long c) { p.next_a[base + map.rank(cell)] = c; });
    hi_add_children<D>(p.pool_b, pb, p.trans_b, lane, [&](int cell, unsigned long long c) { p.next_b[base + map.rank(cell)] = c; });
    __syncwarp();
  }
  if (lane == 0) alloc.finish(p);
}

// out = coef * map(in) (C scalars); add: out += ...
template <class T, int C, bool Add>
__device__ __forceinline__ void hi_add_store(T* out, const T* in, const T* m, T coef) {
  T v[C];
#pragma unroll
  for (int c = 0; c < C; ++c) v[c] = in[c];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    T s;
    if (m == nullptr) {
      s = v[c];
    } else {
      s = T(0);
#pragma unroll
      for (int k = 0; k < C; ++k) s += m[c * C + k] * v[k];
    }
    if (Add)
      out[c] += coef * s;
    else
      out[c] = coef * s;
  }
}

// The leaf level: items are pairs of leaves (or one and nothing), one per warp at a time.
template <class T, int C, int D, int WARPS>
__global__ void __launch_bounds__(32 * WARPS) hisparse_add_leaf(const __grid_constant__ HiAddParams<T> p) {
  constexpr int W = D * D / 32;
  __shared__ unsigned bits_all[WARPS][W], prefix_all[WARPS][W];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const HiAddBitmap<D> map{bits_all[warp], prefix_all[warp], lane};
  if (p.state[kHiAddOverflow] != 0) return;
  const unsigned items = min(*p.in_count, p.in_capacity);
  HiAddAllocator<T> alloc;  // used by lane 0 only
  for (unsigned item = blockIdx.x * WARPS + warp; item < items; item += gridDim.x * WARPS) {
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
      map.for_each([&](int cell, unsigned r) {
        const unsigned char row = static_cast<unsigned char>(cell / D), col = static_cast<unsigned char>(cell % D);
        node[16 + 2 * r] = row;
        node[16 + 2 * r + 1] = col;
        if (r == n - 1)  // padding repeats the last entry's coordinates (core/hisparse.hpp)
          for (unsigned q = n; q < padded; ++q) {
            node[16 + 2 * q] = row;
            node[16 + 2 * q + 1] = col;
          }
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
