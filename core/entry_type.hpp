#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace jitsparse {

// One term of an entry's product a*x written as a bilinear map: y[out] += coeff * a[a] * x[x].
struct BilinearTerm {
  int out;
  int a;
  int x;
  double coeff;
};

// What one matrix entry is: its scalar components (in storage order), the components of one vector
// element, and how they multiply. Built-in types (real, complex, quaternion, block3, ...) and user types
// are both read from the same JSON form (configs/entries/*.json), so both paths are the same code.
//
// JSON form:
//   { "name": "complex", "description": "...",
//     "components": ["re", "im"], "vector_components": ["re", "im"],
//     "multiply": [["re", "-im"], ["im", "re"]],    // y = M(a) x: M's cells are linear in a's components
//     "mac": "acc.re += a.re * x.re - a.im * x.im; acc.im += a.re * x.im + a.im * x.re;",
//     "zero": "acc.re = T(0); acc.im = T(0);",        // optional: all components set to zero by default
//     "precisions": ["f32", "f64"],                   // optional: both by default
//     "adjoint_mac": "...",                            // optional: acc += adjoint(a) * x for A^H x
//     "adjoint": false }                               // optional: this type has no A^H x
// "multiply" drives the CPU reference; "mac" is what the GPU runs (variables acc, a, x; scalar type T).
// The adjoint (the transpose of M(a): the conjugate of a complex or quaternion entry, the transposed
// block) is derived from "multiply" unless "adjoint_mac" gives it; "adjoint": false refuses A^H x.
struct EntryType {
  std::string name;
  std::string description;
  std::vector<std::string> components;         // matrix entry components, storage order
  std::vector<std::string> vector_components;  // vector element components
  std::vector<BilinearTerm> terms;             // the product a*x as a bilinear map
  std::string mac_snippet;                     // device C++: acc += a * x
  std::string zero_snippet;                    // device C++: acc = 0
  std::string adjoint_mac_snippet;             // device C++: acc += adjoint(a) * x ("" if !has_adjoint)
  bool has_adjoint = true;                     // false: A^H x is refused with a message
  std::vector<std::string> precisions;         // "f32", "f64"
  std::string source;                          // where it was defined, for messages

  int num_components() const { return static_cast<int>(components.size()); }
  int num_vector_components() const { return static_cast<int>(vector_components.size()); }

  // y += a * x (a: num_components() values, x and y: num_vector_components()).
  void multiply_add(const double* a, const double* x, double* y) const;
  // y += adjoint(a) * x where adjoint(a) is the transpose of a's real expansion M(a): the conjugate for
  // complex and quaternion entries, the transposed block for blocks, a itself for reals.
  void adjoint_multiply_add(const double* a, const double* x, double* y) const;
  // M(a): the real v x v matrix of left multiplication by a, row-major.
  std::vector<double> expansion(const double* a) const;
  bool supports(const std::string& precision) const;
};

// Parse a definition; `source` names the file in error messages. Throws ParseError.
EntryType parse_entry_type(const nlohmann::json& j, const std::string& source);
EntryType load_entry_type_file(const std::string& path);
// A definition from JSON text; malformed JSON is a ParseError naming `source` too.
EntryType load_entry_type_string(const std::string& text, const std::string& source);

// Built-in types (embedded configs) plus any *.json in $JITSPARSE_ENTRY_PATH (a ':'-separated list of
// folders) and in extra_dirs. A user file with a built-in's name replaces it.
class EntryRegistry {
 public:
  static const EntryRegistry& instance();
  const EntryType& get(const std::string& name) const;  // throws InvalidArgument listing known names
  bool contains(const std::string& name) const;
  std::vector<std::string> names() const;
  void add(EntryType type);  // used by the CLI's --entry-config
  static EntryRegistry& mutable_instance();

 private:
  EntryRegistry();
  std::vector<EntryType> types_;
};

}  // namespace jitsparse
