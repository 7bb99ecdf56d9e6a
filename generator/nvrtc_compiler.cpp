#include "generator/nvrtc_compiler.hpp"

#include <chrono>
#include <cstdlib>
#include <sstream>

#include <nvrtc.h>

#include "core/error.hpp"

namespace jitsparse {
namespace {

void check(nvrtcResult r, const char* what, const std::string& variant) {
  if (r != NVRTC_SUCCESS)
    throw CompileError(std::string("NVRTC ") + what + " failed for " + variant + ": " + nvrtcGetErrorString(r));
}

// Owns an nvrtcProgram.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return {};
  std::vector<int> archs(n);
  nvrtcGetSupportedArchs(archs.data());
  return archs;
}

std::string clamp_arch(int major, int minor) {
  const int want = major * 10 + minor;
  const auto archs = nvrtc_supported_archs();
  if (archs.empty()) throw CompileError("NVRTC reports no supported architecture");
  if (want < archs.front())
    throw DeviceError("compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                      " is older than the oldest NVRTC " + nvrtc_version() +
                      " supports (sm_" + std::to_string(archs.front()) + ")");
  int best = archs.front();
  for (int a : archs)
    if (a <= want) best = a;
  return "sm_" + std::to_string(best);
}

bool nvrtc_has_own_cache() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return major > 12 || (major == 12 && minor >= 9);
}

std::vector<std::string> nvrtc_options(const CompileOptions& options) {
  std::vector<std::string> opts = {"--gpu-architecture=" + options.arch, "-std=c++17"};
  // Our content-addressed cubin cache holds every kernel already. NVRTC 12.9+ also caches each compile in
  // the driver's compute cache (~/.nv/ComputeCache, shared with every CUDA application): about 1,000
  // files for `tune --builtin small`. Writing them cost a cold tune 8% of its wall time on the H100
  // (26-28 s without, 28-30 s with), and their hits made a host's later cold tunes 2.5x faster than its
  // first (12 s against 30 s), so tune times measured there were not what a new machine sees (NOTES.md,
  // thirty-eighth session).
  if (nvrtc_has_own_cache()) opts.push_back("--no-cache");
  opts.insert(opts.end(), options.extra.begin(), options.extra.end());
  // Extra NVRTC options for experiments (e.g. -DJITSPARSE_CACHED_MATRIX); part of every cache key.
  for (const auto& w : nvrtc_extra_flags()) opts.push_back(w);
  return opts;
}

std::vector<std::string> nvrtc_extra_flags() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("JITSPARSE_NVRTC_FLAGS")) {
    std::istringstream words(env);
    for (std::string w; words >> w;) out.push_back(w);
  }
  return out;
}

CompiledKernel compile_with_nvrtc(const GeneratedSource& source, const CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const HeaderSet& headers = device_headers();
  std::vector<const char*> names, contents;
  for (size_t i = 0; i < headers.names.size(); ++i) {
    names.push_back(headers.names[i].c_str());
    contents.push_back(headers.contents[i].c_str());
  }
  Program prog;
  const std::string file = "jitsparse_variant.cu";
  check(nvrtcCreateProgram(&prog.p, source.source.c_str(), file.c_str(), static_cast<int>(names.size()),
                           contents.data(), names.data()),
        "create program", source.name);
  for (const auto& e : source.kernel_expressions)
    check(nvrtcAddNameExpression(prog.p, e.c_str()), "add name expression", source.name);
  const auto opts = nvrtc_options(options);
  std::vector<const char*> opt_ptrs;
  for (const auto& o : opts) opt_ptrs.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(prog.p, static_cast<int>(opt_ptrs.size()), opt_ptrs.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog.p, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 1) nvrtcGetProgramLog(prog.p, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (result != NVRTC_SUCCESS)
    throw CompileError("NVRTC could not compile " + source.name + " (" + nvrtcGetErrorString(result) +
                       "):\n" + log + "\n--- generated source ---\n" + source.source);
  CompiledKernel k;
  k.name = source.name;
  k.variant_names = source.variant_names;
  k.arch = options.arch;
  k.log = log;
  for (const auto& e : source.kernel_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog.p, e.c_str(), &lowered), "get lowered name", source.name);
    k.lowered_names.push_back(lowered);
  }
  size_t size = 0;
  check(nvrtcGetCUBINSize(prog.p, &size), "get cubin size", source.name);
  k.cubin.resize(size);
  check(nvrtcGetCUBIN(prog.p, k.cubin.data()), "get cubin", source.name);
  k.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return k;
}

}  // namespace jitsparse
