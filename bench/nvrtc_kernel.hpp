#pragma once
#include <memory>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

namespace jitsparse {

// The benchmark's own small kernels (the stream read probe, the empty kernel): one extern "C" kernel per
// source, compiled with NVRTC for the device's architecture and loaded with cudaLibraryLoadData, outside
// the generator's cache and templates (they are measuring tools, not variants).

// Compile `source` to a cubin for `arch` ("sm_90"); `file_name` names it in NVRTC's log. Throws
// CompileError with the log.
std::string compile_cubin(const char* source, const std::string& file_name, const std::string& arch);

// A kernel of a loaded cubin; the library is unloaded with the object. Throws DeviceError when loading or
// the lookup of `name` (an extern "C" name) fails.
class LoadedKernel {
 public:
  LoadedKernel(const std::string& cubin, const char* name);
  // What cudaLaunchKernel takes (the runtime accepts a cudaKernel_t as the function pointer, CUDA 12+).
  const void* function() const { return reinterpret_cast<const void*>(kernel_); }

 private:
  struct LibraryDeleter {
    void operator()(cudaLibrary_t l) const { cudaLibraryUnload(l); }
  };
  std::unique_ptr<std::remove_pointer_t<cudaLibrary_t>, LibraryDeleter> library_;
  cudaKernel_t kernel_ = nullptr;
};

}  // namespace jitsparse
