#pragma once
#include <cstdint>
#include <vector>

#include "core/layout.hpp"
#include "runtime/context.hpp"
#include "runtime/device_buffer.hpp"

namespace jitsparse {

// A vector of n compound elements (V components each) on the GPU, aos or soa (core/layout.hpp).
class DeviceVector {
 public:
  DeviceVector(Context& ctx, int64_t n, int vector_components, VectorLayout layout, Precision precision);

  void upload(const std::vector<double>& aos);  // n * V doubles; throws InvalidArgument on a size mismatch
  std::vector<double> download() const;          // n * V doubles
  void fill(double value);                       // every component
  void poison();                                 // every byte 0xFF: NaN in float and double

  int64_t size() const { return n_; }
  int vector_components() const { return v_; }
  VectorLayout layout() const { return layout_; }
  Precision precision() const { return precision_; }
  int64_t stride() const { return layout_ == VectorLayout::soa ? vector_stride(n_) : 0; }
  void* data() const { return buffer_.get(); }
  int64_t bytes() const { return static_cast<int64_t>(buffer_.bytes()); }

 private:
  Context* ctx_;
  int64_t n_;
  int v_;
  VectorLayout layout_;
  Precision precision_;
  DeviceBuffer buffer_;
};

}  // namespace jitsparse
