#include "selection/select.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "core/features.hpp"
#include "core/permutation.hpp"
#include "core/yardstick.hpp"
#include "generator/cubin_info.hpp"

namespace jitsparse {

Variant default_variant(const HostMatrix& a, Precision p, const ScheduleLimits& limits, Op op, bool deterministic) {
  Variant v;
  v.entry = a.entry.name;
  v.precision = p;
  v.op = op;
  v.transpose = deterministic ? TransposeKind::copy : TransposeKind::atomic;
  v.layout = Layout::parse("csr-aos-aos");
  v.schedule.kind = ScheduleKind::dynamic;
  v.schedule.threads = 256;
  v.schedule.blocks_per_sm = std::max(1, std::min(limits.max_blocks_per_sm, limits.max_threads_per_sm / 256));
  const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0;
  int tpr = 1;
  while (tpr < 8 && 2 * tpr <= mean / 2) tpr *= 2;  // long rows: share them, short rows: one thread each
  v.schedule.threads_per_row = tpr;
  return v;
}

Variant without_spills(Variant v, const KernelBuilder& builder) {
  while (v.schedule.blocks_per_sm > 1) {
    int frame = -1;
    try {
      const Variant k = v.compiled_variant();
      frame = cubin_frame_bytes(builder.build(k), k.name());
    } catch (const Error&) {
      return v;  // the product reports it
    }
    if (frame <= 0) return v;  // nothing spilled, or not recorded
    v.schedule.blocks_per_sm /= 2;
  }
  return v;
}

Selection select_variant(const TuningDatabase& db, const HostMatrix& a, Precision p, const DeviceInfo& gpu,
                         Op op, bool deterministic, const KernelBuilder* builder, const SelectionModel* model) {
  auto winner_of = [deterministic](const MatrixRecord& r) { return deterministic ? r.deterministic_winner : r.winner; };
  const std::string prec = to_string(p), ops = to_string(op);
  if (op == Op::h && !a.entry.has_adjoint)
    throw InvalidArgument("entry type '" + a.entry.name + "' (" + a.entry.source + ") has no adjoint: A^H x is not available");
  // The exact lookup hashes the matrix only where a record of its shape exists (find_matrix), so a matrix
  // never tuned costs its features and the model alone. Hashing reads every byte: 16 ms for a 250 MB
  // matrix, 0.8 ms for 12 MB (2-core machine); a record still under its legacy key costs the legacy hash
  // instead, 250 ms and 13 ms, until the tuner tunes the matrix again and moves it to the new key.
  if (const MatrixRecord* r = db.find_matrix(a, prec, ops); r && !winner_of(*r).empty())
    return {Variant::parse(winner_of(*r)), "exact",
            std::string(r->search == "quick" ? "quick-tuned" : "tuned") + " on this matrix ('" + r->name + "')", {}, {}};
  // A narrow (-d16) variant learnt on other matrices needs this one's columns within 16 bits of its rows;
  // where they are not (checked only then: a pass over the rows), its wide twin runs instead.
  // A renumbered (@rcm, @degree) one needs a square matrix, and, narrow, the renumbered columns within 16
  // bits: the permutation computed here goes with the selection (Selection::permutation) for the packing.
  std::shared_ptr<const std::vector<int32_t>> permutation;
  auto for_this_matrix = [&a, &permutation](Variant v) {
    if (v.ordering != Ordering::none && a.rows != a.cols) v.ordering = Ordering::none;
    if (v.layout.narrow && v.ordering != Ordering::none) {
      permutation = std::make_shared<const std::vector<int32_t>>(ordering_permutation(a, v.ordering));
      if (!narrow_columns_fit(a, *permutation)) v.layout.narrow = false;
    } else if (v.layout.narrow && !narrow_columns_fit(a)) {
      v.layout.narrow = false;
    }
    return v;
  };
  std::optional<SelectionModel> own_model;
  if (!model) model = &own_model.emplace(db, gpu.l2_bytes);
  Prediction pred = model->predict({compute_features(a), compulsory_bytes(a, p), a.entry.name, p, op, deterministic,
                                  a.entry.num_components()});
  if (!pred.empty()) {
    const Candidate& top = pred.ranked.front();
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "never tuned: the model's first choice from %zu tuned neighbours%s (nearest '%s'), expected %.2fx "
                  "the best, confidence %.2f",
                  pred.neighbours.size(), pred.transferred ? " of other entry types" : "",
                  pred.neighbours.front().name.c_str(), top.expected_relative, pred.confidence);
    Variant pick = for_this_matrix(Variant::parse(top.variant));
    // Measured on entries of other sizes: its schedule may leave this entry too few registers.
    if (pred.transferred && builder) pick = without_spills(pick, *builder);
    return {pick, "model", detail, std::move(pred), std::move(permutation)};
  }
  for (const auto& d : db.domains())
    if (d.entry == a.entry.name && d.precision == prec && d.op == ops && !d.winner.empty() &&
        (!deterministic || Variant::parse(d.winner).deterministic())) {
      Variant pick = for_this_matrix(Variant::parse(d.winner));
      return {pick, "domain", "winner of domain '" + d.domain + "'", {}, std::move(permutation)};
    }
  Variant fallback = default_variant(a, p, schedule_limits(gpu), op, deterministic);
  if (builder) fallback = without_spills(fallback, *builder);
  return {fallback, "default", "nothing tuned for " + a.entry.name + " " + prec + " op " + ops + " on this GPU", {}, {}};
}

}  // namespace jitsparse
