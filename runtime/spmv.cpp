#include "runtime/spmv.hpp"

#include <algorithm>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {
namespace {

template <class T>
SpmvParams<T> make_params(const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y, double alpha,
                          double beta) {
  SpmvParams<T> p = a.params<T>();
  p.x = static_cast<const T*>(x.data());
  p.x_stride = x.stride();
  p.y = static_cast<T*>(y.data());
  p.y_stride = y.stride();
  p.alpha = static_cast<T>(alpha);
  p.beta = static_cast<T>(beta);
  return p;
}

void check_match(const Variant& v, const DeviceMatrix& a, const DeviceVector& x, const DeviceVector& y) {
  const std::string who = "variant " + v.name() + ": ";
  if (v.entry != a.entry()) throw InvalidArgument(who + "the matrix holds '" + a.entry() + "' entries");
  if (v.precision != a.precision()) throw InvalidArgument(who + "the matrix is packed in " + to_string(a.precision()));
  if (v.layout != a.layout()) throw InvalidArgument(who + "the matrix is packed as " + a.layout().name());
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
  check_vec(x, a.cols(), "x");
  check_vec(y, a.rows(), "y");
  if (x.data() == y.data() && x.size() > 0) throw InvalidArgument(who + "x and y must not be the same vector");
}

}  // namespace

SpmvLaunch::SpmvLaunch(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x,
                       DeviceVector& y, double alpha, double beta)
    : ctx_(&ctx), variant_(v) {
  check_match(v, a, x, y);
  const DeviceInfo& d = ctx.device();
  check_schedule(v.schedule, d.max_threads_per_block, d.max_threads_per_sm, d.max_blocks_per_sm);
  kernel_ = ctx.kernel(v);
  // n_b x SM count blocks, but never more than there are chunks of rows: idle blocks still cost
  // scheduling time, which dominates on small matrices.
  const long long rows_per_chunk = v.schedule.threads / v.schedule.threads_per_row;
  const long long chunks = std::max(1LL, (static_cast<long long>(a.rows()) + rows_per_chunk - 1) / rows_per_chunk);
  grid_ = dim3(static_cast<unsigned>(std::min<long long>(static_cast<long long>(v.schedule.blocks_per_sm) * d.sm_count, chunks)));
  block_ = dim3(static_cast<unsigned>(v.schedule.threads));
  if (v.precision == Precision::f32)
    pf_ = make_params<float>(a, x, y, alpha, beta);
  else
    pd_ = make_params<double>(a, x, y, alpha, beta);
}

void SpmvLaunch::launch() const {
  void* args[1] = {variant_.precision == Precision::f32 ? const_cast<void*>(static_cast<const void*>(&pf_))
                                                        : const_cast<void*>(static_cast<const void*>(&pd_))};
  const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), grid_, block_, args, 0, ctx_->stream());
  if (e != cudaSuccess) cuda_check(e, "launch " + variant_.name());  // the message only when it failed: a hot path
}

void spmv(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
          double alpha, double beta) {
  SpmvLaunch(ctx, v, a, x, y, alpha, beta).launch();
}

}  // namespace jitsparse
