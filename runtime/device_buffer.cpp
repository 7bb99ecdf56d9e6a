#include "runtime/device_buffer.hpp"

#include "core/error.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {

DeviceBuffer::DeviceBuffer(size_t bytes, const std::string& what) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e != cudaSuccess) {
    ptr_ = nullptr;
    cuda_check(e, "cannot allocate " + std::to_string(bytes) + " bytes on the GPU for the " + what);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, size_t bytes, cudaStream_t stream) {
  if (bytes > bytes_) throw InvalidArgument("upload of " + std::to_string(bytes) + " bytes into a buffer of " +
                                            std::to_string(bytes_));
  if (bytes == 0) return;
  cuda_check(cudaMemcpyAsync(ptr_, host, bytes, cudaMemcpyHostToDevice, stream), "copy to the GPU");
  cuda_check(cudaStreamSynchronize(stream), "copy to the GPU");
}

void DeviceBuffer::download(void* host, size_t bytes, cudaStream_t stream) const {
  if (bytes > bytes_) throw InvalidArgument("download of " + std::to_string(bytes) + " bytes from a buffer of " +
                                            std::to_string(bytes_));
  if (bytes == 0) return;
  cuda_check(cudaMemcpyAsync(host, ptr_, bytes, cudaMemcpyDeviceToHost, stream), "copy from the GPU");
  cuda_check(cudaStreamSynchronize(stream), "copy from the GPU");
}

}  // namespace jitsparse
