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

// Warps per block (one item per warp): each holds two d x d bitmaps in shared memory, 32 KB per warp at
// d = 256.
int warps_for(int d) { return d <= 128 ? 4 : 2; }

GeneratedSource add_kernel_source(const std::string& expression) {
  return single_kernel_source("hisparse_add.cuh", expression);
}

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

template <class T>
void launch_levels(const HiAddParams<T>& base, cudaKernel_t inner, cudaKernel_t leaf, int block, int max_grid,
                   int levels, unsigned long long* items, unsigned* counts, const std::vector<uint64_t>& offset,
                   const std::vector<uint64_t>& capacity, cudaStream_t stream) {
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
    }
    void* args[1] = {&p};
    const uint64_t per_block = static_cast<uint64_t>(block / 32);  // items in flight per block
    const unsigned grid = static_cast<unsigned>(std::min<uint64_t>((cap + per_block - 1) / per_block, static_cast<uint64_t>(max_grid)));
    const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(l > 0 ? inner : leaf), dim3(grid),
                                           dim3(static_cast<unsigned>(block)), args, 0, stream);
    if (e != cudaSuccess) cuda_check(e, "launch hisparse add, level " + std::to_string(l));
  }
}

}  // namespace

HiSparseAdd::HiSparseAdd(Context& ctx, const DeviceHiSparse& a, Op op_a, const DeviceHiSparse& b, Op op_b)
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
  const int warps = warps_for(d);
  block_ = 32 * warps;
  const std::string t = a.precision() == Precision::f64 ? "double" : "float";
  const std::string dims = std::to_string(d) + ", " + std::to_string(warps) + ">";
  inner_ = ctx.kernel(add_kernel_source("jitsparse::hisparse_add_inner<" + t + ", " + dims));
  leaf_ = ctx.kernel(add_kernel_source("jitsparse::hisparse_add_leaf<" + t + ", " +
                                       std::to_string(a.entry().num_components()) + ", " + dims));

  // C's pool: no output node is larger than its two inputs together plus the slack of a different COO
  // width or a leaf that could be dense in B but not in C (runtime/hisparse_add.hpp).
  levels_ = a.levels();
  const uint64_t nodes = static_cast<uint64_t>(a.nodes() + b.nodes());
  uint64_t bound = a.pool_bytes() + b.pool_bytes() + nodes * (64 + 4 * static_cast<uint64_t>(a.entry_bytes()));
  if (!a.options().dense_leaves) bound += static_cast<uint64_t>(b.level_nodes()[0]) * (2ull * d * d + 16);
  // and a byte an entry where an input's CSR leaf (a byte of coordinates an entry) becomes a COO leaf (two)
  bound += (a.pool_bytes() + b.pool_bytes()) / static_cast<uint64_t>(a.entry_bytes());
  // Warps place nodes in chunks (templates/jitsparse/hisparse_add.cuh): at least 3/4 of each is used,
  // but a warp's last chunk of each level may be nearly empty. Chunks of about a quarter of a warp's
  // share keep that slack near the bound's size.
  max_grid_ = std::max(1, ctx.device().sm_count * std::max(1, ctx.device().max_threads_per_sm / block_));
  const uint64_t allocators = static_cast<uint64_t>(max_grid_) * warps;
  chunk_ = std::clamp<uint64_t>(bound / (4ull * allocators) / 16 * 16, 256, 16384);
  capacity_ = (bound + bound / 3 + static_cast<uint64_t>(a.levels()) * allocators * chunk_ + 15) / 16 * 16;
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
    launch_levels(p, inner_, leaf_, block_, max_grid_, levels_, items_.as<unsigned long long>(), counts_.as<unsigned>(),
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
