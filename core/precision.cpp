#include "core/precision.hpp"

#include "core/error.hpp"

namespace jitsparse {

std::string to_string(Precision p) { return p == Precision::f32 ? "f32" : "f64"; }

Precision parse_precision(const std::string& s) {
  if (s == "f32" || s == "float" || s == "single") return Precision::f32;
  if (s == "f64" || s == "double") return Precision::f64;
  throw InvalidArgument("unknown precision '" + s + "' (expected f32 or f64)");
}

}  // namespace jitsparse
