#pragma once
#include <string>

namespace jitsparse {

// Which product: y = alpha op(A) x + beta y.
//   n: A x
//   t: A^T x, the transposed pattern with the same entries (no conjugation; core/reference.hpp)
//   h: A^H x, the transposed pattern with adjoint entries (the conjugate for complex and quaternion
//      entries, the transposed block for blocks: the transpose of the real expansion)
enum class Op { n, t, h };

std::string to_string(Op op);        // "n", "t", "h"
Op parse_op(const std::string& s);   // also "a"/"none", "transpose", "adjoint"/"conjugate"; throws InvalidArgument
inline bool is_transposed(Op op) { return op != Op::n; }

}  // namespace jitsparse
