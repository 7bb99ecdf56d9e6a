#include "tuner/gpu_check.hpp"

#include "core/reference.hpp"
#include "generator/source_gen.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {
namespace {

GeneratedSource verify_source(Precision p, VectorLayout layout) {
  const std::string t = scalar_type_name(p);
  const std::string soa = layout == VectorLayout::soa ? "true" : "false";
  return single_kernel_source("verify.cuh", "jitsparse::verify_against_reference<" + t + ", " + soa + ">",
                              "verify." + to_string(p) + (layout == VectorLayout::soa ? ".soa" : ".aos"));
}

}  // namespace

GpuCheck::GpuCheck(Context& ctx, const HostMatrix& a, const std::vector<double>& x, Op op)
    : ctx_(&ctx), rows_(is_transposed(op) ? a.cols : a.rows), components_(a.vector_components()) {
  ref_ = reference_apply(a, x, op);
  scale_ = reference_abs_scale(a, x, op);
  const size_t bytes = ref_.size() * sizeof(double);
  ref_dev_ = DeviceBuffer(bytes, "reference result");
  scale_dev_ = DeviceBuffer(bytes, "reference scale");
  result_dev_ = DeviceBuffer(2 * sizeof(unsigned long long), "check result");
  ref_dev_.upload(ref_.data(), bytes, ctx.stream());
  scale_dev_.upload(scale_.data(), bytes, ctx.stream());
}

std::string GpuCheck::check(const DeviceVector& y) {
  const double tol = default_tolerance(y.precision());
  if (rows_ > 0) {
    cudaKernel_t k = ctx_->kernel(verify_source(y.precision(), y.layout()));
    const unsigned long long init[2] = {0ull, ~0ull};
    result_dev_.upload(init, sizeof init, ctx_->stream());
    const void* yp = y.data();
    long long stride = y.stride();
    const double* ref = ref_dev_.as<const double>();
    const double* scale = scale_dev_.as<const double>();
    long long rows = rows_;
    int comps = components_;
    unsigned long long* bad = result_dev_.as<unsigned long long>();
    unsigned long long* first = bad + 1;
    void* args[] = {&yp, &stride, &ref, &scale, &rows, &comps, const_cast<double*>(&tol), &bad, &first};
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(4096, (rows_ * components_ + 255) / 256));
    cuda_check(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(blocks), dim3(256), args, 0, ctx_->stream()),
               "launch the result check");
    unsigned long long result[2];
    result_dev_.download(result, sizeof result, ctx_->stream());
    if (result[0] == 0) return "";
  }
  const auto y_host = y.download();
  const VerifyResult r = verify_result(y_host, ref_, scale_, tol, components_);
  return r.ok ? "" : r.message;
}

}  // namespace jitsparse
