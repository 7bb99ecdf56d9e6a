#include "tuner/select.hpp"

#include <algorithm>
#include <limits>

#include "core/features.hpp"
#include "runtime/context.hpp"

namespace jitsparse {

Variant default_variant(const HostMatrix& a, Precision p, const ScheduleLimits& limits) {
  Variant v;
  v.entry = a.entry.name;
  v.precision = p;
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

Selection select_variant(const TuningDatabase& db, const HostMatrix& a, Precision p, const ScheduleLimits& limits) {
  const std::string prec = to_string(p);
  if (const MatrixRecord* r = db.find(matrix_hash(a), prec); r && !r->winner.empty())
    return {Variant::parse(r->winner), "exact", "tuned on this matrix ('" + r->name + "')"};
  const MatrixFeatures f = compute_features(a);
  const MatrixRecord* nearest = nullptr;
  double best = std::numeric_limits<double>::infinity();
  for (const MatrixRecord* r : db.records()) {
    if (r->entry != a.entry.name || r->precision != prec || r->winner.empty()) continue;
    const double d = feature_distance(f, r->features);
    if (d < best) {
      best = d;
      nearest = r;
    }
  }
  if (nearest)
    return {Variant::parse(nearest->winner), "nearest",
            "winner of '" + nearest->name + "', the tuned matrix with the closest features (distance " +
                std::to_string(best) + ")"};
  for (const auto& d : db.domains())
    if (d.entry == a.entry.name && d.precision == prec && !d.winner.empty())
      return {Variant::parse(d.winner), "domain", "winner of domain '" + d.domain + "'"};
  return {default_variant(a, p, limits), "default", "nothing tuned for " + a.entry.name + " " + prec + " on this GPU"};
}

}  // namespace jitsparse
