#pragma once
#include <functional>
#include <string>
#include <vector>

#include "generator/cubin_cache.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "generator/variant.hpp"

namespace jitsparse {

// Variant -> cubin: generate the source, look in the cubin cache, else compile with NVRTC and store.
class KernelBuilder {
 public:
  explicit KernelBuilder(std::string arch = "sm_90", std::string cache_root = "");
  const std::string& arch() const { return options_.arch; }
  const CubinCache& cache() const { return cache_; }

  CompiledKernel build(const Variant& v) const;  // throws CompileError / InvalidArgument
  CompiledKernel build(const GeneratedSource& source) const;  // any source using the device headers

  // Build many in parallel (threads = 0: all cores). Failures do not stop the others: each result is
  // either a kernel or an error message. progress(done, total) is called from worker threads, serialized.
  struct Outcome {
    Variant variant;
    bool ok = false;
    CompiledKernel kernel;
    std::string error;
  };
  std::vector<Outcome> build_all(const std::vector<Variant>& variants, int threads = 0,
                                 const std::function<void(size_t, size_t)>& progress = {}) const;

 private:
  CompileOptions options_;
  CubinCache cache_;
};

}  // namespace jitsparse
