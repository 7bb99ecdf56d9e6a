#include "tuner/quick_tune.hpp"

#include "selection/database.hpp"
#include "selection/load.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse {

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
