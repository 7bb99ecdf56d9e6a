#include "tuner/quick_tune.hpp"

#include <algorithm>

#include "selection/database.hpp"
#include "selection/load.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse {

std::vector<std::string> quick_step(int step, const Prediction& p, const QuickPlan& plan, const EntryType* entry,
                                    const ScheduleLimits& limits, bool unroll, bool narrow,
                                    const std::vector<std::vector<std::string>>& earlier, const TimeOf& time_of) {
  auto names = [](const std::vector<Variant>& vs) {
    std::vector<std::string> out;
    for (const auto& v : vs) out.push_back(v.name());
    return out;
  };
  std::vector<std::string> so_far;
  for (const auto& e : earlier) so_far.insert(so_far.end(), e.begin(), e.end());
  switch (step) {
    case 0:
      return quick_round_one(p, plan);
    case 1:
      return quick_round_two(p, plan, time_of);
    case 2:
      if (!plan.grid || !entry) return {};
      if (const auto seed = quick_fastest(so_far, time_of)) {
        // The grid of the seed's schedule kind only (static or dynamic): rounds one and two timed both
        // kinds already. Leave one matrix out on the H100 (thirteenth session): the same shares within 10%
        // and 3% as the whole grid, at 13.9% of the full search's GPU time instead of 15.0%.
        const Variant s = Variant::parse(*seed);
        std::vector<Variant> grid = coarse_grid_variants(*entry, s, limits);
        grid.erase(std::remove_if(grid.begin(), grid.end(),
                                  [&](const Variant& v) { return v.schedule.kind != s.schedule.kind; }),
                   grid.end());
        return names(grid);
      }
      return {};
    case 3:
      if (!plan.grid || !entry || earlier.size() < 3) return {};
      if (const auto best = quick_fastest(earlier[2], time_of)) return names(refined_grid_variants(Variant::parse(*best), limits));
      return {};
    case 4: {
      if (plan.twins <= 0) return {};
      MatrixRecord measured;  // the twins are of the fastest quick tuning measured, not of a whole record
      for (const auto& v : so_far)
        if (const auto t = time_of(v); t && !measured.find(v)) {
          MeasurementRecord m;
          m.variant = v;
          m.status = "ok";
          m.median_us = *t;
          measured.measurements.push_back(m);
        }
      return names(policy_twins(measured, plan.twins, unroll, narrow));
    }
    default:
      return {};
  }
}

Selection load_quick_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op, bool deterministic) {
  {
    TuningDatabase db(ctx.device(), ctx.cache_root());
    const Selection s = select_variant(db, a, precision, ctx.device(), op, deterministic);
    if (s.level != "model") {  // tuned already, or nothing to learn from
      ctx.kernel(s.variant);
      return s;
    }
    TuneOptions o;
    o.precisions = {precision};
    o.op = op;
    o.deterministic = deterministic;
    o.quick = true;
    o.progress = false;
    Tuner tuner(ctx, db, o);
    tuner.tune(a, "quick");
  }
  return load_tuned(ctx, a, precision, op, deterministic);
}

}  // namespace jitsparse
