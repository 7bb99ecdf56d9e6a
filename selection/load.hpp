#pragma once
#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/context.hpp"
#include "runtime/device_matrix.hpp"
#include "selection/select.hpp"

namespace jitsparse {

// Run-time selection: pick the variant for a matrix from this GPU's tuning database (the exact matrix,
// else the selection model's first choice for a matrix never tuned, else the domain's winner, else a safe
// default; Selection::level and detail say which) and load its kernel into the context, so the first
// product does not compile. tuner/quick_tune.hpp measures the model's candidates instead, once per matrix.
// op: A x, A^T x or A^H x; deterministic: only variants whose result bits never change. The database is
// read once per process (with its selection model prepared) and read again when the file changes.
Selection load_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op = Op::n,
                     bool deterministic = false);
// The matrix packed as the selection's variant needs (DeviceMatrix::for_variant), with the renumbering
// that selection computed, if it did (Selection::permutation), not computed again.
DeviceMatrix pack_selected(Context& ctx, const HostMatrix& a, const Selection& s, int64_t memory_cap_bytes = 0);

}  // namespace jitsparse
