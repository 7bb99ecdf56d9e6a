#include "generator/export.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/embedded_file.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "generator/source_gen.hpp"

namespace fs = std::filesystem;

namespace jitsparse {
namespace {

void write(const fs::path& p, const std::string& content) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
  if (!out) throw Error("cannot write " + p.string());
}

bool is_hola(const Variant& v) { return v.layout.outer == OuterLayout::hola; }
bool is_hisparse(const Variant& v) { return v.layout.outer == OuterLayout::hisparse; }
bool scatters(const Variant& v) { return v.op != Op::n && v.transpose == TransposeKind::atomic; }

std::string params_type(const Variant& v) {
  return std::string("jitsparse::SpmvParams<") + scalar_type_name(v.precision) + ">";
}

std::string launch_signature(const Variant& v) {
  return "cudaError_t jitsparse_spmv_" + variant_identifier(v) + "(const " + params_type(v) +
         "& params, int sm_count, cudaStream_t stream)";
}

std::string workspace_signature(const Variant& v) {
  return "long long jitsparse_workspace_ints_" + variant_identifier(v) + "(long long nnz)";
}

// What the caller must know beyond the layout: vector lengths (op t/h by atomics reads x by stored row and
// writes y by stored column), the transposed copy, and the extra device arrays.
std::string usage(const Variant& v) {
  std::string u = std::string("y = alpha*") + (v.op == Op::n ? "A" : v.op == Op::t ? "A^T" : "A^H") + "*x + beta*y";
  if (v.uses_transposed_copy())
    u += "; params holds A's transposed copy (rows = A's cols): x has params.cols elements, y params.rows";
  else if (is_hisparse(v))
    u += std::string("; params.hs_* hold the hisparse pool and the strips of ") + (v.op == Op::n ? "A x" : "A^T x") +
         " (core/layout.hpp; hs_big_strips: strips with at least " + std::to_string(v.schedule.big_strip) +
         " slots)" + (v.op == Op::n ? "" : ", sums by shared atomics");
  else if (scatters(v))
    u += " by atomics (order of the sums varies): x has params.rows elements, y params.cols";
  else
    u += ": x has params.cols elements, y params.rows";
  if (is_hola(v)) u += "; params.block_row -> jitsparse_workspace_ints_" + variant_identifier(v) + "(nnz) ints";
  if (v.schedule.kind == ScheduleKind::dynamic) u += "; params.counters -> two zeroed unsigned";
  return u;
}

// One kernel launch as runtime/spmv.cpp makes it (cudaLaunchKernel with the params as the only argument),
// except that a zero grid (empty matrix) launches nothing, as the runtime skips it too.
std::string launch_helper(const Variant& v) {
  std::ostringstream o;
  o << "namespace {\n"
    << "cudaError_t launch_kernel(const void* kernel, long long grid, int threads, const " << params_type(v)
    << "& params,\n                          cudaStream_t stream) {\n"
    << "  if (grid <= 0) return cudaSuccess;  // empty matrix: nothing to do, as jitsparse's runtime skips it\n"
    << "  void* args[] = {const_cast<" << params_type(v) << "*>(&params)};\n"
    << "  return cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(threads)), "
       "args, 0, stream);\n"
    << "}\n}  // namespace\n\n";
  return o.str();
}

std::string kernel_pointer(const std::string& expression) {
  return "reinterpret_cast<const void*>(&" + expression + ")";
}

// The workspace function: hola needs the first row of each block (blocks + 1 ints, as the runtime
// allocates); the others need none.
std::string workspace_function(const Variant& v) {
  std::ostringstream o;
  o << "// Ints of device memory params.block_row must point at"
    << (is_hola(v) ? "" : " (none: this variant has no workspace)") << ".\n" << workspace_signature(v) << " {\n";
  if (is_hola(v)) {
    const int per_block = v.schedule.entries_per_block();
    o << "  return (nnz + " << per_block - 1 << ") / " << per_block << " + 1;  // one per block of " << per_block
      << " entries, plus one\n";
  } else {
    o << "  (void)nnz;\n  return 0;\n";
  }
  o << "}\n\n";
  return o.str();
}

// Row layouts: n_b x SM count blocks, but never more than there are chunks of rows (at least one), cut to
// an even share of chunks per block for an -even schedule (row_kernel_blocks); op t/h
// by atomics first scales the cols elements of y with at most 8 blocks per SM.
std::string row_launch_body(const Variant& v, const EntryType& entry) {
  const int rows_per_chunk = v.schedule.threads / v.schedule.threads_per_row;
  std::ostringstream o;
  o << "  if (sm_count < 1) return cudaErrorInvalidValue;\n"
    << "  const long long chunks = (static_cast<long long>(params.rows) + " << rows_per_chunk - 1 << ") / "
    << rows_per_chunk << ";\n"
    << "  const long long full = " << v.schedule.blocks_per_sm << "LL * sm_count;\n"
    << "  const long long grid = chunks < 1 ? 1 : (chunks < full ? chunks : full);\n";
  if (v.schedule.even_grid)  // as few blocks as give each the same number of chunks (Schedule::even_grid)
    o << "  const long long per_block = chunks < 1 ? 1 : (chunks + grid - 1) / grid;\n"
      << "  const long long even_grid = chunks < 1 ? 1 : (chunks + per_block - 1) / per_block;\n";
  if (v.has_prologue()) {
    o << "  // y = beta*y over its params.cols elements, before the main kernel adds into it by atomics.\n"
      << "  const long long col_blocks = (static_cast<long long>(params.cols) + 255) / 256;\n"
      << "  const long long scale_grid = col_blocks < 8LL * sm_count ? col_blocks : 8LL * sm_count;\n"
      << "  const cudaError_t e = launch_kernel(" << kernel_pointer(prologue_expression(v, entry))
      << ", scale_grid, 256, params, stream);\n"
      << "  if (e != cudaSuccess) return e;\n";
  }
  o << "  return launch_kernel(" << kernel_pointer(kernel_expression(v, entry)) << ", "
    << (v.schedule.even_grid ? "even_grid" : "grid") << ", " << v.schedule.threads << ", params, stream);\n";
  return o.str();
}

// Hola: one block per n_t x ept entries; the first kernel visits every row (and, for op t/h by atomics,
// every column, to scale y) with 256 threads per block and writes params.block_row.
std::string hola_launch_body(const Variant& v, const EntryType& entry) {
  const int per_block = v.schedule.entries_per_block();
  std::ostringstream o;
  o << "  (void)sm_count;  // the grid follows the entries, not the SMs\n"
    << "  if (params.block_row == nullptr) return cudaErrorInvalidValue;  // see jitsparse_workspace_ints_"
    << variant_identifier(v) << "\n"
    << "  const long long blocks = (params.nnz + " << per_block - 1 << ") / " << per_block << ";\n"
    << "  if (blocks > 0x7fffffffLL) return cudaErrorInvalidValue;  // too many entries for one grid\n";
  if (scatters(v))
    o << "  const long long visit = params.cols > params.rows ? params.cols : params.rows;\n";
  else
    o << "  const long long visit = params.rows;\n";
  o << "  const cudaError_t e = launch_kernel(" << kernel_pointer(prologue_expression(v, entry))
    << ", (visit + 255) / 256, 256, params, stream);\n"
    << "  if (e != cudaSuccess) return e;\n"
    << "  return launch_kernel(" << kernel_pointer(kernel_expression(v, entry)) << ", blocks, " << v.schedule.threads
    << ", params, stream);\n";
  return o.str();
}

// HiSparse: a block for each big strip, then n_b x SM count blocks, at most one group per remaining strip.
std::string hisparse_launch_body(const Variant& v, const EntryType& entry) {
  const int groups = v.schedule.threads / v.schedule.threads_per_row;
  std::ostringstream o;
  o << "  if (sm_count < 1 || params.hs_big_strips < 0 || params.hs_big_strips > params.hs_strips) return cudaErrorInvalidValue;\n"
    << "  const long long small = static_cast<long long>(params.hs_strips) - params.hs_big_strips;\n"
    << "  const long long wanted = (small + " << groups - 1 << ") / " << groups << ";\n"
    << "  const long long full = " << v.schedule.blocks_per_sm << "LL * sm_count;\n"
    << "  const long long grid = params.hs_big_strips + (wanted < full ? wanted : full);\n"
    << "  return launch_kernel(" << kernel_pointer(kernel_expression(v, entry)) << ", grid, " << v.schedule.threads
    << ", params, stream);\n";
  return o.str();
}

// The .cu of one variant: the generated source (entry struct), then the workspace and launch functions,
// which instantiate the kernels with the same template arguments NVRTC would and launch them with the
// grids of runtime/spmv.cpp (SpmvLaunch).
std::string variant_unit(const Variant& v) {
  const EntryType& entry = EntryRegistry::instance().get(v.entry);
  const GeneratedSource src = generate_source(v, entry);
  std::ostringstream o;
  o << src.source << "\n#include \"jitsparse_exported.h\"\n\n" << launch_helper(v) << workspace_function(v)
    << "// " << v.name() << ": " << usage(v) << ".\n" << launch_signature(v) << " {\n"
    << (is_hola(v) ? hola_launch_body(v, entry) : is_hisparse(v) ? hisparse_launch_body(v, entry) : row_launch_body(v, entry))
    << "}\n";
  return o.str();
}

// Two variants whose identifiers collide would define the same functions.
void check_identifiers(const std::vector<Variant>& variants) {
  std::map<std::string, std::string> seen;
  for (const auto& v : variants) {
    const auto [it, fresh] = seen.emplace(variant_identifier(v), v.name());
    if (!fresh)
      throw InvalidArgument(it->second == v.name() ? "variant " + v.name() + " is given twice"
                                                   : "variants " + it->second + " and " + v.name() +
                                                         " have the same C identifier " + it->first);
  }
}

std::string header_source(const std::vector<Variant>& variants) {
  std::ostringstream header;
  header << "// Generated by jitsparse " JITSPARSE_VERSION ": launch functions of the exported SpMV variants.\n"
         << "// Array layouts, vector lengths and workspaces: see README.md.\n#pragma once\n"
         << "#include <cuda_runtime.h>\n#include \"jitsparse/params.cuh\"\n\n";
  for (const auto& v : variants)
    header << "// " << v.name() << ": " << usage(v) << ".\n"
           << launch_signature(v) << ";\n" << workspace_signature(v) << ";\n";
  for (const char* t : {"float", "double"}) {
    header << "\nstruct jitsparse_exported_" << t << " {\n  const char* name;\n  cudaError_t (*launch)("
           << "const jitsparse::SpmvParams<" << t << ">&, int, cudaStream_t);\n"
           << "  long long (*workspace_ints)(long long nnz);  // of params.block_row; 0: none\n};\n"
           << "static const jitsparse_exported_" << t << " jitsparse_exported_" << t << "_variants[] = {\n";
    for (const auto& v : variants)
      if (std::string(scalar_type_name(v.precision)) == t)
        header << "    {\"" << v.name() << "\", jitsparse_spmv_" << variant_identifier(v)
               << ", jitsparse_workspace_ints_" << variant_identifier(v) << "},\n";
    header << "    {nullptr, nullptr, nullptr}};\n";
  }
  return header.str();
}

std::string cmake_source(const ExportOptions& options) {
  std::ostringstream cmake;
  cmake << "# Generated by jitsparse " JITSPARSE_VERSION ". Build: cmake -S . -B build && cmake --build build\n"
        << "cmake_minimum_required(VERSION 3.24)\nproject(jitsparse_exported LANGUAGES CXX CUDA)\n"
        << "set(CMAKE_CUDA_STANDARD 17)\n"
        << "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES " << options.arch
        << ")\nendif()\nfile(GLOB kernels ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cu)\n"
        << "add_library(jitsparse_exported STATIC ${kernels})\n"
        << "target_include_directories(jitsparse_exported PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} "
           "${CMAKE_CURRENT_SOURCE_DIR}/include)\n";
  return cmake.str();
}

std::string readme_source(const std::vector<Variant>& variants) {
  std::ostringstream readme;
  readme << "# SpMV kernels exported by jitsparse " JITSPARSE_VERSION "\n\nVariants:\n";
  for (const auto& v : variants)
    readme << "- `" << v.name() << "`: `jitsparse_spmv_" << variant_identifier(v) << "`; " << usage(v) << "\n";
  readme
      << "\nEach launch function enqueues y = alpha*op(A)*x + beta*y on `stream` (one kernel, or two for hola "
         "and for op t/h by atomics) and returns the launch error (cudaErrorInvalidValue for a missing "
         "workspace or an `sm_count` below 1 where it is used). `sm_count` is the device's number of SMs "
         "(cudaDevAttrMultiProcessorCount): row layouts launch blocks-per-SM x `sm_count` blocks, at most one "
         "per chunk of rows; hola launches one block per n_t x ept entries. An empty matrix launches nothing.\n"
         "Fill `jitsparse::SpmvParams<T>` (include/jitsparse/params.cuh) with device arrays laid out as below, "
         "and always `rows`, `cols` (of the stored matrix) and `nnz` (stored entries). `y_map` may stay null; "
         "non-null, element i of the product is written to y element y_map[i] (a renumbered matrix whose "
         "result goes straight into the caller's numbering: y_map = the inverse permutation, new -> old). "
         "`x_caller`, `x_map` and `x_moved` may stay null; for hola, non-null x_caller makes the first kernel "
         "write x_moved[i] = x_caller[x_map[i]] (x_map = the inverse permutation; x must then be x_moved). "
         "A variant whose name ends in `-ymove` was fastest with y left in the renumbered numbering (y_map null, "
         "beta 0) and gathered back afterwards: y[j] = y'[perm[j]] + beta*y[j].\n"
         "Dynamic schedules need `counters` to point at two zeroed `unsigned` on the device (the kernel leaves "
         "them zeroed).\n"
         "Hola variants need `block_row` to point at `jitsparse_workspace_ints_<id>(nnz)` ints of device memory "
         "(one per block of entries, plus one; the first kernel writes it on every launch, so a launch owns it "
         "until it completes); the function returns 0 for variants without a workspace.\n\n"
         "Matrix layouts:\n"
         "- csr: row_ptr[rows+1]; element k of row r at position row_ptr[r]+k.\n"
         "- hola: the csr arrays (row_ptr, col_idx, values), nothing precomputed; `nnz` = row_ptr[rows].\n"
         "- sellK: rows padded to a multiple of K; slice_ptr[s] = first position of slice s; element k of row r "
         "at slice_ptr[r/K] + k*K + r%K; row_len[r] = entries of row r.\n"
         "- sellKsW (sorted sell): sellK of the rows taken in sorted order (inside each window of W rows, longest "
         "first, ties in row order); row_perm[r] = the matrix row that stored row r holds (its y element; -1 for "
         "padded rows); `rows` stays the matrix's.\n"
         "- ell: element k of row r at k*ell_stride + r (ell_stride = rows padded to a multiple of 32; ell_width = "
         "stored positions / ell_stride, the padded row length); row_len.\n"
         "- narrow (`-d16` after the layout, csr/ell/sell): `col_idx` points at int16 offsets instead of int32 "
         "columns: the column of position p in stored row r is (row_perm[r] for a sorted sell, else r) + "
         "offset[p]; every |column - row| must be at most 32767.\n"
         "- inner aos: component i of position p at values[p*C+i]; soa: values[i*value_stride+p].\n"
         "- vector aos: x[j*V+i]; soa: x[i*x_stride+j] (x_stride, y_stride: scalars per component array).\n\n"
         "Operations:\n"
         "- op n: y = alpha*A*x + beta*y; x has `cols` elements, y has `rows`.\n"
         "- op t/h by atomics (`/t-atomic`, `/h-atomic`): the arrays are those of A itself; the first kernel "
         "sets y = beta*y, the second adds each entry's product into y by atomics (the order of the sums, so "
         "the last bits, vary from run to run). x has `rows` elements and y has `cols` (x is indexed by A's rows, "
         "y by its columns): x_stride and y_stride follow those lengths.\n"
         "- op t/h by copy (`/t-copy`, `/h-copy`): the arrays are those of a transposed copy of A, i.e. A^T's "
         "pattern holding A's entries unchanged (entry (j, i) of the copy is a_ij; op h applies each entry's "
         "adjoint in the kernel), packed in the variant's layout like any matrix; `rows`/`cols` are the copy's "
         "(A's cols/rows). x has the copy's `cols` elements and y its `rows`. Deterministic.\n";
  return readme.str();
}

}  // namespace

std::string variant_identifier(const Variant& v) {
  std::string id = v.name();
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return id;
}

std::vector<std::string> export_variants(const std::vector<Variant>& variants, const std::string& out_dir,
                                         const ExportOptions& options) {
  if (variants.empty()) throw InvalidArgument("nothing to export: no variants given");
  check_identifiers(variants);
  // Generate every unit before writing anything: a variant the entry type cannot run (precision, adjoint,
  // shared memory) fails here with generate_source's message, and no half-written folder is left.
  std::vector<std::string> sources;
  for (const auto& v : variants) sources.push_back(variant_unit(v));

  const fs::path root(out_dir);
  for (const auto& f : embedded_templates_list()) write(root / "include" / f.path, f.content);
  write(root / "jitsparse_exported.h", header_source(variants));
  std::vector<std::string> units;
  for (size_t i = 0; i < variants.size(); ++i) {
    const fs::path p = root / "kernels" / (variant_identifier(variants[i]) + ".cu");
    write(p, sources[i]);
    units.push_back(p.string());
  }
  write(root / "CMakeLists.txt", cmake_source(options));
  write(root / "README.md", readme_source(variants));
  return units;
}

}  // namespace jitsparse
