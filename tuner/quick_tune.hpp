#pragma once
#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/context.hpp"
#include "selection/select.hpp"

namespace jitsparse {

// load_tuned for a matrix that may never have been tuned: instead of trusting the selection model's first
// choice, measure its candidates on this matrix in four rounds (selection/quick_plan.hpp: about 50
// variants, a median 0.07 s of GPU time on the small tests/data matrices, plus compiling and packing them
// on the host), record the result in the tuning database as a quick search, and load the fastest. Done
// once per matrix: the next call finds the record ("exact"). A matrix the database already holds, or an
// entry type the model knows nothing of, is loaded as load_tuned would (then Selection::level says
// "domain" or "default").
Selection load_quick_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op = Op::n,
                           bool deterministic = false);

}  // namespace jitsparse
