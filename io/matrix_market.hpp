#pragma once
#include <string>

#include "core/host_matrix.hpp"

namespace jitsparse {

// How to turn a file's scalar matrix into compound entries.
struct ReadOptions {
  // Entry type of the result. "real": as is. "complex": needs a complex file (or a real one: im = 0).
  // "blockB" (block2..block8, block3 built in): a real bB n x bB n matrix grouped into B x B blocks
  // (missing scalars inside a block are zeros; a size not a multiple of B is an error).
  // "quaternion": a file with field `quaternion` (lines `i j w x y z`), or a real 4n x 4n expansion whose
  // every 4x4 block must have the form [w -x -y -z; x w -z y; y z w -x; z -y x w] (else an error
  // naming the first block that is not a quaternion).
  std::string entry = "real";
  // Tolerance for the quaternion-structure check, relative to the block's largest magnitude.
  double quaternion_tolerance = 1e-12;
};

// Matrix Market reader: coordinate real/complex/integer/pattern and the field `quaternion`;
// general/symmetric/Hermitian/skew-symmetric (expanded); array format (real, complex, integer).
// Duplicates are summed. Sizes are checked against 32-bit limits. Any malformed input throws ParseError
// with "<file>:<line>: <what>"; nothing is returned half-read.
HostMatrix read_matrix_market(const std::string& path, const ReadOptions& options = {});
HostMatrix read_matrix_market_string(const std::string& text, const std::string& name,
                                     const ReadOptions& options = {});

// Writer: real -> coordinate real general; complex -> coordinate complex general;
// quaternion -> coordinate quaternion general (`i j w x y z`); blocks -> coordinate real general of the
// expanded scalar matrix (every scalar of a stored block written). Full precision (%.17g).
void write_matrix_market(const HostMatrix& a, const std::string& path);
std::string write_matrix_market_string(const HostMatrix& a);

}  // namespace jitsparse
