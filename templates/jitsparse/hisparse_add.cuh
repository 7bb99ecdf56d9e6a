// HiSparse addition on the GPU (issue 9): C = a_coef op_a(A) + b_coef op_b(B), HiSparse in and out
// (the pool format of core/hisparse.hpp). This file: what both levels share, and the inner levels;
// hisparse_add_leaf.cuh: the leaf level (a lane a pair of one-entry leaves, a warp each other pair).
//
// A dual traversal, one tree level per launch from the root down (DESIGN.md: work discovered at run time;
// a launch per level replaces the paper's spinning controller, which CDP2 cannot synchronise). A work
// item is a pair of nodes at the same place, one from each tree (0 where that tree has nothing there),
// and the byte offset of the slot in C's pool that receives the output node's pointer. On an inner level
// one warp takes one item at a time (several per block), or, where the level's items are few (they fit
// one wave of blocks, runtime/hisparse_add.cpp), a whole block takes one:
//   1. marks the cells of op(A)'s and op(B)'s children in a d x d bitmap in shared memory, transposing the
//      local coordinates of an operand read as its transpose;
//   2. counts them, and ranks every cell in row-major order by a warp scan of the words' bit counts;
//   3. picks the smaller node type (the build's rule), takes its bytes from its group's chunk of C's pool
//      (nodes are placed in no fixed order, their contents are fixed) and writes its pointer to the slot;
//   4. writes the union's coordinates and appends one item per child to the next level's list (another
//      atomicAdd), neighbouring threads storing neighbouring items.
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

// A group's d x d bitmap of occupied cells with row-major ranks: 16-bit exclusive prefixes of its words
// (at most 65,536 cells, so every prefix fits). The group takes one work item: a warp (THREADS 32; its steps
// need only __syncwarp, and several items are in flight per block) or a whole block (few items of many
// children each). tid: the thread's number in the group.
template <int D, int THREADS = 32>
struct HiAddBitmap {
  static constexpr int W = D * D / 32;       // words
  static constexpr int PER = (W + 31) / 32;  // words per lane of the scan, contiguous
  unsigned* bits;
  unsigned short* prefix;
  int tid;

  __device__ __forceinline__ static void sync() {
    if constexpr (THREADS == 32)
      __syncwarp();
    else
      __syncthreads();
  }
  __device__ __forceinline__ void clear() const {
    for (int i = tid; i < W; i += THREADS) bits[i] = 0;
  }
  __device__ __forceinline__ void mark(int cell) const { atomicOr(bits + (cell >> 5), 1u << (cell & 31)); }
  __device__ __forceinline__ unsigned rank(int cell) const {
    return prefix[cell >> 5] + __popc(bits[cell >> 5] & ((1u << (cell & 31)) - 1u));
  }
  // After the marks (and sync()): fills the prefixes (one warp), returns the number of cells. Ends with sync().
  __device__ __forceinline__ unsigned scan() const {
    if (tid < 32) {
      const int lane = tid, first = lane * PER;
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
    }
    sync();
    return prefix[W - 1] + __popc(bits[W - 1]);
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
  // f(cell, rank) for every occupied cell, each by one thread, a thread walking PER contiguous words of
  // its own (warp groups only): the fewest steps where words hold few cells (a leaf's rows).
  template <class F>
  __device__ __forceinline__ void for_each(F f) const {
    static_assert(THREADS == 32, "a warp's walk");
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      const int w = tid * PER + i;
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
  // The same, a warp taking 32 words at a time and walking the occupied ones together, lane l taking bit
  // l: neighbouring lanes get neighbouring ranks, so what f stores at its rank is coalesced (for_each made
  // each store of an inner level's lists touch 32 lines: 3x slower on laplacian_large's inner levels,
  // thirty-sixth session), but a word is a step, which costs a leaf of a few cells a word 1.5x.
  template <class F>
  __device__ __forceinline__ void for_each_by_word(F f) const {
    const int lane = tid % 32;
    for (int w0 = tid / 32 * 32; w0 < W; w0 += THREADS) {
      const unsigned mine = w0 + lane < W ? bits[w0 + lane] : 0u;
      unsigned occupied = __ballot_sync(0xffffffffu, mine != 0);
      while (occupied) {
        const int j = __ffs(occupied) - 1;
        occupied &= occupied - 1;
        const unsigned word = __shfl_sync(0xffffffffu, mine, j);
        if ((word >> lane) & 1u) f((w0 + j) * 32 + lane, prefix[w0 + j] + __popc(word & ((1u << lane) - 1u)));
      }
    }
  }
};

// f(cell, child pointer) for every child of an inner node, cells in the orientation read, by the THREADS
// threads of a group (tid: this one's number). A thread loads kHiAddChildBatch children before it calls f
// for any: a small matrix's few inner nodes hold thousands of children each (helmholtz_tiny: four of about
// 3,000), and one load a step made each a chain of ~100 loads for a warp.
constexpr int kHiAddChildBatch = 8;
template <int D, int THREADS, class F>
__device__ __forceinline__ void hi_add_children(const unsigned char* pool, unsigned long long ptr, int trans, int tid,
                                                F f) {
  if (ptr == 0) return;
  const unsigned char* node = pool + (ptr & ~15ull);
  constexpr int K = kHiAddChildBatch;
  if ((ptr & 15) == kHiAddDenseInner) {
    const unsigned long long* c = reinterpret_cast<const unsigned long long*>(node);
    for (int base = 0; base < D * D; base += THREADS * K) {
      unsigned long long p[K];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const int k = base + j * THREADS + tid;
        p[j] = k < D * D ? c[k] : 0ull;
      }
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const int k = base + j * THREADS + tid;
        if (p[j] != 0) f(trans ? (k % D) * D + k / D : k, p[j]);
      }
    }
  } else {
    const unsigned n = *reinterpret_cast<const unsigned*>(node);
    const unsigned short* xy = reinterpret_cast<const unsigned short*>(node + 16);  // row, then col
    const unsigned long long* c = reinterpret_cast<const unsigned long long*>(node + 16 + hi_add_round16(2ull * n));
    for (unsigned base = 0; base < n; base += THREADS * K) {
      unsigned short rc[K];
      unsigned long long p[K];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const unsigned k = base + j * THREADS + tid;
        rc[j] = k < n ? xy[k] : 0;
        p[j] = k < n ? c[k] : 0ull;
      }
#pragma unroll
      for (int j = 0; j < K; ++j) {
        if (base + j * THREADS + tid >= n) continue;
        const int r = rc[j] & 0xff, col = rc[j] >> 8;
        f(trans ? col * D + r : r * D + col, p[j]);
      }
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

// One inner level: items are pairs of inner nodes (or one and nothing). BLOCK_ITEMS false: one warp an
// item at a time (several per block); true: the whole block an item, for a level of few items (the host
// picks it where they fit one wave): a small matrix's few inner nodes hold thousands of children each,
// which a warp walks 32 at a time. Block items: bound to two blocks an SM (64 registers, no spills at
// 512 threads, nvcc -Xptxas -v, sm_90; unbounded it takes 122, one block an SM).
template <class T, int D, int WARPS, bool BLOCK_ITEMS>
__global__ void __launch_bounds__(32 * WARPS, BLOCK_ITEMS ? 2 : 0)
    hisparse_add_inner(const __grid_constant__ HiAddParams<T> p) {
  constexpr int W = D * D / 32;
  constexpr int GROUPS = BLOCK_ITEMS ? 1 : WARPS;     // items in flight in a block
  constexpr int THREADS = BLOCK_ITEMS ? 32 * WARPS : 32;  // threads an item
  __shared__ unsigned bits_all[GROUPS][W];
  __shared__ unsigned short prefix_all[GROUPS][W];
  __shared__ unsigned long long first_thread[GROUPS][2];  // block items: thread 0's node and list offset
  const int group = threadIdx.x / THREADS, tid = threadIdx.x % THREADS;
  const HiAddBitmap<D, THREADS> map{bits_all[group], prefix_all[group], tid};
  // After an overflow the lists of this level may hold unwritten items: stop (the host reports it).
  if (p.state[kHiAddOverflow] != 0) return;
  const unsigned items = min(*p.in_count, p.in_capacity);
  HiAddAllocator<T> alloc;  // used by thread 0 of the group only
  for (unsigned item = blockIdx.x * GROUPS + group; item < items; item += gridDim.x * GROUPS) {
    const unsigned long long pa = p.in_a[item], pb = p.in_b[item];
    map.clear();
    map.sync();
    hi_add_children<D, THREADS>(p.pool_a, pa, p.trans_a, tid, [&](int cell, unsigned long long) { map.mark(cell); });
    hi_add_children<D, THREADS>(p.pool_b, pb, p.trans_b, tid, [&](int cell, unsigned long long) { map.mark(cell); });
    map.sync();
    const unsigned n = map.scan();
    const unsigned long long sparse_bytes = 16 + hi_add_round16(2ull * n) + hi_add_round16(8ull * n);
    const unsigned long long dense_bytes = 8ull * D * D;
    const bool dense = dense_bytes < sparse_bytes;
    unsigned long long at = 0, base = 0;
    if (tid == 0) {
      at = alloc.take(p, dense ? dense_bytes : sparse_bytes);
      base = at == ~0ull ? 0ull : atomicAdd(p.next_count, n);
      if (base + n > p.next_capacity) atomicExch(p.state + kHiAddOverflow, 1ull);
      if (at != ~0ull && base + n <= p.next_capacity)
        hi_add_link(p, p.in_slot[item], at | (dense ? kHiAddDenseInner : kHiAddSparseInner));
      else
        at = ~0ull;
    }
    if constexpr (BLOCK_ITEMS) {
      if (tid == 0) {
        first_thread[group][0] = at;
        first_thread[group][1] = base;
      }
      __syncthreads();
      at = first_thread[group][0];
      base = first_thread[group][1];
    } else {
      at = __shfl_sync(0xffffffffu, at, 0);
      base = __shfl_sync(0xffffffffu, base, 0);
    }
    if (at == ~0ull) continue;  // uniform: the host reports the overflow
    unsigned char* node = p.out + at;
    const unsigned long long pointers = dense ? at : at + 16 + hi_add_round16(2ull * n);
    if (dense) {
      for (int k = tid; k < D * D; k += THREADS) reinterpret_cast<unsigned long long*>(node)[k] = 0;
    } else {
      if (tid < 4) reinterpret_cast<unsigned*>(node)[tid] = tid == 0 ? n : 0u;
      for (unsigned k = 2 * n + tid; k < hi_add_round16(2ull * n); k += THREADS) node[16 + k] = 0;
      if ((n & 1) && tid == 0)  // the pointer array is padded to 16 bytes
        *reinterpret_cast<unsigned long long*>(p.out + pointers + 8ull * n) = 0;
    }
    map.for_each_by_word([&](int cell, unsigned r) {
      if (!dense)  // row, then column
        *reinterpret_cast<unsigned short*>(node + 16 + 2 * r) = static_cast<unsigned short>(cell / D | cell % D << 8);
      p.next_a[base + r] = 0;
      p.next_b[base + r] = 0;
      p.next_slot[base + r] = pointers + 8ull * (dense ? cell : r);
    });
    map.sync();  // the lists' zeros before the children's pointers
    hi_add_children<D, THREADS>(p.pool_a, pa, p.trans_a, tid,
                                [&](int cell, unsigned long long c) { p.next_a[base + map.rank(cell)] = c; });
    hi_add_children<D, THREADS>(p.pool_b, pb, p.trans_b, tid,
                                [&](int cell, unsigned long long c) { p.next_b[base + map.rank(cell)] = c; });
    map.sync();  // the bitmap is cleared for the next item
  }
  if (tid == 0) alloc.finish(p);
}

}  // namespace jitsparse
