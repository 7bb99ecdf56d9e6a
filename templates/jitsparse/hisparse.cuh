// HiSparse SpMV (issue 9): y = alpha op(A) x + beta y on the hierarchical format of core/hisparse.hpp,
// walked through static work lists (core/layout.hpp, outer hisparse) instead of a device-side controller
// (DESIGN.md, JIT facts: CDP2 has no device-side synchronisation).
//
// A strip is D consecutive rows of op(A): a leaf row for A x, a leaf column for A^T x and A^H x (the same
// pool read transposed: Trans). A group of G threads takes one strip at a time and owns D accumulators
// in shared memory, so y is written once per strip, with no global atomics. Strips with many entries
// (the first hs_big_strips of the order) take a whole block: its groups split the strip's leaves (or,
// where it has fewer leaves than groups, the steps of each leaf) and their accumulators are summed in a
// fixed order.
//   COOX leaf, A x:   each thread loads U chunks of X entries and their 8-bit coordinates at once (a wide
//                     load per chunk; U is the schedule's unroll; 3x3 blocks beside CSR leaves load each
//                     entry where it is used). A kernel compiles COO1 and COOX code only (X, the layout's
//                     COO width, is a template number: the pool holds no other COO leaves);
//                     entries are row-major, so sums are formed per run of equal rows in the thread and
//                     joined across the group by a segmented scan of shuffles; the last thread of a row
//                     adds it into the accumulator (one writer per row and step: no atomics).
//   COOX leaf, A^T x: the rows of op(A) are the leaf's columns, in no order: shared atomics.
//   Dense leaf:       A x reduces each row across the group by shuffles; A^T x gives each thread its own
//                     columns (no atomics).
//   CSR leaf:         each thread takes a row (rows lane, lane + G, ... of the leaf, so a step's loads lie
//                     close together) and walks its entries: A x sums them in a register and adds the row
//                     once (its only writer); A^T x loads the row's x element once and adds each product
//                     into its column's accumulator by shared atomics. Row starts come from one scan of the
//                     row lengths per G rows.
//   Batched leaves (-b): leaves smaller than one COO step, several per step (coo_batch).
// Padding of COO leaves is never read; cells of a dense leaf beyond the matrix are skipped.
#pragma once
#include "jitsparse/layouts.cuh"
#include "jitsparse/params.cuh"

namespace jitsparse {

// Node types in the low 4 bits of a pointer (HiNodeType in core/hisparse.hpp).
constexpr unsigned kHiDenseLeaf = 1, kHiCoo1 = 2, kHiCoo2 = 3, kHiCoo4 = 4, kHiCsrLeaf = 7;
constexpr int kHiNoRow = 1 << 20;  // key of a thread without entries: above every local row

// One leaf of a batch (coo_batch): its coordinates (in 16-byte units of the pool), its other-axis block,
// its first chunk in the batch's stream and its entry count.
struct __align__(16) HiBatchLeaf {  // one 16-byte shared load
  unsigned coords16;
  int block;
  int first_chunk;
  unsigned count;
};

// The X (row, col) byte pairs of one thread, from one load of 2X bytes.
template <int X>
struct HiCoords {
  unsigned w[X > 1 ? X / 2 : 1];
  __device__ __forceinline__ void load(const unsigned char* p) {
    if constexpr (X == 1) {
      w[0] = load_matrix(reinterpret_cast<const unsigned short*>(p));
    } else if constexpr (X == 2) {
      w[0] = load_matrix(reinterpret_cast<const unsigned*>(p));
    } else {
      const uint2 v = load_matrix(reinterpret_cast<const uint2*>(p));
      w[0] = v.x;
      w[1] = v.y;
    }
  }
  __device__ __forceinline__ int row(int i) const { return (w[i / 2] >> (16 * (i % 2))) & 0xff; }
  __device__ __forceinline__ int col(int i) const { return (w[i / 2] >> (16 * (i % 2) + 8)) & 0xff; }
};

// Batch: leaves below one step are worked in batches (coo_batch; schedule suffix -b).
template <class T, class E, class Vec, class Mac, int D, int CooX, int G, int U, bool Trans, bool SmallLeaves, bool CsrLeaves,
          bool Batch>
struct HiSparseGroup {
  static constexpr int V = E::V, C = E::C;
  T* acc;         // D x V accumulators of this group (shared)
  int lane;       // 0..G-1
  unsigned mask;  // the group's lanes in the warp
  // The groups of a big strip with fewer leaves than groups share every leaf: group `part` of `parts`
  // takes the steps (dense leaves: rows) of leaf j whose index is part - j modulo parts, so one-step
  // leaves go round the groups too. (With as many leaves as groups or more, they split the leaves.)
  int part = 0, parts = 1;
  HiBatchLeaf* batch = nullptr;  // G slots (shared), coo_batch's leaves
  int* batch_end = nullptr;      // G slots (shared): the stream's chunk after each batched leaf

  __device__ __forceinline__ void add(int row, const T (&s)[V]) const {
#pragma unroll
    for (int i = 0; i < V; ++i) acc[row * V + i] += s[i];
  }
  __device__ __forceinline__ void add_atomic(int row, const T (&s)[V]) const {
#pragma unroll
    for (int i = 0; i < V; ++i) atomicAdd(acc + row * V + i, s[i]);
  }

  __device__ __forceinline__ void entry_at(const T* base, long long k, typename E::Matrix& a) const {
    T s[C];
    load_contiguous<T, C, LoadStreaming>(base + k * C, s);
    E::set(a, s);
  }

  // Chunks of X entries a thread loads per step (the schedule's unroll, U): all their coordinates and
  // entries are loaded first, then (U > 1) all their x elements, before any is used, so a group has U
  // times the loads in flight on its chain of dependent loads (coordinates -> x). Capped at 128 bytes of
  // entries and x elements per thread (32 registers), so a large U does not spill compound entries;
  // beyond the cap the kernels of two U values are the same.
  template <int X>
  __device__ static constexpr int chunks() {
    constexpr int cap = 128 / (X * (C + V) * static_cast<int>(sizeof(T)));
    return U < cap ? U : (cap > 1 ? cap : 1);
  }

  // Wide entries (a chunk of X over 64 bytes: 3x3 blocks) in a kernel that also walks CSR leaves are loaded
  // where they are used, not all at the start of a step: holding them beside the CSR walk's registers
  // spilled 256 bytes (block3 f64, 128x8), and loading them late made elasticity_large 1.37x faster in f64,
  // 1.08x in f32. Without CSR leaves the early loads are faster (f32 1.12x, d 256 1.25x; H100, session 32).
  template <int X>
  __device__ static constexpr bool lazy_entries() { return CsrLeaves && X * C * static_cast<int>(sizeof(T)) > 64; }

  // The segmented inclusive scan of this step's row-run tails over the group (keys never decrease along
  // the lanes) into t, with the key and scanned tail of the lane below and the head key of the lane above.
  __device__ __forceinline__ void scan_tails(const typename E::Vector& tail, int tail_key, int head_key, T (&t)[V],
                                             int& prev_key, T (&prev)[V], int& next_head) const {
    E::get(tail, t);
#pragma unroll
    for (int off = 1; off < G; off <<= 1) {
      const int k_up = __shfl_up_sync(mask, tail_key, off, G);
      T v_up[V];
#pragma unroll
      for (int i = 0; i < V; ++i) v_up[i] = __shfl_up_sync(mask, t[i], off, G);
      if (lane >= off && k_up == tail_key)
#pragma unroll
        for (int i = 0; i < V; ++i) t[i] += v_up[i];
    }
    prev_key = __shfl_up_sync(mask, tail_key, 1, G);
#pragma unroll
    for (int i = 0; i < V; ++i) prev[i] = __shfl_up_sync(mask, t[i], 1, G);
    next_head = __shfl_down_sync(mask, head_key, 1, G);
  }

  // Leaves below one step of coo_leaf<CooX> (G lanes x its X x chunks entries) go to coo_batch: a larger
  // leaf keeps the group's lanes busy by itself, and its own steps ran 1.0-1.6x faster than batched ones on
  // the large grids (H100, session 33: the batch's leaf search lengthens each step's chain of loads).
  static constexpr int kBatchBelow = G * CooX * chunks<CooX>();

  // count: the leaf's entries, read from its header ahead of time by leaves().
  template <int X>
  __device__ __forceinline__ void coo_leaf(const SpmvParams<T>& p, const unsigned char* node, int block,
                                           unsigned count, int first_step) const {
    constexpr int K = chunks<X>(), N = X * K;  // N consecutive entries per thread and step
    constexpr bool kLazy = lazy_entries<X>();
    const unsigned padded = (count + X - 1) / X * X;  // the format pads to a multiple of X (core/hisparse.hpp)
    const unsigned char* coords = node + 16;
    const T* entries = reinterpret_cast<const T*>(node + 16 + ((2 * padded + 15) & ~15u));
    const int x0 = block * D;
    const int steps = (count + G * N - 1) / (G * N);
    for (int st = first_step; st < steps; st += parts) {
      const int i0 = (st * G + lane) * N;
      HiCoords<X> xy[K];
      T s[kLazy ? 1 : N * C];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (i0 + k * X >= static_cast<int>(count)) break;  // a chunk that starts inside the leaf is padded
        xy[k].load(coords + 2 * (i0 + k * X));
        if constexpr (!kLazy) {
          T chunk[X * C];
          load_contiguous<T, X * C, LoadStreaming>(entries + static_cast<long long>(i0 + k * X) * C, chunk);
#pragma unroll
          for (int c = 0; c < X * C; ++c) s[k * X * C + c] = chunk[c];
        }
      }
      // Entry i of the step: from the registers loaded above, or (kLazy) loaded where it is used.
      auto entry_of = [&](int i, typename E::Matrix& a) {
        if constexpr (kLazy) {
          entry_at(entries, i0 + i, a);
        } else {
          T e[C];
#pragma unroll
          for (int c = 0; c < C; ++c) e[c] = s[i * C + c];
          E::set(a, e);
        }
      };
      // x at each entry's column (A x) or row (A^T x): with U > 1 all loaded together, with U = 1 one at a
      // time as the entries are used (the kernel before U existed). Preloading made block3 f64 products
      // 1.47x faster on elasticity_large and quaternion f64 ones 0.81x slower on dirac_large (H100), so
      // the tuner's unroll twins decide.
      constexpr bool kPreload = U > 1;
      typename E::Vector xs[kPreload ? N : 1];
      auto x_of = [&](int i) -> int { return x0 + (Trans ? xy[i / X].row(i % X) : xy[i / X].col(i % X)); };
      if constexpr (kPreload) {
#pragma unroll
        for (int i = 0; i < N; ++i)
          if (i0 + i < static_cast<int>(count)) Vec::template load_x<E>(p, x_of(i), xs[i]);
      }
      if (Trans) {
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if (i0 + i >= static_cast<int>(count)) break;
          typename E::Matrix a;
          entry_of(i, a);
          typename E::Vector pr, xv;
          if constexpr (kPreload) xv = xs[i];
          else Vec::template load_x<E>(p, x_of(i), xv);
          E::zero(pr);
          Mac::template mac<E>(pr, a, xv);
          T out[V];
          E::get(pr, out);
          add_atomic(xy[i / X].col(i % X), out);
        }
      } else {
        // Runs of equal rows inside this thread: the first (head), complete middle ones, the last (tail).
        int head_key = kHiNoRow, tail_key = kHiNoRow;
        typename E::Vector head, tail;
        E::zero(head);
        E::zero(tail);
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if (i0 + i >= static_cast<int>(count)) break;
          const int r = xy[i / X].row(i % X);
          if (r != tail_key && tail_key != kHiNoRow) {
            if (tail_key == head_key) {
              head = tail;
            } else {
              T out[V];
              E::get(tail, out);
              add(tail_key, out);
            }
            E::zero(tail);
          }
          if (head_key == kHiNoRow) head_key = r;
          tail_key = r;
          typename E::Matrix a;
          entry_of(i, a);
          typename E::Vector xv;
          if constexpr (kPreload) xv = xs[i];
          else Vec::template load_x<E>(p, x_of(i), xv);
          Mac::template mac<E>(tail, a, xv);
        }
        T t[V], prev[V];
        int prev_key, next_head;
        scan_tails(tail, tail_key, head_key, t, prev_key, prev, next_head);
        if (head_key != kHiNoRow) {
          if (head_key != tail_key) {  // the head run ends in this thread: complete with what came before
            T h[V];
            E::get(head, h);
            if (lane > 0 && prev_key == head_key)
#pragma unroll
              for (int i = 0; i < V; ++i) h[i] += prev[i];
            add(head_key, h);
          }
          if (lane == G - 1 || next_head != tail_key) add(tail_key, t);
        }
      }
      __syncwarp(mask);
    }
  }

  // Batched COO steps (schedule suffix -b): the COO1 and COO<CooX> leaves below kBatchBelow entries among
  // the group's next G leaves are worked as one stream of X-entry chunks (a COO1 leaf is one chunk, its
  // other entries never read: the device pool has a zeroed tail for the last node), K consecutive chunks a
  // lane and G*K a step, whatever leaf each chunk lies in. A lane finds its first chunk's leaf by a
  // binary search of the batch's chunk ends (shared memory). One leaf at a time, a one-entry leaf took the
  // whole group and left 31 of 32 lanes idle: randomly numbered matrices ran 3.6-4.3x faster batched,
  // irregular meshes 1.0-1.2x, while regular grids ran 1.0-1.3x slower (H100, session 33), so the
  // tuner decides.
  // A x: a run key is (leaf slot, row), so runs never join across leaves; the rows two leaves of a step
  // share are written in slot order (one round a slot of the step), so the sums stay deterministic.
  // ok: this lane's leaf is batched.
  __device__ __forceinline__ void coo_batch(const SpmvParams<T>& p, bool ok, unsigned long long ptr, int block,
                                            unsigned count) const {
    constexpr int X = CooX, K = chunks<X>(), N = X * K;
    constexpr bool kLazy = lazy_entries<X>();
    const int my_chunks = ok ? static_cast<int>((count + X - 1) / X) : 0;
    int end = my_chunks;  // inclusive scan of the chunks over the group
#pragma unroll
    for (int off = 1; off < G; off <<= 1) {
      const int up = __shfl_up_sync(mask, end, off, G);
      if (lane >= off) end += up;
    }
    const int total = __shfl_sync(mask, end, G - 1, G);
    if (total == 0) return;
    const unsigned lanes = (__ballot_sync(mask, ok) & mask) >> (__ffs(mask) - 1);
    const int leaves_n = __popc(lanes);
    if (ok) {
      const int slot = __popc(lanes & ((1u << lane) - 1));
      batch[slot] = HiBatchLeaf{static_cast<unsigned>((ptr & ~15ull) >> 4) + 1u, block, end - my_chunks, count};
      batch_end[slot] = end;
    }
    __syncwarp(mask);
    for (int s0 = 0; s0 < total; s0 += G * K) {
      const int c0 = s0 + lane * K;
      int j = 0;  // the first slot whose end is past c0
#pragma unroll
      for (int w = G / 2; w >= 1; w >>= 1)
        if (j + w - 1 < leaves_n && batch_end[j + w - 1] <= c0) j += w;
      HiCoords<X> xy[K];
      int slot_of[K], x0_of[K];
      const T* chunk_entries[K];
      unsigned valid = 0;  // bit i: entry i of this lane's N is a real entry (not padding, not past the end)
      int last_slot = j;
      T s[kLazy ? 1 : N * C];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int c = c0 + k;
        if (k > 0 && j < leaves_n - 1 && c >= batch_end[j]) ++j;  // every slot holds a chunk at least
        slot_of[k] = j;
        x0_of[k] = 0;
        chunk_entries[k] = nullptr;
        if (c < total) {
          const HiBatchLeaf leaf = batch[j];
          const int q = c - leaf.first_chunk;  // the chunk inside its leaf
          const unsigned padded = (leaf.count + X - 1) / X * X;
          const unsigned char* coords = p.hs_pool + 16ull * leaf.coords16;
          const T* entries = reinterpret_cast<const T*>(coords + ((2 * padded + 15) & ~15u)) +
                             static_cast<long long>(q) * X * C;
          xy[k].load(coords + 2 * q * X);
          chunk_entries[k] = entries;
          x0_of[k] = leaf.block * D;
          last_slot = j;
#pragma unroll
          for (int e = 0; e < X; ++e)
            if (q * X + e < static_cast<int>(leaf.count)) valid |= 1u << (k * X + e);
          if constexpr (!kLazy) {
            T chunk[X * C];
            load_contiguous<T, X * C, LoadStreaming>(entries, chunk);
#pragma unroll
            for (int c2 = 0; c2 < X * C; ++c2) s[k * X * C + c2] = chunk[c2];
          }
        }
      }
      auto entry_of = [&](int i, typename E::Matrix& a) {
        if constexpr (kLazy) {
          T e[C];
          load_contiguous<T, C, LoadStreaming>(chunk_entries[i / X] + (i % X) * C, e);
          E::set(a, e);
        } else {
          T e[C];
#pragma unroll
          for (int c2 = 0; c2 < C; ++c2) e[c2] = s[i * C + c2];
          E::set(a, e);
        }
      };
      auto x_of = [&](int i) -> int {
        return x0_of[i / X] + (Trans ? xy[i / X].row(i % X) : xy[i / X].col(i % X));
      };
      constexpr bool kPreload = U > 1;
      typename E::Vector xs[kPreload ? N : 1];
      if constexpr (kPreload) {
#pragma unroll
        for (int i = 0; i < N; ++i)
          if (valid >> i & 1) Vec::template load_x<E>(p, x_of(i), xs[i]);
      }
      if (Trans) {
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if (!(valid >> i & 1)) continue;
          typename E::Matrix a;
          entry_of(i, a);
          typename E::Vector pr, xv;
          if constexpr (kPreload) xv = xs[i];
          else Vec::template load_x<E>(p, x_of(i), xv);
          E::zero(pr);
          Mac::template mac<E>(pr, a, xv);
          T out[V];
          E::get(pr, out);
          add_atomic(xy[i / X].col(i % X), out);
        }
      } else {
        // Runs of equal keys (slot, row) inside this thread: the first (head), those that begin and end
        // here (middle, recorded at the entry after their last), the last (tail).
        constexpr int M = N > 2 ? N - 2 : 1;
        int head_key = kHiNoRow, tail_key = kHiNoRow;
        int mid_key[M];
        typename E::Vector head, tail, mid[M];
        E::zero(head);
        E::zero(tail);
#pragma unroll
        for (int m = 0; m < M; ++m) mid_key[m] = kHiNoRow;
#pragma unroll
        for (int i = 0; i < N; ++i) {
          if (!(valid >> i & 1)) continue;
          const int r = slot_of[i / X] * 256 + xy[i / X].row(i % X);
          if (r != tail_key && tail_key != kHiNoRow) {
            if (tail_key == head_key) {
              head = tail;
            } else if (i >= 2) {  // a run that ended before entry 1 is the head
              mid[i - 2] = tail;
              mid_key[i - 2] = tail_key;
            }
            E::zero(tail);
          }
          if (head_key == kHiNoRow) head_key = r;
          tail_key = r;
          typename E::Matrix a;
          entry_of(i, a);
          typename E::Vector xv;
          if constexpr (kPreload) xv = xs[i];
          else Vec::template load_x<E>(p, x_of(i), xv);
          Mac::template mac<E>(tail, a, xv);
        }
        T t[V], prev[V];
        int prev_key, next_head;
        scan_tails(tail, tail_key, head_key, t, prev_key, prev, next_head);
        const bool write_head = head_key != kHiNoRow && head_key != tail_key;
        const bool write_tail = head_key != kHiNoRow && (lane == G - 1 || next_head != tail_key);
        T h[V];
        E::get(head, h);
        if (write_head && lane > 0 && prev_key == head_key)
#pragma unroll
          for (int i = 0; i < V; ++i) h[i] += prev[i];
        // One round per leaf slot of the step, in slot order: two slots may hold the same row.
        const int first = __shfl_sync(mask, slot_of[0], 0, G);
        const int last_lane = (min(total - s0, G * K) - 1) / K;
        const int final_slot = __shfl_sync(mask, last_slot, last_lane, G);
        for (int sl = first; sl <= final_slot; ++sl) {
          if (write_head && (head_key >> 8) == sl) add(head_key & 255, h);
#pragma unroll
          for (int m = 0; m < M; ++m)
            if (mid_key[m] != kHiNoRow && (mid_key[m] >> 8) == sl) {
              T o[V];
              E::get(mid[m], o);
              add(mid_key[m] & 255, o);
            }
          if (write_tail && (tail_key >> 8) == sl) add(tail_key & 255, t);
          __syncwarp(mask);
        }
      }
      __syncwarp(mask);
    }
  }

  // Entries of its row a thread of a CSR leaf loads at once, with their columns and then their x elements
  // (so a short row is one round of loads, not a chain per entry): 4 of real f32 entries, 2 up to 16 bytes
  // of entry and x element (real f64, complex f32), else 1, the most that does not spill at 128x8 (every
  // leaf type's code shares the kernel's registers; 4 and 2 at 16 and 32 bytes spilled 40-80 bytes and were
  // up to 1.2x slower on laplacian_large f64 and helmholtz_large f64, H100, session 32).
  static constexpr int kCsrChunk = (C + V) * static_cast<int>(sizeof(T)) <= 8    ? 4
                                   : (C + V) * static_cast<int>(sizeof(T)) <= 16 ? 2
                                                                                 : 1;

  // A CSR leaf (core/hisparse.hpp): header {count, count, rows R}, R row lengths and count columns (bytes),
  // entries row-major. Steps of G rows; with parts > 1 this group takes every parts-th step from first_step.
  __device__ __forceinline__ void csr_leaf(const SpmvParams<T>& p, const unsigned char* node, int block,
                                           unsigned count, int first_step) const {
    constexpr int K = kCsrChunk;
    const int rows = static_cast<int>(load_matrix(reinterpret_cast<const unsigned*>(node + 8)));
    const unsigned char* lengths = node + 16;
    const unsigned char* cols = lengths + rows;
    const T* entries = reinterpret_cast<const T*>(node + 16 + ((rows + count + 15) & ~15u));
    const int x0 = block * D;
    const int steps = (rows + G - 1) / G;
    int base = 0;  // entries of the rows before this step
    int next_len = lane < rows ? static_cast<int>(load_matrix(lengths + lane)) : 0;  // one step ahead
    for (int st = 0; st < steps; ++st) {
      const int r = st * G + lane;
      const int len = next_len;
      if (st + 1 < steps) next_len = r + G < rows ? static_cast<int>(load_matrix(lengths + r + G)) : 0;
      int incl = len;
#pragma unroll
      for (int off = 1; off < G; off <<= 1) {
        const int up = __shfl_up_sync(mask, incl, off, G);
        if (lane >= off) incl += up;
      }
      const int start = base + incl - len;
      base += __shfl_sync(mask, incl, G - 1, G);
      if (st < first_step || (st - first_step) % parts != 0) continue;  // another group's step
      typename E::Vector sum, xr;  // A x: the row's sum; A^T x: the row's x element
      E::zero(sum);
      if (Trans && len > 0) Vec::template load_x<E>(p, x0 + r, xr);
      for (int k0 = 0; k0 < len; k0 += K) {
        int c[K];
        T e[K][C];
#pragma unroll
        for (int j = 0; j < K; ++j)
          if (k0 + j < len) {
            c[j] = load_matrix(cols + start + k0 + j);
            load_contiguous<T, C, LoadStreaming>(entries + static_cast<long long>(start + k0 + j) * C, e[j]);
          }
        if (Trans) {
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (k0 + j < len) {
              typename E::Matrix a;
              E::set(a, e[j]);
              typename E::Vector pr;
              E::zero(pr);
              Mac::template mac<E>(pr, a, xr);
              T out[V];
              E::get(pr, out);
              add_atomic(c[j], out);
            }
        } else {
          typename E::Vector xs[K];
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (k0 + j < len) Vec::template load_x<E>(p, x0 + c[j], xs[j]);
#pragma unroll
          for (int j = 0; j < K; ++j)
            if (k0 + j < len) {
              typename E::Matrix a;
              E::set(a, e[j]);
              Mac::template mac<E>(sum, a, xs[j]);
            }
        }
      }
      if (!Trans && len > 0) {
        T out[V];
        E::get(sum, out);
        add(r, out);
      }
    }
    __syncwarp(mask);
  }

  __device__ __forceinline__ void dense_leaf(const SpmvParams<T>& p, const unsigned char* node, int block,
                                             int first_row) const {
    const T* cells = reinterpret_cast<const T*>(node);
    const int x0 = block * D;
    for (int r = first_row; r < D; r += parts) {
      if (Trans) {
        // Stored row r of the leaf meets x[x0 + r]; each thread owns the columns lane, lane + G, ...
        if (x0 + r >= p.hs_x_len) break;
        typename E::Vector xv;
        Vec::template load_x<E>(p, x0 + r, xv);
        for (int c = lane; c < D; c += G) {
          typename E::Matrix a;
          entry_at(cells, static_cast<long long>(r) * D + c, a);
          typename E::Vector pr;
          E::zero(pr);
          Mac::template mac<E>(pr, a, xv);
          T out[V];
          E::get(pr, out);
          add(c, out);
        }
      } else {
        typename E::Vector sum;
        E::zero(sum);
        for (int c = lane; c < D && x0 + c < p.hs_x_len; c += G) {
          typename E::Matrix a;
          entry_at(cells, static_cast<long long>(r) * D + c, a);
          typename E::Vector xv;
          Vec::template load_x<E>(p, x0 + c, xv);
          Mac::template mac<E>(sum, a, xv);
        }
        T out[V];
        E::get(sum, out);
#pragma unroll
        for (int i = 0; i < V; ++i)
#pragma unroll
          for (int off = G / 2; off > 0; off /= 2) out[i] += __shfl_xor_sync(mask, out[i], off, G);
        if (lane == 0) add(r, out);
      }
    }
    __syncwarp(mask);
  }

  // With SmallLeaves (schedule suffix -s), leaves of at most kSmall entries are worked one per lane: a
  // randomly numbered matrix has a one-entry leaf for nearly every entry, and walking those one after
  // another as a group left 15 of 16 lanes idle on a chain of dependent loads. The lanes then add their
  // products in lane order (deterministic).
  static constexpr int kSmall = V <= 1 ? 4 : V == 2 ? 2 : 1;

  // This lane's own small leaf: its products, added to the accumulators in lane order by the caller.
  struct SmallLeaf {
    int rows[kSmall];
    T sums[kSmall][V];
    int count = 0;
  };
  __device__ __forceinline__ void small_leaf(const SpmvParams<T>& p, unsigned long long ptr, int block,
                                             unsigned count, SmallLeaf& out) const {
    const unsigned type = static_cast<unsigned>(ptr & 15);
    const unsigned x = type == kHiCoo4 ? 4 : type == kHiCoo2 ? 2 : 1;
    const unsigned padded = (count + x - 1) / x * x;
    const unsigned char* node = p.hs_pool + (ptr & ~15ull);
    const unsigned char* coords = node + 16;
    const T* entries = reinterpret_cast<const T*>(node + 16 + ((2 * padded + 15) & ~15u));
    const int x0 = block * D;
    out.count = static_cast<int>(count);
#pragma unroll
    for (int k = 0; k < kSmall; ++k) {
      if (k >= static_cast<int>(count)) break;
      const unsigned rc = load_matrix(reinterpret_cast<const unsigned short*>(coords + 2 * k));
      const int r = rc & 0xff, c = rc >> 8;  // (local row, local col) bytes
      typename E::Matrix a;
      entry_at(entries, k, a);
      typename E::Vector xv, pr;
      Vec::template load_x<E>(p, x0 + (Trans ? r : c), xv);
      E::zero(pr);
      Mac::template mac<E>(pr, a, xv);
      E::get(pr, out.sums[k]);
      out.rows[k] = Trans ? c : r;
    }
  }

  // The leaves first .. last-1 of a strip, every step-th one (a group of a big strip takes a share of the
  // leaves, or with parts > 1 a share of each leaf's steps).
  // The group's lanes first read the pointers, blocks and entry counts of the next G leaves at once, so a
  // leaf's chain of dependent loads (list -> header -> coordinates and entries -> x) starts at its data;
  // small leaves are then worked one per lane, the others by the whole group one after another.
  __device__ __forceinline__ void leaves(const SpmvParams<T>& p, int first, int last, int step) const {
    for (int base = first; base < last; base += step * G) {
      const int mine = base + lane * step;
      unsigned long long my_ptr = 0;
      int my_block = 0;
      unsigned my_count = 0;
      if (mine < last) {
        my_ptr = load_matrix(p.hs_leaf_ptr + mine);
        my_block = load_matrix(p.hs_leaf_block + mine);
        if (static_cast<unsigned>(my_ptr & 15) != kHiDenseLeaf)
          my_count = load_matrix(reinterpret_cast<const unsigned*>(p.hs_pool + (my_ptr & ~15ull)));
      }
      const unsigned my_type = static_cast<unsigned>(my_ptr & 15);
      const bool small = SmallLeaves && mine < last && my_type >= kHiCoo1 && my_type <= kHiCoo4 && my_count <= kSmall;
      const bool small_mine = small && ((mine - first) / step) % parts == part;  // a small leaf is one step
      SmallLeaf own;
      if (small_mine) small_leaf(p, my_ptr, my_block, my_count, own);
      if (SmallLeaves && __ballot_sync(mask, small_mine) != 0) {
        for (int j = 0; j < G; ++j) {  // lane order: the sums' order never changes
          if (lane == j && small_mine)
#pragma unroll
            for (int k = 0; k < kSmall; ++k)
              if (k < own.count) add(own.rows[k], own.sums[k]);
          __syncwarp(mask);
        }
      }
      constexpr unsigned kCooX = CooX == 4 ? kHiCoo4 : CooX == 2 ? kHiCoo2 : kHiCoo1;
      const bool batched = Batch && parts == 1 && mine < last && (my_type == kCooX || my_type == kHiCoo1) &&
                           !small && my_count < kBatchBelow;
      if constexpr (Batch) {
        if (parts == 1) coo_batch(p, batched, my_ptr, my_block, my_count);
      }
      // The other leaves, one after another (the group's bits of the warp's ballot).
      unsigned rest = (__ballot_sync(mask, mine < last && !small && !batched) & mask) >> (__ffs(mask) - 1);
      while (rest != 0) {
        const int j = __ffs(rest) - 1;
        rest &= rest - 1;
        const unsigned long long ptr = __shfl_sync(mask, my_ptr, j, G);
        const int block = __shfl_sync(mask, my_block, j, G);
        const unsigned count = __shfl_sync(mask, my_count, j, G);
        const unsigned char* node = p.hs_pool + (ptr & ~15ull);
        const int share = ((part - (base - first) / step - j) % parts + parts) % parts;  // this group's first step
        // The pool was packed for this layout (core/hisparse_pack.cpp): its COO leaves are COO1 (one entry)
        // or COO<CooX>, so only those two are compiled (COO4 code beside COO2 made compound kernels spill
        // up to 576 bytes at 128x8; without it 3x3 blocks ran 2.2-2.7x faster, H100, session 32).
        const unsigned type = static_cast<unsigned>(ptr & 15);
        if (type == kHiDenseLeaf) dense_leaf(p, node, block, share);
        else if (type == kHiCoo1) coo_leaf<1>(p, node, block, count, share);
        else if (CsrLeaves && type == kHiCsrLeaf) csr_leaf(p, node, block, count, share);
        else coo_leaf<CooX>(p, node, block, count, share);
      }
    }
  }

  __device__ __forceinline__ void zero() const {
    for (int i = lane; i < D * V; i += G) acc[i] = T(0);
    __syncwarp(mask);
  }
};

// CooX: the layout's COO width (hisparse<d>c<X>), the only COO leaves besides COO1 that its pool holds.
// CsrLeaves: the pool may hold CSR leaves (layouts hisparse<d>c<X>r); without them that leaf type's code is
// left out, so the COO-only kernels keep their registers.
template <class T, class E, class Vec, class Mac, int NT, int NB, int D, int CooX, int G, int U, bool Trans,
          bool SmallLeaves, bool CsrLeaves, bool Batch>
__global__ void __launch_bounds__(NT, NB) hisparse_spmv(const __grid_constant__ SpmvParams<T> p) {
  static_assert(NT % 32 == 0 && G >= 4 && G <= 32 && 32 % G == 0, "groups divide the warp");
  constexpr int V = E::V, kGroups = NT / G;
  // The batch tables: 20 bytes a thread (generator/source_gen.cpp, hisparse_shared_bytes, counts them).
  static_assert(sizeof(HiBatchLeaf) + sizeof(int) == 20, "hisparse_shared_bytes counts 20 bytes a thread");
  __shared__ T acc[kGroups][D * V];
  __shared__ HiBatchLeaf batch[Batch ? kGroups : 1][G];
  __shared__ int batch_end[Batch ? kGroups : 1][G];
  const int group = threadIdx.x / G;
  const int warp_lane = threadIdx.x % 32;
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (warp_lane / G * G);
  HiSparseGroup<T, E, Vec, Mac, D, CooX, G, U, Trans, SmallLeaves, CsrLeaves, Batch> g{acc[group], static_cast<int>(threadIdx.x % G), mask};
  if constexpr (Batch) {
    g.batch = batch[group];
    g.batch_end = batch_end[group];
  }
  const int big = p.hs_big_strips;
  if (static_cast<int>(blockIdx.x) < big) {
    // A heavy strip: the block's groups split its leaves, or where it has fewer leaves than groups the
    // steps of each leaf (H100: 1.2-1.7x on small 3x3-block meshes, whose strips hold a few large
    // leaves; splitting steps was 2-3x slower on strips of many small leaves); then they sum their
    // accumulators in group order.
    const int strip = p.hs_strip_order[blockIdx.x];
    const int first = p.hs_strip_begin[strip], last = p.hs_strip_begin[strip + 1];
    g.zero();
    if (last - first >= kGroups) {
      g.leaves(p, first + group, last, kGroups);
    } else {
      g.part = group;
      g.parts = kGroups;
      g.leaves(p, first, last, 1);
    }
    __syncthreads();
    for (int r = threadIdx.x; r < D; r += NT) {
      const int row = strip * D + r;
      if (row >= p.hs_y_len) break;
      T out[V];
#pragma unroll
      for (int i = 0; i < V; ++i) out[i] = T(0);
      for (int k = 0; k < kGroups; ++k)
#pragma unroll
        for (int i = 0; i < V; ++i) out[i] += acc[k][r * V + i];
      Vec::template store_y<E>(p, row, out);
    }
    return;
  }
  // The other strips: one group each at a time, spread over the remaining blocks.
  const int small = p.hs_strips - big;
  const int stride = (gridDim.x - big) * kGroups;
  for (int k = (blockIdx.x - big) * kGroups + group; k < small; k += stride) {
    const int strip = p.hs_strip_order[big + k];
    g.zero();
    g.leaves(p, p.hs_strip_begin[strip], p.hs_strip_begin[strip + 1], 1);
    for (int r = g.lane; r < D; r += G) {
      const int row = strip * D + r;
      if (row >= p.hs_y_len) break;
      T out[V];
#pragma unroll
      for (int i = 0; i < V; ++i) out[i] = acc[group][r * V + i];
      Vec::template store_y<E>(p, row, out);
    }
    __syncwarp(mask);
  }
}

}  // namespace jitsparse
