#include "runtime/context.hpp"

#include "core/error.hpp"
#include "core/file_util.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {

Context::Context(int device, const std::string& cache_root)
    : info_(query_device(device)),
      cache_root_(cache_root.empty() ? jitsparse::cache_root() : cache_root),
      builder_(clamp_arch(info_.major, info_.minor), cache_root_) {
  cuda_check(cudaSetDevice(device), "select GPU " + std::to_string(device));
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "create a stream");
}

Context::~Context() {
  if (stream_) cudaStreamSynchronize(stream_);
  for (auto lib : libraries_) cudaLibraryUnload(lib);
  if (stream_) cudaStreamDestroy(stream_);
}

void Context::load(const CompiledKernel& k) {
  cudaLibrary_t lib = nullptr;
  cudaError_t e = cudaLibraryLoadData(&lib, k.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess)
    cuda_check(e, "load the cubin of " + k.name + " (built for " + k.arch + ") on " + info_.name + " (" +
                      info_.arch() + ")");
  libraries_.push_back(lib);
  for (size_t i = 0; i < k.lowered_names.size(); ++i) {
    cudaKernel_t kernel = nullptr;
    cuda_check(cudaLibraryGetKernel(&kernel, lib, k.lowered_names[i].c_str()),
               "find kernel " + k.lowered_names[i] + " of " + k.variant_names[i]);
    kernels_[k.variant_names[i]] = kernel;
  }
  count(k);
}

cudaKernel_t Context::kernel(const Variant& variant) {
  const Variant v = variant.compiled_variant();  // a renumbered variant (and other packings) run the same kernel
  const std::string name = v.name();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  }
  CompiledKernel k = builder_.build(v);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  load(k);
  return kernels_.at(name);
}

cudaKernel_t Context::prologue(const Variant& variant) {
  const Variant v = variant.compiled_variant();
  kernel(v);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(prologue_name(v));
  if (it == kernels_.end()) throw InvalidArgument("variant " + v.name() + " has no first kernel");
  return it->second;
}

cudaKernel_t Context::kernel(const GeneratedSource& source) {
  const std::string name = source.variant_names.at(0);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  }
  CompiledKernel k = builder_.build(source);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  load(k);
  return kernels_.at(name);
}

size_t Context::local_bytes(const Variant& v) {
  cudaFuncAttributes attributes{};
  cuda_check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel(v))),
             "read the attributes of " + v.name());
  return attributes.localSizeBytes;
}

bool Context::has_kernel(const Variant& v) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kernels_.count(v.compiled_variant().name()) > 0;
}

void Context::adopt(const std::vector<KernelBuilder::Outcome>& compiled_ahead) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& o : compiled_ahead)
    if (o.ok && o.program) ahead_.emplace(o.variant.name(), o.program);
}

std::vector<std::string> Context::prepare(const std::vector<Variant>& variants,
                                          const std::function<void(size_t, size_t)>& progress) {
  // Kernels compiled ahead (adopt) are loaded here, on this thread, and not compiled again.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& v : variants) {
      if (ahead_.empty()) break;  // the usual case: nothing compiled ahead (left)
      const std::string name = v.compiled_variant().name();
      auto it = ahead_.find(name);
      if (it == ahead_.end()) continue;
      const std::shared_ptr<const CompiledKernel> program = it->second;
      for (const auto& n : program->variant_names) ahead_.erase(n);  // loaded together
      if (!kernels_.count(name)) {
        try {
          load(*program);
        } catch (const Error&) {
          // compiled again below, where a failure is reported per variant
        }
      }
    }
  }
  // One kernel per compiled_variant(): a variant, its renumbered twin and its other packings share it.
  std::vector<Variant> todo;
  std::map<std::string, size_t> todo_index;
  std::vector<size_t> where(variants.size(), SIZE_MAX);  // variant -> its entry in todo
  for (size_t i = 0; i < variants.size(); ++i) {
    const Variant k = variants[i].compiled_variant();
    if (has_kernel(k)) continue;
    const auto [it, added] = todo_index.emplace(k.name(), todo.size());
    if (added) todo.push_back(k);
    where[i] = it->second;
  }
  std::vector<std::string> todo_errors(todo.size());
  auto outcomes = builder_.build_all(todo, 0, progress);
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<const CompiledKernel*, std::string> loaded;  // program -> load error ("" if fine)
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].ok) {
      todo_errors[i] = outcomes[i].error;
      ++stats_.failed;
      continue;
    }
    const CompiledKernel* p = outcomes[i].program.get();
    if (!loaded.count(p)) {
      try {
        if (!kernels_.count(todo[i].name())) load(*p);
        loaded[p] = "";
      } catch (const Error& e) {
        loaded[p] = e.what();
      }
    }
    todo_errors[i] = loaded[p];
  }
  std::vector<std::string> errors(variants.size());
  for (size_t i = 0; i < variants.size(); ++i)
    if (where[i] != SIZE_MAX) errors[i] = todo_errors[where[i]];
  return errors;
}

// Counts programs: each holds the kernels of one variant group.
void Context::count(const CompiledKernel& k) {
  (k.from_cache ? stats_.from_cache : stats_.compiled) += k.variant_names.size();
  ++stats_.programs;
  stats_.compile_seconds += k.compile_seconds;
}

Context::CompileStats Context::compile_stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void Context::synchronize() { cuda_check(cudaStreamSynchronize(stream_), "synchronize the stream"); }

}  // namespace jitsparse
