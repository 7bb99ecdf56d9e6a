#include "bench/nvrtc_kernel.hpp"

#include <nvrtc.h>

#include "core/error.hpp"
#include "runtime/cuda_check.hpp"

namespace jitsparse {
namespace {

void check_nvrtc(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw CompileError(std::string(what) + " failed: " + nvrtcGetErrorString(r));
}

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};

}  // namespace

std::string compile_cubin(const char* source, const std::string& file_name, const std::string& arch) {
  nvrtcProgram prog = nullptr;
  check_nvrtc(nvrtcCreateProgram(&prog, source, file_name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter> owned(prog);
  const std::string arch_opt = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_opt.c_str()};
  const nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
  if (r != NVRTC_SUCCESS) {
    size_t log_size = 0;
    std::string log;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.resize(log_size);
      nvrtcGetProgramLog(prog, log.data());
    }
    throw CompileError("nvrtcCompileProgram (" + file_name + ", " + arch + ") failed: " + nvrtcGetErrorString(r) +
                       "\n" + log);
  }
  size_t size = 0;
  check_nvrtc(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
  if (size == 0) throw CompileError("nvrtcGetCUBINSize: NVRTC produced no cubin for " + file_name + ", " + arch);
  std::string cubin(size, '\0');
  check_nvrtc(nvrtcGetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN");
  return cubin;
}

LoadedKernel::LoadedKernel(const std::string& cubin, const char* name) {
  cudaLibrary_t lib = nullptr;
  cuda_check(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
             std::string("cudaLibraryLoadData (") + name + ")");
  library_.reset(lib);
  cuda_check(cudaLibraryGetKernel(&kernel_, lib, name), std::string("cudaLibraryGetKernel (") + name + ")");
}

}  // namespace jitsparse
