#pragma once
#include <string>
#include <vector>

#include "generator/variant.hpp"

namespace jitsparse {

// Writes, for the given variants, a folder that builds with nvcc and CMake and needs nothing of jitsparse
// at run time:
//   include/jitsparse/*.cuh     the device headers
//   kernels/<id>.cu             one per variant: entry struct, instantiations, workspace and launch functions
//   jitsparse_exported.h        host header: SpmvParams, the functions of every variant, plus a table
//   CMakeLists.txt              static library `jitsparse_exported` for the given CUDA architecture
//   README.md                   the array layouts, vector lengths and workspaces the kernels expect
// A launch function does what runtime/spmv.cpp's SpmvLaunch does: the same kernels (two for hola and for
// op t/h by atomics) with the same grids. Throws InvalidArgument, before writing anything, for a variant
// the entry type cannot run, or two variants with one C identifier. Returns the paths of the .cu files.
struct ExportOptions {
  std::string arch = "90";  // CMAKE_CUDA_ARCHITECTURES
};
std::vector<std::string> export_variants(const std::vector<Variant>& variants, const std::string& out_dir,
                                         const ExportOptions& options = {});

// C identifier of a variant, e.g. quaternion_f64_ell_soa_aos_static_256x2.
std::string variant_identifier(const Variant& v);

}  // namespace jitsparse
