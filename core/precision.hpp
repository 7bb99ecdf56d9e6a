#pragma once
#include <string>

namespace jitsparse {

enum class Precision { f32, f64 };

std::string to_string(Precision p);             // "f32" / "f64"
Precision parse_precision(const std::string& s);  // accepts f32, float, single, f64, double
inline int scalar_bytes(Precision p) { return p == Precision::f32 ? 4 : 8; }
inline const char* scalar_type_name(Precision p) { return p == Precision::f32 ? "float" : "double"; }

}  // namespace jitsparse
