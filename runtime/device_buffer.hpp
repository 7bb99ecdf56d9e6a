#pragma once
#include <cstddef>
#include <string>

#include <cuda_runtime.h>

namespace jitsparse {

// Owns one cudaMalloc allocation. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes, const std::string& what = "buffer");  // throws DeviceError on OOM
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }
  void upload(const void* host, size_t bytes, cudaStream_t stream);    // synchronous w.r.t. host memory
  void download(void* host, size_t bytes, cudaStream_t stream) const;  // waits for the stream

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace jitsparse
