#pragma once
#include <cstdint>
#include <vector>

#include "core/op.hpp"
#include "core/precision.hpp"
#include "generator/source_gen.hpp"
#include "runtime/context.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_hisparse.hpp"

namespace jitsparse {

// C = alpha op_a(A) + beta op_b(B) on the GPU, HiSparse in and out (issue 9), by the dual traversal of
// templates/jitsparse/hisparse_add.cuh and hisparse_add_leaf.cuh: a launch per inner tree level, two for the
// leaves (pairs of one-entry leaves a lane each, then the rest a warp each), output nodes taken from a pool.
// op is applied on top of each operand's own state (transpose flag, scale); op h stores adjoint entries
// (core/entry_adjoint.hpp: refused for a type whose adjoint is not an entry of the type). C is stored
// untransposed with scale 1, with A's node width, COO width and dense-leaf rule.
//
// A plan: the constructor checks the operands, compiles its kernels (NVRTC, cubin cache) and
// allocates C's pool and the work lists for the worst case (every node of both trees distinct), so
// enqueue() only launches and can be timed; take_result() waits and hands over C.
// The NVRTC sources of the addition's kernels for one precision, entry size (scalars) and node width: an
// inner level's in its two forms (a warp an item; a block an item), and the leaf level's two (pairs of
// one-entry leaves; the rest).
struct HiSparseAddSources {
  GeneratedSource inner, inner_block_items, leaf_small, leaf_big;
};
HiSparseAddSources hisparse_add_sources(Precision p, int components, int d);

class HiSparseAdd {
 public:
  // How an inner level's items are shared out: a warp an item, or a block an item where a level's items
  // (at most the nodes of both trees there) fit one wave of such blocks. Tests force either.
  enum class InnerSchedule { by_level_size, warp_per_item, block_per_item };
  struct Kernels {
    cudaKernel_t inner = nullptr, inner_block_items = nullptr, leaf_small = nullptr, leaf_big = nullptr;
    int inner_block = 128, big_block = 128;  // threads (a block item's block: kBlockItemWarps in the .cpp)
    // blocks: a full GPU's resident threads (one wave)
    int max_grid_inner = 1, max_grid_block_items = 1, max_grid_big = 1, max_grid_small = 1;
    InnerSchedule schedule = InnerSchedule::by_level_size;
  };

  // The plan keeps pointers to a and b: they must outlive it. Throws InvalidArgument when the entry types, precisions, node widths or the sizes of op_a(A) and
  // op_b(B) differ, or op h is asked of a type without an entry adjoint.
  HiSparseAdd(Context& ctx, const DeviceHiSparse& a, Op op_a, const DeviceHiSparse& b, Op op_b,
              InnerSchedule schedule = InnerSchedule::by_level_size);

  // The launches on ctx.stream() (no host synchronisation). Reuses C's pool: run again after
  // take_result() only with a fresh plan.
  void enqueue(double alpha, double beta);
  // Waits for the stream and returns C. Throws Error if the pool bound was exceeded (a bug: it cannot
  // happen for valid operands) and InvalidArgument if called before enqueue().
  DeviceHiSparse take_result();

  uint64_t capacity_bytes() const { return capacity_; }
  int levels() const { return levels_; }

 private:
  Context* ctx_;
  const DeviceHiSparse* a_;
  const DeviceHiSparse* b_;
  bool trans_a_, trans_b_;
  DeviceBuffer map_a_, map_b_;  // op h: the entry adjoint as C x C scalars of the precision
  Kernels kernels_;
  int levels_ = 1;
  uint64_t capacity_ = 0;
  uint64_t chunk_ = 256;
  DeviceBuffer out_, state_, items_, counts_, big_items_;
  std::vector<uint64_t> level_offset_, level_capacity_;  // items of each level in items_
  bool enqueued_ = false;
  double alpha_ = 1, beta_ = 1;
};

// One addition: plan, enqueue, result.
DeviceHiSparse hisparse_add(Context& ctx, const DeviceHiSparse& a, Op op_a, const DeviceHiSparse& b, Op op_b,
                            double alpha = 1, double beta = 1);

}  // namespace jitsparse
