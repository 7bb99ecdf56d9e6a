#pragma once
// Small RAII and error-checking helpers for the benchmark (bench/ only; the library has its own).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace jitsparse {
namespace bench {

// Throws DeviceError "<what> failed: <CUDA error name>: <description>" unless err is cudaSuccess.
void check_cuda(cudaError_t err, const char* what);
inline void check_cuda(cudaError_t err, const std::string& what) { check_cuda(err, what.c_str()); }

// Device memory that frees itself. Never null once allocated: a zero-byte request still allocates a few
// bytes, so cuSPARSE never sees a null array for an empty matrix.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes, const char* what = "device buffer");
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

  // Stream-ordered copies; the caller synchronizes the stream before host data goes out of scope.
  void upload(const void* host, size_t bytes, cudaStream_t stream);
  void download(void* host, size_t bytes, cudaStream_t stream) const;

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Allocate and copy a host vector in one step (synchronizes the stream, so `v` may go away after).
template <typename T>
DeviceBuffer upload_vector(const std::vector<T>& v, cudaStream_t stream, const char* what) {
  DeviceBuffer b(v.size() * sizeof(T), what);
  if (!v.empty()) b.upload(v.data(), v.size() * sizeof(T), stream);
  check_cuda(cudaStreamSynchronize(stream), std::string("cudaStreamSynchronize after uploading ") + what);
  return b;
}

// A non-blocking stream, so nothing on the legacy default stream serializes with the measurement.
class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize(const char* what) const;

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Makes `ordinal` current; throws DeviceError (no GPU, bad ordinal) with a clear message.
void select_device(int ordinal);

}  // namespace bench
}  // namespace jitsparse
