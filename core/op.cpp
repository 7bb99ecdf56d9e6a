#include "core/op.hpp"

#include "core/error.hpp"

namespace jitsparse {

std::string to_string(Op op) {
  switch (op) {
    case Op::t: return "t";
    case Op::h: return "h";
    default: return "n";
  }
}

Op parse_op(const std::string& s) {
  if (s == "n" || s == "a" || s == "none" || s == "N") return Op::n;
  if (s == "t" || s == "transpose" || s == "T") return Op::t;
  if (s == "h" || s == "adjoint" || s == "conjugate-transpose" || s == "H") return Op::h;
  throw InvalidArgument("unknown operation '" + s + "' (expected n for A x, t for A^T x, h for A^H x)");
}

}  // namespace jitsparse
