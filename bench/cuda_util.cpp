#include "bench/cuda_util.hpp"

#include "runtime/device_info.hpp"

namespace jitsparse {
namespace bench {

void check_cuda(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::string msg = std::string(what) + " failed: " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  throw DeviceError(msg);
}

DeviceBuffer::DeviceBuffer(size_t bytes, const char* what) : bytes_(bytes) {
  const size_t request = bytes < 16 ? 16 : bytes;
  cudaError_t err = cudaMalloc(&ptr_, request);
  if (err != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();  // an allocation failure is not sticky; clear it so later calls are not confused
    check_cuda(err, std::string("cudaMalloc of ") + std::to_string(request) + " bytes for " + what);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);  // no throw from a destructor; a failed free leaves nothing to do
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, size_t bytes, cudaStream_t stream) {
  if (bytes > bytes_) throw InvalidArgument("DeviceBuffer::upload: more bytes than the buffer holds");
  check_cuda(cudaMemcpyAsync(ptr_, host, bytes, cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync (host to device)");
}

void DeviceBuffer::download(void* host, size_t bytes, cudaStream_t stream) const {
  if (bytes > bytes_) throw InvalidArgument("DeviceBuffer::download: more bytes than the buffer holds");
  check_cuda(cudaMemcpyAsync(host, ptr_, bytes, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync (device to host)");
}

CudaStream::CudaStream() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

CudaStream::~CudaStream() {
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaStream::synchronize(const char* what) const {
  check_cuda(cudaStreamSynchronize(stream_), std::string("cudaStreamSynchronize (") + what + ")");
}

CudaEvent::CudaEvent() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }

CudaEvent::~CudaEvent() {
  if (event_) cudaEventDestroy(event_);
}

void select_device(int ordinal) {
  std::string why;
  int n = device_count(&why);
  if (n == 0) throw DeviceError(why);
  if (ordinal < 0 || ordinal >= n)
    throw DeviceError("GPU " + std::to_string(ordinal) + " does not exist (" + std::to_string(n) + " found)");
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
}

}  // namespace bench
}  // namespace jitsparse
