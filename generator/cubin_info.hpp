#pragma once
#include <map>
#include <string>
#include <vector>

#include "generator/nvrtc_compiler.hpp"

namespace jitsparse {

// What ptxas recorded for a kernel in a cubin's ELF (the .nv.info attributes that cuobjdump shows as
// EIATTR_REGCOUNT and EIATTR_FRAME_SIZE): registers per thread and the stack frame in bytes, i.e. the
// local memory of each thread (spilled registers). Known without loading the cubin on a GPU, so a
// thread that only compiles can tell which kernels spill. -1: not recorded.
struct CubinKernelInfo {
  int registers = -1;
  int frame_bytes = -1;
};

// By mangled kernel name. Empty when the bytes are not an ELF64 cubin with a .nv.info section; an
// attribute list it cannot follow ends the reading there (what was read is kept).
std::map<std::string, CubinKernelInfo> cubin_kernel_info(const std::vector<char>& cubin);

// The stack frame of the kernel that `variant_name` compiled to in `program` (CompiledKernel's
// variant_names and lowered_names), or -1 when unknown.
int cubin_frame_bytes(const CompiledKernel& program, const std::string& variant_name);

}  // namespace jitsparse
