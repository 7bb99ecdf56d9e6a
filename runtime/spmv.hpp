#pragma once
#include "generator/variant.hpp"
#include "runtime/context.hpp"
#include "runtime/device_matrix.hpp"
#include "runtime/device_vector.hpp"

namespace jitsparse {

// A prepared y = alpha*A*x + beta*y with one variant: argument checks and kernel lookup happen once,
// launch() only enqueues (what timing loops want).
class SpmvLaunch {
 public:
  // Throws InvalidArgument when the variant does not match the matrix (layout, precision, entry type) or
  // the vectors (size, components, layout, precision); compiles/loads the kernel if needed.
  SpmvLaunch(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
             double alpha = 1.0, double beta = 0.0);
  void launch() const;  // on ctx.stream(); throws DeviceError if the launch fails
  const Variant& variant() const { return variant_; }

 private:
  Context* ctx_;
  Variant variant_;
  cudaKernel_t kernel_;
  dim3 grid_, block_;
  SpmvParams<float> pf_{};
  SpmvParams<double> pd_{};
};

// One-shot convenience: y = alpha*A*x + beta*y, enqueued on ctx.stream().
void spmv(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
          double alpha = 1.0, double beta = 0.0);

}  // namespace jitsparse
