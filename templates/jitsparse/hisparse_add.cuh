// HiSparse addition on the GPU (issue 9): C = a_coef op_a(A) + b_coef op_b(B), HiSparse in and out
// (the pool format of core/hisparse.hpp). This file: what both levels share, and the inner levels;
// hisparse_add_leaf.cuh: the leaf level (a lane a pair of one-entry leaves, a warp each other pair).
//
// A dual traversal, one tree level per launch from the root down (DESIGN.md: work discovered at run time;
// a launch per level replaces the paper's spinning controller, which CDP2 cannot synchronise). A work
// item is a pair of nodes at the same place, one from each tree (0 where that tree has nothing there),
// and the byte offset of the slot in C's pool that receives the output node's pointer. On an inner level
// one warp takes one item at a time (several per block):
//   1. marks the cells of op(A)'s and op(B)'s children in a d x d bitmap in shared memory, transposing the
//      local coordinates of an operand read as its transpose;
//   2. counts them, and ranks every cell in row-major order by a warp scan of the words' bit counts;
//   3. picks the smaller node type (the build's rule), takes its bytes from its warp's chunk of C's pool
//      (nodes are placed in no fixed order, their contents are fixed) and writes its pointer to the slot;
//   4. writes the union's coordinates and appends one item per child to the next level's list (another
//      atomicAdd).
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

// One warp's d x d bitmap of occupied cells with row-major ranks: 16-bit exclusive prefixes of its words
// (at most 65,536 cells, so every prefix fits). A work item belongs to one warp, so its steps need only
// __syncwarp, and several items are in flight per block.
template <int D>
struct HiAddBitmap {
  static constexpr int W = D * D / 32;       // words
  static constexpr int PER = (W + 31) / 32;  // words per lane, contiguous
  unsigned* bits;
  unsigned short* prefix;
  int lane;

  __device__ __forceinline__ void clear() const {
    for (int i = lane; i < W; i += 32) bits[i] = 0;
  }
  __device__ __forceinline__ void mark(int cell) const { atomicOr(bits + (cell >> 5), 1u << (cell & 31)); }
  __device__ __forceinline__ unsigned rank(int cell) const {
    return prefix[cell >> 5] + __popc(bits[cell >> 5] & ((1u << (cell & 31)) - 1u));
  }
  // After the marks (and __syncwarp): fills the prefixes, returns the number of cells. Ends with __syncwarp.
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
        prefix[first + i] = static_cast<unsigned short>(run);
        run += __popc(bits[first + i]);
      }
    __syncwarp();
    return __shfl_sync(0xffffffffu, incl, 31);
  }
  // Occupied cells of row r (its D bits: D / 32 words, or part of a word where D = 16).
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
  __shared__ unsigned bits_all[WARPS][W];
  __shared__ unsigned short prefix_all[WARPS][W];
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

}  // namespace jitsparse
