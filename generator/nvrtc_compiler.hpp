#pragma once
#include <string>
#include <vector>

#include "generator/source_gen.hpp"

namespace jitsparse {

struct CompileOptions {
  std::string arch = "sm_90";       // cubin target; see clamp_arch
  std::vector<std::string> extra;   // further NVRTC options
};

// A compiled program: one cubin holding a kernel per variant.
struct CompiledKernel {
  std::string name;                        // the program's name, for messages
  std::string arch;
  std::vector<std::string> variant_names;  // one per kernel
  std::vector<std::string> lowered_names;  // mangled kernel names, aligned with variant_names
  std::vector<char> cubin;
  std::string log;                 // NVRTC's log (warnings)
  bool from_cache = false;
  double compile_seconds = 0;      // 0 when from the cache
};

// NVRTC's version as "13.0".
std::string nvrtc_version();
// The architectures NVRTC can emit cubins for, as numbers like 75, 80, 90.
std::vector<int> nvrtc_supported_archs();
// "sm_XY" for a device of compute capability major.minor, clamped to the newest NVRTC supports.
// Throws DeviceError when the device is older than the oldest NVRTC supports.
std::string clamp_arch(int major, int minor);
// Whether this NVRTC caches compiles itself (12.9 and later; nvrtc_options turns that off).
bool nvrtc_has_own_cache();
// The options JITSPARSE_NVRTC_FLAGS adds to every compile (experiments: they change the code, so the cubin
// cache and the tuning database are keyed by them too).
std::vector<std::string> nvrtc_extra_flags();
// The full NVRTC option list for a compile (what goes into the cache key).
std::vector<std::string> nvrtc_options(const CompileOptions& options);

// Compile one generated source with NVRTC; throws CompileError holding the log and the variant.
CompiledKernel compile_with_nvrtc(const GeneratedSource& source, const CompileOptions& options);

}  // namespace jitsparse
