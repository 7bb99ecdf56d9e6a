#pragma once
#include <string>

#include <cuda_runtime.h>

#include "runtime/cuda_check.hpp"

namespace jitsparse {

// Owns a non-blocking stream, so nothing on the legacy default stream serializes with work (or a
// measurement) on it. Neither copied nor moved: keep it where it is made.
class CudaStream {
 public:
  CudaStream() {
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }
  // Throws DeviceError "cudaStreamSynchronize (<what>): ..." when the stream's work failed.
  void synchronize(const char* what) const {
    cuda_check(cudaStreamSynchronize(stream_), std::string("cudaStreamSynchronize (") + what + ")");
  }

 private:
  cudaStream_t stream_ = nullptr;
};

// Owns a CUDA event (for timing with cudaEventRecord / cudaEventElapsedTime).
class CudaEvent {
 public:
  CudaEvent() { cuda_check(cudaEventCreate(&e_), "cudaEventCreate"); }
  ~CudaEvent() { cudaEventDestroy(e_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace jitsparse
