#pragma once
#include <memory>

#include "generator/variant.hpp"
#include "runtime/context.hpp"
#include "runtime/device_matrix.hpp"
#include "runtime/device_vector.hpp"

namespace jitsparse {

// A prepared y = alpha*op(A)*x + beta*y with one variant (op and, for op t/h, the kind are part of the
// variant): argument checks and kernel lookup happen once, launch() only enqueues (what timing loops want).
// For op n, x has a.cols() elements and y a.rows(); for op t/h by atomics, x has a.rows() and y a.cols();
// the copy kind runs on a transposed copy (DeviceMatrix::for_variant), whose rows are A's columns.
// A renumbered variant (Variant::ordering) runs on DeviceMatrix::for_variant's P A P^T: x and y stay in
// the caller's numbering. Each launch moves x into the matrix's numbering (a scratch vector; hola's first
// kernel does it), runs the product, which writes y through the inverse permutation (RenumberedY::mapped),
// or into a scratch y that a last kernel gathers back into y with beta (RenumberedY::moved).
class SpmvLaunch {
 public:
  // Throws InvalidArgument when the variant does not match the matrix (layout, precision, entry type,
  // transposed copy or not) or the vectors (size, components, layout, precision); compiles/loads the
  // kernels if needed.
  SpmvLaunch(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
             double alpha = 1.0, double beta = 0.0);
  void launch() const;  // on ctx.stream() (one to four kernels: x moved into a renumbered matrix's
                        // numbering, a prologue, the product, y moved back); throws DeviceError if a launch fails
  const Variant& variant() const { return variant_; }

 private:
  Context* ctx_;
  Variant variant_;
  cudaKernel_t kernel_, prologue_ = nullptr;
  dim3 grid_, block_, prologue_grid_;
  // After a prologue, the kernel starts while the prologue runs (grid_dependency.cuh): sm_90 and later,
  // unless JITSPARSE_PROGRAMMATIC_LAUNCH=0 (to measure what it gains).
  bool programmatic_ = false;
  SpmvParams<float> pf_{};
  SpmvParams<double> pd_{};
  // Renumbered variants: x moved into P A P^T's numbering (permute.cuh) before the product, which writes
  // the caller's y through SpmvParams::y_map, or a scratch y moved back after it (dst = src[from] + beta dst).
  struct Move {
    const void* src = nullptr;
    void* dst = nullptr;
    const int* from = nullptr;
    long long stride = 0;  // of src and dst alike (soa; vector_stride of their common length)
    double beta = 0;
  };
  std::shared_ptr<DeviceVector> x_perm_, y_scratch_;
  cudaKernel_t permute_ = nullptr;
  Move move_x_, move_y_;
  bool move_x_in_prologue_ = false;  // hola: hola_prepare moves x (SpmvParams::x_caller), one kernel less
  int n_ = 0;
  void launch_move(const Move& m) const;
  void launch_product() const;
};

// The kernel arguments of y = alpha*op(A)*x + beta*y without any check: what SpmvLaunch passes, for code
// that launches kernels itself (exported ones, tests). block_row stays null (hola workspace).
template <class T>
SpmvParams<T> make_spmv_params(const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y, double alpha,
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

// One-shot convenience: y = alpha*A*x + beta*y, enqueued on ctx.stream().
void spmv(Context& ctx, const Variant& v, const DeviceMatrix& a, const DeviceVector& x, DeviceVector& y,
          double alpha = 1.0, double beta = 0.0);

}  // namespace jitsparse
