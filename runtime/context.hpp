#pragma once
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/host_matrix.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/variant.hpp"
#include "runtime/device_info.hpp"

namespace jitsparse {

// One GPU: its properties, a stream, the kernel builder (cubin cache + NVRTC) and the loaded kernels.
// Not thread-safe for launches; kernel loading is.
class Context {
 public:
  // Throws DeviceError when there is no GPU, the ordinal is wrong or the architecture is unsupported.
  explicit Context(int device = 0, const std::string& cache_root = "");
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& device() const { return info_; }
  cudaStream_t stream() const { return stream_; }
  const KernelBuilder& builder() const { return builder_; }
  const std::string& cache_root() const { return cache_root_; }

  // The kernel of a variant: compiled (or taken from the cubin cache) and loaded once per context.
  cudaKernel_t kernel(const Variant& v);
  // The first kernel of a two-kernel variant (Variant::has_prologue), loaded with the main one.
  cudaKernel_t prologue(const Variant& v);
  // Compile the not-yet-loaded variants in parallel, then load them. Returns, per variant, "" or the error.
  std::vector<std::string> prepare(const std::vector<Variant>& variants,
                                   const std::function<void(size_t, size_t)>& progress = {});
  // Programs compiled ahead of need on another thread (KernelBuilder::build_all's outcomes, e.g. the
  // tuner's next stage one): prepare() takes a variant's kernel from them instead of compiling it. Only
  // stores them (thread-safe); loading into the context stays with the thread that calls prepare().
  void adopt(const std::vector<KernelBuilder::Outcome>& compiled_ahead);
  // A helper kernel from any source over the device headers (e.g. the tuner's GPU-side check), by name.
  cudaKernel_t kernel(const GeneratedSource& source);
  bool has_kernel(const Variant& v) const;
  // Bytes of local memory per thread of a variant's (main) kernel, loading it if needed: more than 0 where
  // the compiler spilled registers (__launch_bounds__ of many resident threads leaves each thread few).
  size_t local_bytes(const Variant& v);
  void synchronize();

  // What building kernels has cost so far in this context.
  struct CompileStats {
    size_t compiled = 0, from_cache = 0, failed = 0;  // kernels (variants)
    size_t programs = 0;                               // NVRTC programs (a schedule grid is one)
    double compile_seconds = 0;  // NVRTC time summed over threads
  };
  CompileStats compile_stats() const;

 private:
  void load(const CompiledKernel& program);  // registers every kernel of the program (mutex_ held)

  DeviceInfo info_;
  std::string cache_root_;
  cudaStream_t stream_ = nullptr;
  KernelBuilder builder_;
  mutable std::mutex mutex_;
  std::map<std::string, cudaKernel_t> kernels_;
  std::map<std::string, std::shared_ptr<const CompiledKernel>> ahead_;  // adopt(): kernel variant -> program
  std::vector<cudaLibrary_t> libraries_;
  CompileStats stats_;
  void count(const CompiledKernel& k);
};

}  // namespace jitsparse
