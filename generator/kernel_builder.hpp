#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "generator/cubin_cache.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "generator/variant.hpp"

namespace jitsparse {

// Variant -> cubin: generate the source, look in the cubin cache, else compile with NVRTC and store.
// build_all() compiles the requested variants of one entry type and precision as a few NVRTC programs
// (one front-end pass for many kernels: 96 quaternion variants of 16 layouts took 6.7 s as two programs
// and about 17 s one per program on the 2-core machine), split so that every thread has work.
class KernelBuilder {
 public:
  explicit KernelBuilder(std::string arch = "sm_90", std::string cache_root = "");
  const std::string& arch() const { return options_.arch; }
  const CubinCache& cache() const { return cache_; }

  // The program of v alone. Throws CompileError / InvalidArgument.
  CompiledKernel build(const Variant& v) const;
  CompiledKernel build(const GeneratedSource& source) const;  // any source using the device headers

  // Build many in parallel (threads = 0: all cores), one program per group. Failures do not stop the
  // others: a failed program is retried one variant at a time, and each variant's outcome holds its
  // program or its own error. progress(done, total) counts programs. max_group: kernels per program.
  struct Outcome {
    Variant variant;
    bool ok = false;
    std::shared_ptr<const CompiledKernel> program;
    std::string error;
  };
  std::vector<Outcome> build_all(const std::vector<Variant>& variants, int threads = 0,
                                 const std::function<void(size_t, size_t)>& progress = {},
                                 size_t max_group = 64) const;

 private:
  CompileOptions options_;
  CubinCache cache_;
};

}  // namespace jitsparse
