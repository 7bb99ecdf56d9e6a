#include "generator/kernel_builder.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/nvrtc_workers.hpp"

namespace jitsparse {

KernelBuilder::KernelBuilder(std::string arch, std::string cache_root) : cache_(std::move(cache_root)) {
  options_.arch = std::move(arch);
}

CompiledKernel KernelBuilder::build(const Variant& v) const {
  check_variant(v);
  return build(generate_source(v, EntryRegistry::instance().get(v.entry)));
}

CompiledKernel KernelBuilder::build(const GeneratedSource& src) const {
  const std::string key = cache_.key(src, options_);
  if (auto hit = cache_.load(key, src)) return *hit;
  CompiledKernel k = compile_anywhere(src, options_);  // a worker process when the executable enabled them
  cache_.store(key, k);
  return k;
}

namespace {

// Variants of one entry type and precision share programs (generate_program's rule): NVRTC's front end
// costs most of a program (sm_90: about 0.2-0.5 s; each further kernel adds little), so a stage's variants
// are compiled as a few large programs rather than one per layout.
// JITSPARSE_PROGRAM_GROUPING=schedule restores the older grouping (only variants that differ in n_t and
// n_b share a program) for A/B timing on one machine (NOTES.md, 2026-11-23 second session).
std::string program_key(const Variant& v) {
  static const bool by_schedule = [] {
    const char* g = std::getenv("JITSPARSE_PROGRAM_GROUPING");
    return g && std::string(g) == "schedule";
  }();
  // HiSparse kernels never share a program with the others: see compile_weight.
  if (!by_schedule)
    return v.entry + "." + to_string(v.precision) + (v.layout.outer == OuterLayout::hisparse ? ".hisparse" : "");
  Variant k = v;
  k.schedule.threads = 32;
  k.schedule.blocks_per_sm = 1;
  return k.name();
}

// Rough NVRTC cost of a kernel, in row-kernel units (the 2-core machine, sm_90: a row kernel adds about
// 0.025 s to a program, a hola kernel about 0.2 s, a hisparse kernel about 0.5 s alone). A stage waits
// for its slowest program, so heavy kernels go alone and first (2026-11-24: a program of two hisparse
// kernels held up every stage one on the H100 host by about 2 s).
int compile_weight(const Variant& v) {
  switch (v.layout.outer) {
    case OuterLayout::hisparse: return 16;
    case OuterLayout::hola: return 6;
    default: return 1;
  }
}

int program_weight(const std::vector<Variant>& program) {
  int w = 0;
  for (const auto& v : program) w += compile_weight(v);
  return w;
}

}  // namespace

std::vector<KernelBuilder::Outcome> KernelBuilder::build_all(const std::vector<Variant>& variants, int threads,
                                                             const std::function<void(size_t, size_t)>& progress,
                                                             size_t max_group) const {
  EntryRegistry::instance();  // load configs before the workers start
  std::map<std::string, size_t> program_of;  // key -> the open (not full) program of that key
  std::vector<std::vector<Variant>> programs;
  std::vector<size_t> variant_program(variants.size());
  std::vector<Outcome> out(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    out[i].variant = variants[i];
    try {
      check_variant(variants[i]);
      const std::string key = program_key(variants[i]);
      auto it = program_of.find(key);
      const size_t cap = variants[i].layout.outer == OuterLayout::hisparse ? 1 : max_group;  // compile_weight
      if (it == program_of.end() || programs[it->second].size() >= cap) {
        program_of[key] = programs.size();
        programs.emplace_back();
      }
      const size_t p = program_of[key];
      if (std::find(programs[p].begin(), programs[p].end(), variants[i]) == programs[p].end())
        programs[p].push_back(variants[i]);
      variant_program[i] = p;
    } catch (const std::exception& e) {
      out[i].error = e.what();
      variant_program[i] = SIZE_MAX;
    }
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A few large programs leave cores idle: split the largest in halves until there is one per thread or
  // none is larger than kMinSplit kernels. Each half pays the front end again (on the 2-core machine about
  // 0.04 s per program and 0.025 s per kernel; on the H100 host about three times that), which idle cores
  // more than repay. The tuner compiles in rounds of 10-40 kernels between measurements, and waits for
  // the slowest program of each round: one round of small programs beats two of larger ones
  // (2026-11-24: 464 programs, 324 s of NVRTC summed over 16 threads, 81 s waited).
  // Sizes are compile weights (compile_weight): a heavy kernel ends up alone.
  constexpr int kMinSplit = 2;
  const size_t grouped = programs.size();
  auto lighter = [](const auto& l, const auto& r) { return program_weight(l) < program_weight(r); };
  while (programs.size() < static_cast<size_t>(threads)) {
    auto largest = std::max_element(programs.begin(), programs.end(), lighter);
    if (largest == programs.end() || largest->size() < 2 || program_weight(*largest) <= kMinSplit) break;
    const size_t half = largest->size() / 2;
    std::vector<Variant> tail(largest->begin() + static_cast<long>(half), largest->end());
    largest->resize(half);
    programs.push_back(std::move(tail));
  }
  if (programs.size() > grouped) {  // re-map each variant to the program that now holds it
    std::map<std::string, size_t> holder;
    for (size_t p = 0; p < programs.size(); ++p)
      for (const auto& v : programs[p]) holder[v.name()] = p;
    for (size_t i = 0; i < variants.size(); ++i)
      if (variant_program[i] != SIZE_MAX) variant_program[i] = holder.at(variants[i].name());
  }
  // Heaviest first, so the last program to finish is a short one.
  std::vector<size_t> order(programs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t l, size_t r) { return program_weight(programs[l]) > program_weight(programs[r]); });
  std::vector<std::shared_ptr<const CompiledKernel>> built(programs.size());
  std::vector<std::string> errors(programs.size());
  threads = std::min<int>(threads, static_cast<int>(std::max<size_t>(1, programs.size())));
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (size_t n = next++; n < programs.size(); n = next++) {
      const size_t i = order[n];
      try {
        built[i] = std::make_shared<const CompiledKernel>(
            build(generate_program(programs[i], EntryRegistry::instance().get(programs[i].front().entry))));
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
      const size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(d, programs.size());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  // A program of several variants that failed is retried one variant per program, so one kernel that
  // does not compile (a user entry type, a resource limit) costs only its own variant.
  std::vector<Variant> retry;
  for (size_t p = 0; p < programs.size(); ++p)
    if (!built[p] && programs[p].size() > 1) retry.insert(retry.end(), programs[p].begin(), programs[p].end());
  std::map<std::string, Outcome> alone;
  if (!retry.empty())
    for (auto& o : build_all(retry, threads, {}, 1)) alone[o.variant.name()] = std::move(o);
  for (size_t i = 0; i < variants.size(); ++i) {
    if (variant_program[i] == SIZE_MAX) continue;
    if (auto it = alone.find(variants[i].name()); it != alone.end()) {
      out[i] = it->second;
      continue;
    }
    out[i].program = built[variant_program[i]];
    out[i].ok = out[i].program != nullptr;
    if (!out[i].ok) out[i].error = errors[variant_program[i]];
  }
  return out;
}

}  // namespace jitsparse
