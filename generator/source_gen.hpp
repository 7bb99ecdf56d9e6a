#pragma once
#include <string>

#include "core/entry_type.hpp"
#include "generator/variant.hpp"

namespace jitsparse {

// The CUDA source of one NVRTC program: the entry type's struct (from its JSON snippets) and the name
// expressions of the kernel templates to instantiate (templates/jitsparse/spmv.cuh), one per variant.
// Several variants share a program because NVRTC's front end then runs once for all of them.
struct GeneratedSource {
  std::string name;                              // for messages, e.g. the first variant's name
  std::string source;                            // includes "jitsparse/spmv.cuh"
  std::vector<std::string> variant_names;        // one per kernel
  std::vector<std::string> kernel_expressions;   // e.g. jitsparse::spmv<double, jitsparse_entry::complex<double>, ...>
};

// `template <class T> struct <name> { Matrix, Vector, zero, mac, set, get }` for the entry type.
std::string entry_struct_source(const EntryType& entry);
// Throws InvalidArgument if the entry type does not support the variant's precision.
GeneratedSource generate_source(const Variant& v, const EntryType& entry);
// One program for several variants of the same entry type and precision.
GeneratedSource generate_program(const std::vector<Variant>& variants, const EntryType& entry);
// The template instantiation of a variant, e.g. jitsparse::spmv<float, jitsparse_entry::real<float>, ...>.
std::string kernel_expression(const Variant& v, const EntryType& entry);
// The first kernel of a two-kernel variant (Variant::has_prologue): scale_y or hola_prepare; "" if none.
// In a program its kernel is named prologue_name(v).
std::string prologue_expression(const Variant& v, const EntryType& entry);
std::string prologue_name(const Variant& v);
// A program of one kernel outside the SpMV family: `#include "jitsparse/<header>"` and the kernel
// template instantiated by `expression`, named `name` (the expression when empty).
GeneratedSource single_kernel_source(const std::string& header, const std::string& expression,
                                     const std::string& name = "");
// The program of the vector move of renumbered variants: jitsparse::permute_vector<T, components, soa>
// (templates/jitsparse/permute.cuh), one kernel named by its expression.
GeneratedSource permute_source(Precision p, int components, VectorLayout layout);
// Static shared memory of a hola variant's main kernel (0 for the row family); the generator refuses
// variants above kMaxStaticShared.
constexpr int kMaxStaticShared = 48 * 1024;
int hola_shared_bytes(const Variant& v, int vector_components);
// Static shared memory of a hisparse variant: D accumulators of V scalars per group of threads.
int hisparse_shared_bytes(const Variant& v, int vector_components);
int kernel_shared_bytes(const Variant& v, int vector_components);  // whichever applies
// Throws InvalidArgument when the entry type cannot run the variant (precision, A^H x, shared memory).
void check_entry_supports(const Variant& v, const EntryType& entry);
// The same as a yes or no (the tuner's and quick tuning's grids leave out what an entry type cannot run).
bool entry_supports(const Variant& v, const EntryType& entry);

// Embedded device headers as (name, content), in the order NVRTC is given them.
struct HeaderSet {
  std::vector<std::string> names;
  std::vector<std::string> contents;
  std::string digest;  // hash of all of them, part of every cache key
};
const HeaderSet& device_headers();

}  // namespace jitsparse
