#include "generator/source_gen.hpp"

#include <algorithm>
#include <sstream>

#include "core/embedded_file.hpp"
#include "core/error.hpp"
#include "generator/hash.hpp"

namespace jitsparse {
namespace {

std::string wide_outer_type(const Layout& l);

// The outer layout policy of templates/jitsparse/layouts.cuh; a narrow layout wraps it in Narrow<>.
std::string outer_type(const Layout& l) {
  const std::string wide = wide_outer_type(l);
  return l.narrow && !wide.empty() ? "jitsparse::Narrow<" + wide + ">" : wide;
}

std::string wide_outer_type(const Layout& l) {
  switch (l.outer) {
    case OuterLayout::csr: return "jitsparse::Csr";
    case OuterLayout::ell: return "jitsparse::Ell";
    case OuterLayout::sell:
      return std::string(l.sorted() ? "jitsparse::SellSorted<" : "jitsparse::Sell<") + std::to_string(l.slice) + ">";
    case OuterLayout::hola:
    case OuterLayout::hisparse: break;  // not row-family policies
  }
  return "";
}

std::string inner_type(const Layout& l) { return l.inner == InnerLayout::aos ? "jitsparse::InnerAos" : "jitsparse::InnerSoa"; }
std::string vector_type(const Layout& l) { return l.vector == VectorLayout::aos ? "jitsparse::VecAos" : "jitsparse::VecSoa"; }
std::string mac_type(const Variant& v) { return v.op == Op::h ? "jitsparse::MacAdjoint" : "jitsparse::MacPlain"; }
std::string entry_type_arg(const Variant& v, const EntryType& entry) {
  const std::string t = scalar_type_name(v.precision);
  return t + ", jitsparse_entry::" + entry.name + "<" + t + ">";
}

// Assignments between a struct of named members and an array, e.g. "m.w = s[0]; m.x = s[1];".
std::string member_copy(const std::vector<std::string>& names, const char* lhs_fmt_obj, bool to_struct) {
  std::ostringstream o;
  for (size_t i = 0; i < names.size(); ++i) {
    if (to_struct)
      o << lhs_fmt_obj << "." << names[i] << " = s[" << i << "]; ";
    else
      o << "s[" << i << "] = " << lhs_fmt_obj << "." << names[i] << "; ";
  }
  return o.str();
}

}  // namespace

std::string entry_struct_source(const EntryType& e) {
  std::ostringstream o;
  o << "// Entry type '" << e.name << "' from " << e.source << "\n"
    << "template <class T>\nstruct " << e.name << " {\n"
    << "  static constexpr int C = " << e.num_components() << ";\n"
    << "  static constexpr int V = " << e.num_vector_components() << ";\n"
    << "  struct Matrix { T";
  for (size_t i = 0; i < e.components.size(); ++i) o << (i ? ", " : " ") << e.components[i];
  o << "; };\n  struct Vector { T";
  for (size_t i = 0; i < e.vector_components.size(); ++i) o << (i ? ", " : " ") << e.vector_components[i];
  o << "; };\n"
    << "  __device__ __forceinline__ static void zero(Vector& acc) { " << e.zero_snippet << " }\n"
    << "  __device__ __forceinline__ static void mac(Vector& acc, const Matrix& a, const Vector& x) {\n    "
    << e.mac_snippet << "\n  }\n"
    << (e.has_adjoint ? "  __device__ __forceinline__ static void mac_adjoint(Vector& acc, const Matrix& a, const Vector& x) {\n    " +
                            e.adjoint_mac_snippet + "\n  }\n"
                      : std::string())
    << "  __device__ __forceinline__ static void set(Matrix& m, const T (&s)[C]) { "
    << member_copy(e.components, "m", true) << "}\n"
    << "  __device__ __forceinline__ static void set(Vector& v, const T (&s)[V]) { "
    << member_copy(e.vector_components, "v", true) << "}\n"
    << "  __device__ __forceinline__ static void get(const Vector& v, T (&s)[V]) { "
    << member_copy(e.vector_components, "v", false) << "}\n"
    << "};\n";
  return o.str();
}

std::string kernel_expression(const Variant& v, const EntryType& entry) {
  const Schedule& sc = v.schedule;
  const bool atomic = v.op != Op::n && v.transpose == TransposeKind::atomic;
  if (v.layout.outer == OuterLayout::hisparse)
    return "jitsparse::hisparse_spmv<" + entry_type_arg(v, entry) + ", " + vector_type(v.layout) + ", " + mac_type(v) +
           ", " + std::to_string(sc.threads) + ", " + std::to_string(sc.blocks_per_sm) + ", " +
           std::to_string(v.layout.slice) + ", " + std::to_string(v.layout.coo) + ", " + std::to_string(sc.threads_per_row) + ", " +
           std::to_string(sc.unroll) + ", " + (v.op == Op::n ? "false" : "true") + ", " + (sc.small_leaves ? "true" : "false") + ", " +
           (v.layout.row_leaves ? "true" : "false") + ", " + (sc.batched_leaves ? "true" : "false") + ">";
  if (v.layout.outer == OuterLayout::hola)
    return std::string(atomic ? "jitsparse::hola_scatter<" : "jitsparse::hola_spmv<") + entry_type_arg(v, entry) +
           ", " + inner_type(v.layout) + ", " + vector_type(v.layout) + ", " + mac_type(v) + ", " +
           std::to_string(sc.threads) + ", " + std::to_string(sc.blocks_per_sm) + ", " +
           std::to_string(sc.entries_per_thread) + ">";
  return std::string(atomic ? "jitsparse::spmv_scatter<" : "jitsparse::spmv<") + entry_type_arg(v, entry) + ", " +
         outer_type(v.layout) + ", " + inner_type(v.layout) + ", " + vector_type(v.layout) + ", " +
         (sc.kind == ScheduleKind::static_ ? "jitsparse::StaticSchedule" : "jitsparse::DynamicSchedule") + ", " +
         mac_type(v) + ", " + (sc.cached_matrix ? "jitsparse::LoadCached" : "jitsparse::LoadStreaming") + ", " +
         std::to_string(sc.threads) + ", " + std::to_string(sc.blocks_per_sm) + ", " + std::to_string(sc.threads_per_row) +
         ", " + std::to_string(sc.unroll) + ">";
}

std::string prologue_expression(const Variant& v, const EntryType& entry) {
  if (!v.has_prologue()) return "";
  const std::string vec = vector_type(v.layout);
  if (v.layout.outer != OuterLayout::hola) return "jitsparse::scale_y<" + entry_type_arg(v, entry) + ", " + vec + ">";
  const bool atomic = v.op != Op::n && v.transpose == TransposeKind::atomic;
  return "jitsparse::hola_prepare<" + entry_type_arg(v, entry) + ", " + vec + ", " +
         std::to_string(v.schedule.entries_per_block()) + ", " + std::to_string(v.schedule.entries_per_thread) +
         ", " + (atomic ? "true" : "false") + ">";
}

std::string prologue_name(const Variant& v) { return v.name() + "#prologue"; }

GeneratedSource single_kernel_source(const std::string& header, const std::string& expression, const std::string& name) {
  GeneratedSource s;
  s.name = name.empty() ? expression : name;
  s.source = "#include \"jitsparse/" + header + "\"\n";
  s.variant_names = {s.name};
  s.kernel_expressions = {expression};
  return s;
}

GeneratedSource permute_source(Precision p, int components, VectorLayout layout) {
  const std::string t = p == Precision::f32 ? "float" : "double";
  return single_kernel_source("permute.cuh", "jitsparse::permute_vector<" + t + ", " + std::to_string(components) +
                                                 ", " + (layout == VectorLayout::soa ? "true" : "false") + ">");
}

int hisparse_shared_bytes(const Variant& v, int vector_components) {
  if (v.layout.outer != OuterLayout::hisparse) return 0;
  const int acc = v.schedule.threads / v.schedule.threads_per_row * v.layout.slice * vector_components * scalar_bytes(v.precision);
  // Batched leaves (-b) keep a table a thread (templates/jitsparse/hisparse.cuh, coo_batch, checks the size).
  constexpr int kBatchTableBytesPerThread = 20;
  return acc + (v.schedule.batched_leaves ? v.schedule.threads * kBatchTableBytesPerThread : 0);
}

int kernel_shared_bytes(const Variant& v, int vector_components) {
  return v.layout.outer == OuterLayout::hisparse ? hisparse_shared_bytes(v, vector_components)
                                                 : hola_shared_bytes(v, vector_components);
}

int hola_shared_bytes(const Variant& v, int vector_components) {
  if (v.layout.outer != OuterLayout::hola) return 0;
  const int n = v.schedule.entries_per_block();
  const int first_rows = v.schedule.threads * 4;  // HolaFirstRows: a row per thread
  if (v.op != Op::n && v.transpose == TransposeKind::atomic) return n * 4 + first_rows;
  // the products, each thread's partial sum of the scan, a flag per warp and each thread's first row
  return vector_components * (n + n / 32 + v.schedule.threads) * scalar_bytes(v.precision) + v.schedule.threads / 32 * 4 +
         first_rows;
}

void check_entry_supports(const Variant& v, const EntryType& entry) {
  if (entry.name != v.entry) throw InvalidArgument("variant " + v.name() + " is not of entry type '" + entry.name + "'");
  if (!entry.supports(to_string(v.precision)))
    throw InvalidArgument("entry type '" + entry.name + "' (" + entry.source + ") does not support " +
                          to_string(v.precision));
  if (v.op == Op::h && !entry.has_adjoint)
    throw InvalidArgument("entry type '" + entry.name + "' (" + entry.source +
                          ") has no adjoint (\"adjoint\": false): A^H x is not available for it");
  check_variant(v);
  const int smem = kernel_shared_bytes(v, entry.num_vector_components());
  if (smem > kMaxStaticShared)
    throw InvalidArgument("variant " + v.name() + " needs " + std::to_string(smem) +
                          " bytes of shared memory, over the " + std::to_string(kMaxStaticShared) +
                          " a kernel may hold statically: take fewer threads, entries per thread or a smaller "
                          "hisparse d, or more threads per group");
}

bool entry_supports(const Variant& v, const EntryType& entry) {
  try {
    check_entry_supports(v, entry);
    return true;
  } catch (const Error&) {
    return false;
  }
}

GeneratedSource generate_program(const std::vector<Variant>& variants, const EntryType& entry) {
  if (variants.empty()) throw InvalidArgument("generate_program: no variants");
  for (const auto& v : variants) {
    if (entry.name != v.entry || v.precision != variants[0].precision)
      throw InvalidArgument("one program holds one entry type and precision (" + v.name() + ")");
    check_entry_supports(v, entry);
  }
  const bool any_hisparse = std::any_of(variants.begin(), variants.end(),
                                       [](const Variant& v) { return v.layout.outer == OuterLayout::hisparse; });
  GeneratedSource g;
  g.name = variants[0].name() + (variants.size() > 1 ? " (+" + std::to_string(variants.size() - 1) + " schedules)" : "");
  std::ostringstream s;
  s << "// Generated by jitsparse " JITSPARSE_VERSION " for " << g.name << "\n"
    << "#include \"jitsparse/spmv.cuh\"\n#include \"jitsparse/hola.cuh\"\n"
    << (any_hisparse ? "#include \"jitsparse/hisparse.cuh\"\n" : "") << "\nnamespace jitsparse_entry {\n"
    << entry_struct_source(entry) << "}  // namespace jitsparse_entry\n";
  g.source = s.str();
  for (const auto& v : variants) {
    g.variant_names.push_back(v.name());
    g.kernel_expressions.push_back(kernel_expression(v, entry));
    if (v.has_prologue()) {
      g.variant_names.push_back(prologue_name(v));
      g.kernel_expressions.push_back(prologue_expression(v, entry));
    }
  }
  return g;
}

GeneratedSource generate_source(const Variant& v, const EntryType& entry) { return generate_program({v}, entry); }

const HeaderSet& device_headers() {
  static const HeaderSet set = [] {
    HeaderSet h;
    Sha1 digest;
    for (const auto& f : embedded_templates_list()) {
      h.names.push_back(f.path);
      h.contents.push_back(f.content);
      digest.update(f.path);
      digest.update(f.content);
    }
    h.digest = digest.hex();
    return h;
  }();
  return set;
}

}  // namespace jitsparse
