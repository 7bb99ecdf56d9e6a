// Compares a kernel's y with the CPU reference on the GPU, so the tuner verifies every variant without
// copying y back: |y - ref| <= tol * scale + tiny per component (the same test as core/reference.cpp's
// verify_result; NaN and Inf fail). Only a failing y is copied back, for the message.
#pragma once

namespace jitsparse {

template <class T, bool Soa>
__global__ void verify_against_reference(const T* y, long long y_stride, const double* ref, const double* scale,
                                         long long rows, int components, double tol,
                                         unsigned long long* bad_count, unsigned long long* first_bad) {
  const long long n = rows * components;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / components;
    const int c = static_cast<int>(i % components);
    const double v = static_cast<double>(Soa ? y[c * y_stride + row] : y[i]);
    const double err = fabs(v - ref[i]);
    if (!(err <= tol * scale[i] + 1e-300 + tol * 1e-30)) {
      atomicAdd(bad_count, 1ull);
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
}

}  // namespace jitsparse
