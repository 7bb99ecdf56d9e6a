#include "runtime/spmv.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/hisparse_pack.hpp"
#include "generator/source_gen.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {
namespace {

void check_match(const Variant& v, const DeviceMatrix& a, const DeviceVector& x, const DeviceVector& y) {
  const std::string who = "variant " + v.name() + ": ";
  if (v.entry != a.entry()) throw InvalidArgument(who + "the matrix holds '" + a.entry() + "' entries");
  if (v.precision != a.precision()) throw InvalidArgument(who + "the matrix is packed in " + to_string(a.precision()));
  if (!v.layout.same_matrix_arrays(a.layout()))  // the vector layout is the vectors' (checked below)
    throw InvalidArgument(who + "the matrix is packed as " + a.layout().name());
  if (v.uses_transposed_copy() != a.is_transposed_copy())
    throw InvalidArgument(who + (a.is_transposed_copy() ? "the matrix is a transposed copy, which only copy-kind "
                                                          "variants of op t and h use"
                                                        : "the copy kind runs on a transposed copy of the matrix "
                                                          "(DeviceMatrix::transposed or for_variant)"));
  // op t/h on the matrix itself (atomic and tree kinds) reads x by stored row and writes y by stored column.
  const bool scatter = v.op != Op::n && !v.uses_transposed_copy();
  const int64_t x_len = scatter ? a.rows() : a.cols(), y_len = scatter ? a.cols() : a.rows();
  const int vc = a.packed().vector_components;
  auto check_vec = [&](const DeviceVector& vec, int64_t n, const char* name) {
    if (vec.size() != n)
      throw InvalidArgument(who + name + " has " + std::to_string(vec.size()) + " elements, the " +
                            std::to_string(a.rows()) + " x " + std::to_string(a.cols()) + " matrix needs " +
                            std::to_string(n));
    if (vec.vector_components() != vc)
      throw InvalidArgument(who + name + " has " + std::to_string(vec.vector_components()) +
                            " components per element, the entry type needs " + std::to_string(vc));
    if (vec.layout() != v.layout.vector) throw InvalidArgument(who + name + " is not in the variant's vector layout");
    if (vec.precision() != v.precision) throw InvalidArgument(who + name + " is not in " + to_string(v.precision));
  };
  check_vec(x, x_len, "x");
  check_vec(y, y_len, "y");
  if (x.data() == y.data() && x.size() > 0) throw InvalidArgument(who + "x and y must not be the same vector");
  if (v.ordering != a.ordering())
    throw InvalidArgument(who + (a.ordering() == Ordering::none
                                     ? "it renumbers the matrix: build it with DeviceMatrix::for_variant"
                                     : "the matrix is renumbered (" + to_string(a.ordering()) +
                                           "), which only variants ending in " + ordering_suffix(a.ordering()) + " run"));
}

// permute_vector<T, V, soa> of templates/jitsparse/permute.cuh, compiled once per context.
cudaKernel_t permute_kernel(Context& ctx, Precision p, int components, VectorLayout layout) {
  return ctx.kernel(permute_source(p, components, layout));
}

// JITSPARSE_PROGRAMMATIC_LAUNCH=0 launches the kernel after its prologue the plain way.
bool programmatic_launch_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("JITSPARSE_PROGRAMMATIC_LAUNCH");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return allowed;
}

// The kernel of a two-kernel product, allowed to start before its prologue ends: it waits for the
// prologue's writes itself (templates/jitsparse/grid_dependency.cuh).
cudaError_t launch_after_prologue(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, cudaStream_t stream) {
  cudaLaunchAttribute attribute[1] = {};
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), args);
}

}  // namespace

SpmvLaunch::SpmvLaunch(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x,
                       DeviceVector& y, double alpha, double beta)
    : ctx_(&ctx), variant_(v) {
  check_match(v, a, x, y);
  const DeviceInfo& d = ctx.device();
  const DeviceVector* xk = &x;  // what the product kernel reads
  DeviceVector* yk = &y;        // what it writes
  double product_beta = beta;
  const int* y_map = nullptr;
  const void* x_caller = nullptr;  // hola: its prologue moves x (SpmvParams::x_caller)
  if (v.ordering != Ordering::none) {
    n_ = a.rows();
    x_perm_ = std::make_shared<DeviceVector>(ctx, x.size(), x.vector_components(), x.layout(), x.precision());
    permute_ = permute_kernel(ctx, v.precision, x.vector_components(), x.layout());
    // x'[new] = x[inverse[new]]
    move_x_ = {x.data(), x_perm_->data(), a.inverse_permutation(), x.stride(), 0.0};
    xk = x_perm_.get();
    if (v.renumbered_y == RenumberedY::moved) {
      // the product writes y' = alpha P A P^T x' in order; then y[old] = y'[perm[old]] + beta y[old]
      y_scratch_ = std::make_shared<DeviceVector>(ctx, y.size(), y.vector_components(), y.layout(), y.precision());
      move_y_ = {y_scratch_->data(), y.data(), a.permutation(), y.stride(), beta};
      yk = y_scratch_.get();
      product_beta = 0;
    } else {
      y_map = a.inverse_permutation();  // element new of the result goes to y[inverse[new]]
    }
    if (v.layout.outer == OuterLayout::hola) {
      x_caller = x.data();  // hola_prepare moves x through SpmvParams::x_map
      move_x_in_prologue_ = true;
    }
  }
  check_variant(v, d.max_threads_per_block, d.max_threads_per_sm, d.max_blocks_per_sm);
  kernel_ = ctx.kernel(v);
  if (v.has_prologue()) prologue_ = ctx.prologue(v);
  programmatic_ = prologue_ && d.major >= 9 && programmatic_launch_allowed();
  block_ = dim3(static_cast<unsigned>(v.schedule.threads));
  const long long rows = a.rows(), cols = a.cols();
  int* block_row = nullptr;
  int32_t big_strips = 0;  // hisparse
  if (v.layout.outer == OuterLayout::hola) {
    // A fixed share of the entries per block; the first kernel visits every row (and column, if it
    // scales y for the atomic kind).
    const long long per_block = v.schedule.entries_per_block();
    const long long blocks = (a.packed().nnz + per_block - 1) / per_block;
    if (blocks > 0x7fffffffLL) throw InvalidArgument("variant " + v.name() + ": too many blocks for this matrix");
    grid_ = dim3(static_cast<unsigned>(blocks));
    block_row = a.hola_workspace(blocks + 1);
    const long long visit = v.op != Op::n && v.transpose == TransposeKind::atomic ? std::max(rows, cols) : rows;
    prologue_grid_ = dim3(static_cast<unsigned>((visit + 255) / 256));
  } else if (v.layout.outer == OuterLayout::hisparse) {
    // A block for each big strip, then n_b x SM count blocks (at most one group per strip) for the rest.
    const PackedMatrix::HiStrips& strips = hisparse_strips(a.packed(), v.op);
    big_strips = hisparse_big_strips(strips, v.schedule.big_strip);
    const long long big = big_strips;
    const long long small = static_cast<long long>(strips.strip_order.size()) - big;
    const long long groups = v.schedule.threads / v.schedule.threads_per_row;
    const long long small_blocks =
        std::min<long long>(static_cast<long long>(v.schedule.blocks_per_sm) * d.sm_count, (small + groups - 1) / groups);
    grid_ = dim3(static_cast<unsigned>(big + small_blocks));
  } else {
    grid_ = dim3(static_cast<unsigned>(row_kernel_blocks(rows, v.schedule, d.sm_count)));
    prologue_grid_ = dim3(static_cast<unsigned>(std::min<long long>((cols + 255) / 256, 8LL * d.sm_count)));
  }
  const bool hisparse = v.layout.outer == OuterLayout::hisparse;
  auto fill = [&](auto& p) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(p.x)>>;
    p = make_spmv_params<T>(a, *xk, *yk, alpha, product_beta);
    p.block_row = block_row;
    p.y_map = y_map;
    p.x_caller = static_cast<const T*>(x_caller);
    p.x_map = x_caller ? a.inverse_permutation() : nullptr;
    p.x_moved = x_caller ? static_cast<T*>(x_perm_->data()) : nullptr;
    if (hisparse) a.set_hisparse_params(p, v.op, big_strips);
  };
  if (v.precision == Precision::f32) fill(pf_);
  else fill(pd_);
}

void SpmvLaunch::launch() const {
  if (!permute_) return launch_product();
  if (!move_x_in_prologue_) launch_move(move_x_);
  launch_product();
  if (y_scratch_) launch_move(move_y_);
}

void SpmvLaunch::launch_move(const Move& m) const {
  const void* src = m.src;
  void* dst = m.dst;
  const int* from = m.from;
  int n = n_;
  long long stride = m.stride;
  float beta_f = static_cast<float>(m.beta);
  double beta_d = m.beta;
  void* args[6] = {&src, &dst, &from, &n, &stride,
                   variant_.precision == Precision::f32 ? static_cast<void*>(&beta_f) : static_cast<void*>(&beta_d)};
  const unsigned blocks = static_cast<unsigned>(std::min<long long>((n_ + 255) / 256, 65535));
  if (blocks == 0) return;
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(permute_), dim3(blocks), dim3(256), args, 0,
                                         ctx_->stream());
  if (e != cudaSuccess) cuda_check(e, "launch the renumbering of " + variant_.name());
}

void SpmvLaunch::launch_product() const {
  void* args[1] = {variant_.precision == Precision::f32 ? const_cast<void*>(static_cast<const void*>(&pf_))
                                                        : const_cast<void*>(static_cast<const void*>(&pd_))};
  cudaError_t e = cudaSuccess;
  const bool after_prologue = prologue_ && prologue_grid_.x > 0;
  if (after_prologue)
    e = cudaLaunchKernel(reinterpret_cast<const void*>(prologue_), prologue_grid_, dim3(256), args, 0, ctx_->stream());
  if (e == cudaSuccess && grid_.x > 0)
    e = after_prologue && programmatic_
            ? launch_after_prologue(kernel_, grid_, block_, args, ctx_->stream())
            : cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), grid_, block_, args, 0, ctx_->stream());
  if (e != cudaSuccess) cuda_check(e, "launch " + variant_.name());  // the message only when it failed: a hot path
}

void spmv(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
          double alpha, double beta) {
  SpmvLaunch(ctx, v, a, x, y, alpha, beta).launch();
}

}  // namespace jitsparse
