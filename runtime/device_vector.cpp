#include "runtime/device_vector.hpp"

#include "core/error.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {

DeviceVector::DeviceVector(Context& ctx, int64_t n, int vector_components, VectorLayout layout, Precision precision)
    : ctx_(&ctx),
      n_(n),
      v_(vector_components),
      layout_(layout),
      precision_(precision),
      buffer_(static_cast<size_t>(packed_vector_bytes(n, vector_components, layout, precision)), "vector") {}

void DeviceVector::upload(const std::vector<double>& aos) {
  if (static_cast<int64_t>(aos.size()) != n_ * v_)
    throw InvalidArgument("vector upload: got " + std::to_string(aos.size()) + " numbers, expected " +
                          std::to_string(n_) + " elements x " + std::to_string(v_) + " components");
  auto packed = pack_vector(aos, v_, layout_, precision_);
  buffer_.upload(packed.data(), packed.size(), ctx_->stream());
}

std::vector<double> DeviceVector::download() const {
  std::vector<unsigned char> packed(buffer_.bytes());
  buffer_.download(packed.data(), packed.size(), ctx_->stream());
  return unpack_vector(packed, n_, v_, layout_, precision_);
}

void DeviceVector::fill(double value) { upload(std::vector<double>(static_cast<size_t>(n_ * v_), value)); }

void DeviceVector::poison() {
  if (buffer_.bytes() == 0) return;
  cuda_check(cudaMemsetAsync(buffer_.get(), 0xFF, buffer_.bytes(), ctx_->stream()), "poison a vector");
  cuda_check(cudaStreamSynchronize(ctx_->stream()), "poison a vector");
}

}  // namespace jitsparse
