#pragma once
#include <string>

#include "core/host_matrix.hpp"
#include "generator/search_space.hpp"
#include "generator/variant.hpp"
#include "selection/database.hpp"

namespace jitsparse {

// Which variant to run for a matrix on this GPU, and how it was found.
struct Selection {
  Variant variant;
  std::string level;   // "exact" (this matrix was tuned), "nearest" (the tuned matrix with the closest
                       // features), "domain" (the domain's winner), "default" (nothing tuned for this entry)
  std::string detail;  // e.g. the matrix it was taken from
};

// Records of another operation (op n, t, h) are never used: a variant computes one operation.
// deterministic: only variants whose result bits never change (the records' deterministic winners).
Selection select_variant(const TuningDatabase& db, const HostMatrix& a, Precision p, const ScheduleLimits& limits,
                         Op op = Op::n, bool deterministic = false);
// The safe default: csr-aos-aos, dynamic, 256 threads, a few threads per row for long rows; for op t and
// h the atomic kind (no second copy of the matrix), or the copy kind when it must be deterministic.
Variant default_variant(const HostMatrix& a, Precision p, const ScheduleLimits& limits, Op op = Op::n,
                        bool deterministic = false);

}  // namespace jitsparse
