#include "generator/kernel_builder.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "core/entry_type.hpp"
#include "core/error.hpp"

namespace jitsparse {

KernelBuilder::KernelBuilder(std::string arch, std::string cache_root) : cache_(std::move(cache_root)) {
  options_.arch = std::move(arch);
}

CompiledKernel KernelBuilder::build(const Variant& v) const {
  check_schedule(v.schedule);
  const EntryType& entry = EntryRegistry::instance().get(v.entry);
  return build(generate_source(v, entry));
}

CompiledKernel KernelBuilder::build(const GeneratedSource& src) const {
  const std::string key = cache_.key(src, options_);
  if (auto hit = cache_.load(key, src.variant_name)) return *hit;
  CompiledKernel k = compile_with_nvrtc(src, options_);
  cache_.store(key, k);
  return k;
}

std::vector<KernelBuilder::Outcome> KernelBuilder::build_all(const std::vector<Variant>& variants, int threads,
                                                             const std::function<void(size_t, size_t)>& progress) const {
  std::vector<Outcome> out(variants.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min<int>(threads, static_cast<int>(std::max<size_t>(1, variants.size())));
  EntryRegistry::instance();  // load configs before the workers start
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < variants.size(); i = next++) {
      out[i].variant = variants[i];
      try {
        out[i].kernel = build(variants[i]);
        out[i].ok = true;
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
      const size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(d, variants.size());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace jitsparse
