#pragma once
#include <string>

#include "core/entry_type.hpp"
#include "generator/variant.hpp"

namespace jitsparse {

// The CUDA source of one variant: the entry type's struct (from its JSON snippets) and the name
// expression of the kernel template to instantiate (templates/jitsparse/spmv.cuh).
struct GeneratedSource {
  std::string variant_name;
  std::string source;             // includes "jitsparse/spmv.cuh"
  std::string kernel_expression;  // e.g. jitsparse::spmv<double, jitsparse_entry::complex<double>, ...>
};

// `template <class T> struct <name> { Matrix, Vector, zero, mac, set, get }` for the entry type.
std::string entry_struct_source(const EntryType& entry);
// Throws InvalidArgument if the entry type does not support the variant's precision.
GeneratedSource generate_source(const Variant& v, const EntryType& entry);

// Embedded device headers as (name, content), in the order NVRTC is given them.
struct HeaderSet {
  std::vector<std::string> names;
  std::vector<std::string> contents;
  std::string digest;  // hash of all of them, part of every cache key
};
const HeaderSet& device_headers();

}  // namespace jitsparse
