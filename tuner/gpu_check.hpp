#pragma once
#include <string>
#include <vector>

#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "runtime/context.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_vector.hpp"

namespace jitsparse {

// Checks y = op(A) x on the GPU against the CPU reference (computed here once, in double, and uploaded):
// the tuner verifies every variant before timing it without copying y back each time.
class GpuCheck {
 public:
  GpuCheck(Context& ctx, const HostMatrix& a, const std::vector<double>& x, Op op = Op::n);
  // "" when y matches the reference within default_tolerance(y.precision()); otherwise the message of
  // the CPU comparison (y is downloaded only then).
  std::string check(const DeviceVector& y);

 private:
  Context* ctx_;
  int64_t rows_;
  int components_;
  std::vector<double> ref_, scale_;
  DeviceBuffer ref_dev_, scale_dev_, result_dev_;
};

}  // namespace jitsparse
