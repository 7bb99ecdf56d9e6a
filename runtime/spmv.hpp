#pragma once
#include "generator/variant.hpp"
#include "runtime/context.hpp"
#include "runtime/device_matrix.hpp"
#include "runtime/device_vector.hpp"

namespace jitsparse {

// A prepared y = alpha*op(A)*x + beta*y with one variant (op and, for op t/h, the kind are part of the
// variant): argument checks and kernel lookup happen once, launch() only enqueues (what timing loops want).
// For op n, x has a.cols() elements and y a.rows(); for op t/h by atomics, x has a.rows() and y a.cols();
// the copy kind runs on a transposed copy (DeviceMatrix::for_variant), whose rows are A's columns.
class SpmvLaunch {
 public:
  // Throws InvalidArgument when the variant does not match the matrix (layout, precision, entry type,
  // transposed copy or not) or the vectors (size, components, layout, precision); compiles/loads the
  // kernels if needed.
  SpmvLaunch(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
             double alpha = 1.0, double beta = 0.0);
  void launch() const;  // on ctx.stream() (one or two kernels); throws DeviceError if a launch fails
  const Variant& variant() const { return variant_; }

 private:
  Context* ctx_;
  Variant variant_;
  cudaKernel_t kernel_, prologue_ = nullptr;
  dim3 grid_, block_, prologue_grid_;
  SpmvParams<float> pf_{};
  SpmvParams<double> pd_{};
};

// One-shot convenience: y = alpha*A*x + beta*y, enqueued on ctx.stream().
void spmv(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
          double alpha = 1.0, double beta = 0.0);

}  // namespace jitsparse
