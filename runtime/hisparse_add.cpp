#include "runtime/hisparse_add.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/entry_adjoint.hpp"
#include "core/error.hpp"
#include "generator/source_gen.hpp"
#include "runtime/cuda_check.hpp"
#include "templates/jitsparse/hisparse_add_params.cuh"

namespace jitsparse {
namespace {

// Warps per block (one item per warp on the inner levels and for the leaf level's big items): each holds
// a d x d bitmap in shared memory (4-byte words, 2-byte prefixes), 24 KB a warp at d = 256. The kernel for
// pairs of one-entry leaves takes 32 items a warp and no shared memory.
int warps_for(int d) { return d <= 128 ? 4 : 2; }
constexpr int kSmallLeafWarps = 4;
// Warps of a block that takes one inner item (one bitmap a block): 512 threads load a d = 64 node's 4,096
// children in one round of kHiAddChildBatch each.
constexpr int kBlockItemWarps = 16;

// The entry map of op h as scalars of the precision; empty for n and t or an identity map.
std::vector<double> entry_map(const EntryType& e, Op op) {
  if (op != Op::h) return {};
  std::vector<double> m = entry_adjoint_map(e);
  const int c = e.num_components();
  for (int i = 0; i < c; ++i)
    for (int j = 0; j < c; ++j)
      if (m[i * c + j] != (i == j ? 1.0 : 0.0)) return m;
  return {};  // real entries: the adjoint is the entry
}

DeviceBuffer upload_map(const std::vector<double>& m, Precision p, cudaStream_t stream) {
  if (m.empty()) return {};
  if (p == Precision::f64) {
    DeviceBuffer b(m.size() * 8, "hisparse add entry map");
    b.upload(m.data(), m.size() * 8, stream);
    return b;
  }
  std::vector<float> f(m.begin(), m.end());
  DeviceBuffer b(f.size() * 4, "hisparse add entry map");
  b.upload(f.data(), f.size() * 4, stream);
  return b;
}

// enqueue() is timed, so the error's words are put together only when a launch fails.
void launch(cudaKernel_t k, unsigned grid, int block, void* params, int level, const char* what, cudaStream_t stream) {
  void* args[1] = {params};
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(grid), dim3(static_cast<unsigned>(block)),
                                         args, 0, stream);
  if (e != cudaSuccess) cuda_check(e, "launch hisparse add, level " + std::to_string(level) + what);
}

unsigned grid_for(uint64_t items, uint64_t per_block, int max_grid) {
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((items + per_block - 1) / per_block, static_cast<uint64_t>(max_grid))));
}

template <class T>
void launch_levels(const HiAddParams<T>& base, const HiSparseAdd::Kernels& k, int levels, unsigned long long* items,
                   unsigned* counts, const std::vector<uint64_t>& offset, const std::vector<uint64_t>& capacity,
                   cudaStream_t stream) {
  for (int l = levels - 1; l >= 0; --l) {
    HiAddParams<T> p = base;
    const uint64_t cap = capacity[l];
    p.in_a = items + offset[l];
    p.in_b = items + offset[l] + cap;
    p.in_slot = items + offset[l] + 2 * cap;
    p.in_count = counts + l;
    p.in_capacity = static_cast<unsigned>(cap);
    if (l > 0) {
      const uint64_t next = capacity[l - 1];
      p.next_a = items + offset[l - 1];
      p.next_b = items + offset[l - 1] + next;
      p.next_slot = items + offset[l - 1] + 2 * next;
      p.next_count = counts + l - 1;
      p.next_capacity = static_cast<unsigned>(next);
      const bool block_items = k.schedule == HiSparseAdd::InnerSchedule::block_per_item ||
                               (k.schedule == HiSparseAdd::InnerSchedule::by_level_size &&
                                cap <= static_cast<uint64_t>(k.max_grid_block_items));
      if (block_items)
        launch(k.inner_block_items, grid_for(cap, 1, k.max_grid_block_items), 32 * kBlockItemWarps, &p, l,
               ", a block an item", stream);
      else
        launch(k.inner, grid_for(cap, k.inner_block / 32, k.max_grid_inner), k.inner_block, &p, l, "", stream);
    } else {
      launch(k.leaf_small, grid_for(cap, 32 * kSmallLeafWarps, k.max_grid_small), 32 * kSmallLeafWarps, &p, 0,
             " (leaves), one-entry pairs", stream);
      launch(k.leaf_big, grid_for(cap, k.big_block / 32, k.max_grid_big), k.big_block, &p, 0, " (leaves)", stream);
    }
  }
}

}  // namespace

HiSparseAddSources hisparse_add_sources(Precision p, int components, int d) {
  const std::string t = p == Precision::f64 ? "double" : "float", c = std::to_string(components), dd = std::to_string(d);
  auto leaf = [&](const char* kernel, int warps) {
    return single_kernel_source("hisparse_add_leaf.cuh", std::string("jitsparse::") + kernel + "<" + t + ", " + c + ", " + dd +
                                                             ", " + std::to_string(warps) + ">");
  };
  auto inner = [&](int warps, bool block_items) {
    return single_kernel_source("hisparse_add.cuh", "jitsparse::hisparse_add_inner<" + t + ", " + dd + ", " +
                                                        std::to_string(warps) + (block_items ? ", true>" : ", false>"));
  };
  return {inner(warps_for(d), false), inner(kBlockItemWarps, true), leaf("hisparse_add_leaf_small", kSmallLeafWarps),
          leaf("hisparse_add_leaf_big", warps_for(d))};
}

HiSparseAdd::HiSparseAdd(Context& ctx, const DeviceHiSparse& a, Op op_a, const DeviceHiSparse& b, Op op_b,
                         InnerSchedule schedule)
    : ctx_(&ctx), a_(&a), b_(&b), trans_a_(a.transposed() != is_transposed(op_a)),
      trans_b_(b.transposed() != is_transposed(op_b)) {
  const std::string who = "hisparse add: ";
  if (a.entry().name != b.entry().name)
    throw InvalidArgument(who + "A holds '" + a.entry().name + "' entries, B '" + b.entry().name + "'");
  if (a.precision() != b.precision())
    throw InvalidArgument(who + "A is in " + to_string(a.precision()) + ", B in " + to_string(b.precision()));
  if (a.options().d != b.options().d)
    throw InvalidArgument(who + "A has nodes of width " + std::to_string(a.options().d) + ", B of width " +
                          std::to_string(b.options().d) + " (build both with the same d)");
  const int64_t ar = is_transposed(op_a) ? a.cols() : a.rows(), ac = is_transposed(op_a) ? a.rows() : a.cols();
  const int64_t br = is_transposed(op_b) ? b.cols() : b.rows(), bc = is_transposed(op_b) ? b.rows() : b.cols();
  if (ar != br || ac != bc)
    throw InvalidArgument(who + "op(A) is " + std::to_string(ar) + " x " + std::to_string(ac) + ", op(B) is " +
                          std::to_string(br) + " x " + std::to_string(bc));
  if (a.levels() != b.levels()) throw Error(who + "trees of one size with different depths (a bug)");
  map_a_ = upload_map(entry_map(a.entry(), op_a), a.precision(), ctx.stream());
  map_b_ = upload_map(entry_map(b.entry(), op_b), b.precision(), ctx.stream());

  const int d = a.options().d;
  const HiSparseAddSources sources = hisparse_add_sources(a.precision(), a.entry().num_components(), d);
  kernels_.inner = ctx.kernel(sources.inner);
  kernels_.inner_block_items = ctx.kernel(sources.inner_block_items);
  kernels_.schedule = schedule;
  kernels_.leaf_small = ctx.kernel(sources.leaf_small);
  kernels_.leaf_big = ctx.kernel(sources.leaf_big);

  // C's pool: no output node is larger than its two inputs together plus the slack of a different COO
  // width or a leaf that could be dense in B but not in C (runtime/hisparse_add.hpp).
  levels_ = a.levels();
  const uint64_t nodes = static_cast<uint64_t>(a.nodes() + b.nodes());
  uint64_t bound = a.pool_bytes() + b.pool_bytes() + nodes * (64 + 4 * static_cast<uint64_t>(a.entry_bytes()));
  if (!a.options().dense_leaves) bound += static_cast<uint64_t>(b.level_nodes()[0]) * (2ull * d * d + 16);
  // and a byte an entry where an input's CSR leaf (a byte of coordinates an entry) becomes a COO leaf (two)
  bound += (a.pool_bytes() + b.pool_bytes()) / static_cast<uint64_t>(a.entry_bytes());
  // Warps place nodes in chunks (templates/jitsparse/hisparse_add.cuh): at least 3/4 of each is used,
  // but a warp's last chunk of each kernel may be nearly empty. Chunks of about a quarter of a warp's
  // share keep that slack near the bound's size.
  const int threads_per_sm = ctx.device().max_threads_per_sm, sms = ctx.device().sm_count;
  // One wave: as many blocks as are resident at once. The grid-stride loops give every warp an equal share
  // of the items, so blocks beyond the resident ones (a grid of threads_per_sm / block a SM, where registers
  // allow 9 of 16) ran as a second wave behind the first, and more resident warps gained nothing.
  auto grid_of = [&](cudaKernel_t k, int block) {
    int resident = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, reinterpret_cast<const void*>(k), block, 0) != cudaSuccess ||
        resident < 1) {
      (void)cudaGetLastError();  // not sticky: cleared, and the old bound kept
      resident = std::max(1, threads_per_sm / block);
    }
    return std::max(1, sms * resident);
  };
  kernels_.inner_block = kernels_.big_block = 32 * warps_for(d);
  kernels_.max_grid_inner = grid_of(kernels_.inner, kernels_.inner_block);
  kernels_.max_grid_block_items = grid_of(kernels_.inner_block_items, 32 * kBlockItemWarps);
  kernels_.max_grid_big = grid_of(kernels_.leaf_big, kernels_.big_block);
  kernels_.max_grid_small = grid_of(kernels_.leaf_small, 32 * kSmallLeafWarps);
  const uint64_t inner_allocators = std::max<uint64_t>(static_cast<uint64_t>(kernels_.max_grid_inner) * warps_for(d),
                                                      static_cast<uint64_t>(kernels_.max_grid_block_items));
  const uint64_t leaf_allocators = static_cast<uint64_t>(kernels_.max_grid_small) * kSmallLeafWarps +
                                   static_cast<uint64_t>(kernels_.max_grid_big) * warps_for(d);
  chunk_ = std::clamp<uint64_t>(bound / (4ull * std::max(inner_allocators, leaf_allocators)) / 16 * 16, 256, 16384);
  const uint64_t slack = (static_cast<uint64_t>(levels_ - 1) * inner_allocators + leaf_allocators) * chunk_;
  capacity_ = (bound + bound / 3 + slack + 15) / 16 * 16;
  out_ = DeviceBuffer(std::max<uint64_t>(capacity_, 16), "hisparse add: C's pool");
  state_ = DeviceBuffer(kHiAddStateWords * sizeof(unsigned long long), "hisparse add state");

  // Work lists: a level of C has at most the nodes of both trees there; the top holds the roots.
  level_offset_.assign(levels_, 0);
  level_capacity_.assign(levels_, 0);
  uint64_t total = 0;
  for (int l = levels_ - 1; l >= 0; --l) {
    level_capacity_[l] = l == levels_ - 1 ? 1 : static_cast<uint64_t>(a.level_nodes()[l] + b.level_nodes()[l]);
    if (level_capacity_[l] > 0xffffffffull) throw InvalidArgument(who + "more than 2^32 nodes on one level");
    level_offset_[l] = total;
    total += 3 * std::max<uint64_t>(level_capacity_[l], 1);
  }
  items_ = DeviceBuffer(total * sizeof(unsigned long long), "hisparse add work lists");
  counts_ = DeviceBuffer(levels_ * sizeof(unsigned), "hisparse add counters");
  big_items_ = DeviceBuffer(std::max<uint64_t>(level_capacity_[0], 1) * sizeof(unsigned), "hisparse add big leaf items");
  const unsigned long long top[3] = {a.root(), b.root(), kHiAddRootSlot};
  cuda_check(cudaMemcpyAsync(items_.as<unsigned long long>() + level_offset_[levels_ - 1], top, sizeof top,
                             cudaMemcpyHostToDevice, ctx.stream()),
             "upload the roots of hisparse add");
  const unsigned one = a.root() != 0 || b.root() != 0 ? 1u : 0u;
  cuda_check(cudaMemcpyAsync(counts_.as<unsigned>() + levels_ - 1, &one, sizeof one, cudaMemcpyHostToDevice, ctx.stream()),
             "upload the root count of hisparse add");
  ctx.synchronize();  // `top` and `one` live on this stack
}

void HiSparseAdd::enqueue(double alpha, double beta) {
  if (!out_.get()) throw InvalidArgument("hisparse add: the plan's result was taken; make a new plan");
  cudaStream_t s = ctx_->stream();
  cuda_check(cudaMemsetAsync(state_.get(), 0, state_.bytes(), s), "reset hisparse add state");
  if (levels_ > 1) cuda_check(cudaMemsetAsync(counts_.get(), 0, (levels_ - 1) * sizeof(unsigned), s), "reset hisparse add counters");
  alpha_ = alpha;
  beta_ = beta;
  enqueued_ = true;
  if (a_->root() == 0 && b_->root() == 0) return;  // C is empty
  auto fill = [&](auto& p) {
    using T = std::remove_reference_t<decltype(p.coef_a)>;
    p.pool_a = a_->pool();
    p.pool_b = b_->pool();
    p.out = out_.as<unsigned char>();
    p.capacity = capacity_;
    p.chunk = chunk_;
    p.state = state_.as<unsigned long long>();
    p.map_a = map_a_.as<const T>();
    p.map_b = map_b_.as<const T>();
    p.coef_a = static_cast<T>(alpha * a_->scale());
    p.coef_b = static_cast<T>(beta * b_->scale());
    p.trans_a = trans_a_;
    p.trans_b = trans_b_;
    p.dense_leaves = a_->options().dense_leaves;
    p.csr_leaves = a_->options().csr_leaves;
    p.coo_width = a_->options().coo_width;
    p.big_items = big_items_.as<unsigned>();
    launch_levels(p, kernels_, levels_, items_.as<unsigned long long>(), counts_.as<unsigned>(),
                  level_offset_, level_capacity_, s);
  };
  if (a_->precision() == Precision::f64) {
    HiAddParams<double> p{};
    fill(p);
  } else {
    HiAddParams<float> p{};
    fill(p);
  }
}

DeviceHiSparse HiSparseAdd::take_result() {
  if (!enqueued_) throw InvalidArgument("hisparse add: take_result() before enqueue()");
  if (!out_.get()) throw InvalidArgument("hisparse add: the result was already taken");
  unsigned long long state[kHiAddStateWords];
  state_.download(state, sizeof state, ctx_->stream());
  std::vector<unsigned> counts(levels_);
  counts_.download(counts.data(), counts.size() * sizeof(unsigned), ctx_->stream());
  if (state[kHiAddOverflow] != 0)
    throw Error("hisparse add: C outgrew its pool bound of " + std::to_string(capacity_) + " bytes (a bug)");
  DeviceHiSparse c;
  c.entry_ = a_->entry();
  c.name_ = a_->name() + "+" + b_->name();
  c.precision_ = a_->precision();
  c.rows_ = static_cast<int32_t>(trans_a_ ? a_->stored_cols() : a_->stored_rows());
  c.cols_ = static_cast<int32_t>(trans_a_ ? a_->stored_rows() : a_->stored_cols());
  c.options_ = a_->options();
  c.level_nodes_.assign(counts.begin(), counts.end());
  c.span_bytes_ = std::min<uint64_t>(state[kHiAddUsed], capacity_);
  c.node_bytes_ = state[kHiAddNodeBytes];
  c.root_ = state[kHiAddRoot];
  c.pool_ = std::move(out_);
  enqueued_ = false;
  return c;
}

DeviceHiSparse hisparse_add(Context& ctx, const DeviceHiSparse& a, Op op_a, const DeviceHiSparse& b, Op op_b,
                            double alpha, double beta) {
  HiSparseAdd plan(ctx, a, op_a, b, op_b);
  plan.enqueue(alpha, beta);
  return plan.take_result();
}

}  // namespace jitsparse
