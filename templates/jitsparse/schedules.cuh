// How blocks walk over row chunks. Every thread of a block runs the same chunks, so warp-wide
// shuffles inside a chunk are safe.
#pragma once

namespace jitsparse {

// Grid-stride over chunks; the grid is blocks-per-SM x SM count. The blocks running at once sweep
// neighbouring chunks, and that counts more than the tail it leaves (819,200 rows in 1,600 chunks of
// 512 on 528 blocks: 16 blocks run a fourth chunk). Balanced shares of 32-row units per block ran slower
// on the H100 (twenty-fifth session, cold, the winners of the main and the 250 MB irregular set): a
// contiguous share per block 0.972x / 0.924x on the geometric mean, units grid-strided warp-major
// 0.955x / 0.852x (sorted sells down to 0.60x).
struct StaticSchedule {
  template <class F>
  __device__ __forceinline__ static void run(unsigned*, int num_chunks, F&& body) {
    for (int c = blockIdx.x; c < num_chunks; c += gridDim.x) body(c);
  }
};

// Blocks take chunks from an atomic counter. The last block to finish resets the counters, so the
// next launch on the stream starts from zero with no memset in between.
struct DynamicSchedule {
  template <class F>
  __device__ __forceinline__ static void run(unsigned* counters, int num_chunks, F&& body) {
    __shared__ int next[2];  // double-buffered: one barrier per chunk
    int turn = 0;
    if (threadIdx.x == 0) next[0] = static_cast<int>(atomicAdd(counters, 1u));
    __syncthreads();
    for (;;) {
      const int c = next[turn];
      if (c >= num_chunks) break;
      if (threadIdx.x == 0) next[turn ^ 1] = static_cast<int>(atomicAdd(counters, 1u));
      body(c);
      __syncthreads();
      turn ^= 1;
    }
    if (threadIdx.x == 0) {
      __threadfence();
      if (atomicAdd(counters + 1, 1u) == gridDim.x - 1) {
        atomicExch(counters, 0u);
        atomicExch(counters + 1, 0u);
      }
    }
  }
};

}  // namespace jitsparse
