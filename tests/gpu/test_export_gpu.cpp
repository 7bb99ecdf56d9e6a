// jitsparse export on the GPU: the exported sources, built by nvcc into a shared library as a user would
// build them (no jitsparse at run time), launched through their own launch functions with params filled as
// runtime/spmv.cpp fills them, and checked against the CPU reference. Covers one- and two-kernel variants:
// op n on a row layout, hola, op t/h by atomics (row layout and hola), and the copy kind.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "generator/export.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "gpu_test_util.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_matrix.hpp"
#include "runtime/device_vector.hpp"
#include "runtime/spmv.hpp"

using namespace jitsparse;
using jitsparse::test::gpu_context;

namespace {

// One per kind of launch the exporter writes; rectangular matrices, so that swapping the lengths of x and
// y (op t/h by atomics) cannot pass.
const std::vector<std::string> kExported = {
    "complex.f64/sell32-soa-aos/dynamic-128x4-tpr2",         // op n, row layout, chunk counters
    "real.f64/hola-aos-aos/hola-256x8-ept4",                 // hola: hola_prepare, then hola_spmv
    "complex.f32/csr-aos-aos/static-256x8/t-atomic",         // scale_y, then spmv_scatter
    "quaternion.f32/sell16-soa-soa/static-128x4/h-atomic",   // the same, soa vectors of cols elements
    "quaternion.f64/hola-soa-aos/hola-256x8-ept2/h-atomic",  // hola_prepare over rows and cols, hola_scatter
    "complex.f64/ell-aos-soa/static-96x3/t-copy",            // one kernel on the transposed copy
    "real.f32/hola-aos-soa/hola-128x16-ept1/h-copy",         // hola on the transposed copy
    "real.f64/sell32s64-aos-aos-d16/static-128x4",           // narrow: int16 column offsets, sorted rows
    "real.f32/csr-aos-aos/static-32x1-tpr32-even",           // the even grid: 2,053 one-row chunks, ~16 per block
};

// The header's tables in a unit of their own, reachable by dlsym (the launch functions have C++ names).
const char* kTablesUnit = R"(#include "jitsparse_exported.h"
extern "C" const void* exported_table_float() { return jitsparse_exported_float_variants; }
extern "C" const void* exported_table_double() { return jitsparse_exported_double_variants; }
)";

// The layout of jitsparse_exported_float/_double in the generated header (which this test cannot include).
template <class T>
struct ExportedEntry {
  const char* name;
  cudaError_t (*launch)(const SpmvParams<T>&, int, cudaStream_t);
  long long (*workspace_ints)(long long nnz);
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// nvcc as a user's build would run it: every unit (xargs runs them in parallel, each takes seconds), then
// one shared library with its own static CUDA runtime. Returns "" or the compiler's output.
std::string build_library(const std::string& dir, const std::vector<std::string>& units, const std::string& lib) {
  const std::string arch = clamp_arch(gpu_context().device().major, gpu_context().device().minor);
  const std::string nvcc = std::string(JITSPARSE_NVCC) + " -std=c++17 -arch=" + arch;
  std::string list, objects;
  for (const auto& u : units) {
    list += u + "\n";
    objects += " " + u + ".o";
  }
  std::ofstream(dir + "/units.txt") << list;
  const std::string log = dir + "/build.log";
  const std::string compile = "xargs -P 8 -I{} " + nvcc + " -Xcompiler -fPIC -I" + dir + " -I" + dir +
                              "/include -c {} -o {}.o < " + dir + "/units.txt";
  const std::string link = nvcc + " -shared" + objects + " -o " + lib;
  if (std::system(("(" + compile + " && " + link + ") > " + log + " 2>&1").c_str()) == 0) return "";
  return compile + "\n" + link + "\nfailed:\n" + read_file(log);
}

// The library stays loaded to the end of the process: it carries its own static CUDA runtime, and tearing
// that down in the middle of the test run buys nothing.
void* open_library(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const std::string error = handle ? "" : dlerror();
  REQUIRE_MESSAGE(handle != nullptr, "dlopen ", path, ": ", error);
  return handle;
}

template <class T>
const ExportedEntry<T>* find_in_table(const void* table, const std::string& name) {
  for (auto* e = static_cast<const ExportedEntry<T>*>(table); e->name; ++e)
    if (name == e->name) return e;
  return nullptr;
}

HostMatrix test_matrix(const std::string& entry, bool empty) {
  RandomMatrixOptions o;
  o.rows = 2053;  // rows longer than a hola block, empty rows; not a multiple of any slice or block
  o.cols = 1777;
  o.mean_row = 9;
  o.empty_fraction = 0.1;
  o.long_row = 1500;
  o.seed = 23;
  if (empty) {  // no entries at all: hola launches only its first kernel
    o.rows = 300;
    o.cols = 200;
    o.long_row = 0;
    o.empty_fraction = 1.0;
  }
  return random_matrix(EntryRegistry::instance().get(entry), o);
}

// The params SpmvLaunch passes, plus the hola workspace.
template <class T>
SpmvParams<T> exported_params(const DeviceMatrix& m, const DeviceVector& x, DeviceVector& y, double alpha,
                              double beta, int* block_row) {
  SpmvParams<T> p = make_spmv_params<T>(m, x, y, alpha, beta);
  p.block_row = block_row;
  return p;
}

// Launches variant v from the library on stream 0 and waits for the device. Returns the launch's error.
template <class T>
cudaError_t launch_exported(const ExportedEntry<T>* entry, const DeviceMatrix& m, const DeviceVector& x,
                            DeviceVector& y, double alpha, double beta, int* block_row) {
  const SpmvParams<T> p = exported_params<T>(m, x, y, alpha, beta, block_row);
  gpu_context().synchronize();  // the uploads ran on the context's non-blocking stream, which stream 0 ignores
  const cudaError_t e = entry->launch(p, gpu_context().device().sm_count, 0);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();  // the library's launches are in the same (primary) context
}

// The workspace the variant asks for (none: a null block_row), filled with -1 so that a first kernel that
// did not write its block rows shows.
DeviceBuffer workspace_for(long long ints) {
  if (ints <= 0) return DeviceBuffer();
  DeviceBuffer w(static_cast<size_t>(ints) * sizeof(int), "exported workspace");
  REQUIRE(cudaMemset(w.get(), 0xff, w.bytes()) == cudaSuccess);
  return w;
}

struct Tables {
  const void* f32;
  const void* f64;
};

// y = alpha op(A) x + beta y0 by the exported launch function, twice with the same workspace and counters
// (hola rebuilds its block rows, a dynamic schedule must leave its counters zeroed), against the CPU reference.
void check_exported(const Tables& tables, const Variant& v, const HostMatrix& a, double alpha, double beta) {
  Context& ctx = gpu_context();
  const DeviceMatrix m = DeviceMatrix::for_variant(ctx, a, v);
  const int vc = a.vector_components();
  const int64_t x_len = is_transposed(v.op) ? a.rows : a.cols, y_len = is_transposed(v.op) ? a.cols : a.rows;
  const auto x = random_vector(x_len, vc, 3);
  const auto y0 = random_vector(y_len, vc, 5);
  DeviceVector dx(ctx, x_len, vc, v.layout.vector, v.precision), dy(ctx, y_len, vc, v.layout.vector, v.precision);
  dx.upload(x);
  const auto ax = reference_apply(a, x, v.op);
  const auto scale = reference_abs_scale(a, x, v.op);
  std::vector<double> ref(ax.size()), sc(ax.size());
  for (size_t i = 0; i < ax.size(); ++i) {
    ref[i] = alpha * ax[i] + beta * y0[i];
    sc[i] = std::abs(alpha) * scale[i] + std::abs(beta * y0[i]);
  }
  const auto* f32 = find_in_table<float>(tables.f32, v.name());
  const auto* f64 = find_in_table<double>(tables.f64, v.name());
  REQUIRE_MESSAGE((v.precision == Precision::f32 ? f32 != nullptr : f64 != nullptr), v.name(), " not in the table");
  const long long ints = f32 ? f32->workspace_ints(m.packed().nnz) : f64->workspace_ints(m.packed().nnz);
  CHECK_MESSAGE((v.layout.outer == OuterLayout::hola) == (ints > 0), v.name(), " asks for ", ints, " workspace ints");
  const DeviceBuffer workspace = workspace_for(ints);
  for (int r = 0; r < 2; ++r) {
    if (beta == 0)
      dy.poison();
    else
      dy.upload(y0);
    INFO(v.name(), " exported, on ", a.name, " (", a.rows, " x ", a.cols, ", nnz ", a.nnz(), "), launch ", r + 1,
         ", alpha ", alpha, ", beta ", beta);
    int* block_row = workspace.as<int>();
    const cudaError_t e = f32 ? launch_exported<float>(f32, m, dx, dy, alpha, beta, block_row)
                              : launch_exported<double>(f64, m, dx, dy, alpha, beta, block_row);
    REQUIRE_MESSAGE(e == cudaSuccess, cudaGetErrorString(e));
    const auto result = verify_result(dy.download(), ref, sc, default_tolerance(v.precision));
    CHECK_MESSAGE(result.ok, result.message);
  }
}

}  // namespace

TEST_CASE("gpu export: exported variants, built by nvcc and loaded as a library, match the CPU reference") {
  // Next to the test binary rather than in /tmp, which may be mounted noexec (dlopen would then fail).
  const std::string dir = std::filesystem::read_symlink("/proc/self/exe").parent_path() /
                          ("export-gpu-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::vector<Variant> variants;
  for (const auto& name : kExported) variants.push_back(Variant::parse(name));
  auto units = export_variants(variants, dir);
  std::ofstream(dir + "/tables.cu") << kTablesUnit;
  units.push_back(dir + "/tables.cu");
  const std::string lib = dir + "/libjitsparse_exported_test.so";
  const std::string error = build_library(dir, units, lib);
  REQUIRE_MESSAGE(error.empty(), error);
  void* handle = open_library(lib);
  using TableFn = const void* (*)();
  const auto f32 = reinterpret_cast<TableFn>(dlsym(handle, "exported_table_float"));
  const auto f64 = reinterpret_cast<TableFn>(dlsym(handle, "exported_table_double"));
  REQUIRE((f32 && f64));
  const Tables tables{f32(), f64()};
  for (const Variant& v : variants)
    for (bool empty : {false, true}) {
      const HostMatrix a = test_matrix(v.entry, empty);
      check_exported(tables, v, a, 1.0, 0.0);
      check_exported(tables, v, a, -0.5, 2.0);
    }
  std::filesystem::remove_all(dir);
}
