#include "selection/load.hpp"

#include "selection/database.hpp"

namespace jitsparse {

Selection load_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op, bool deterministic) {
  const TuningDatabase db(TuningDatabase::path_for(ctx.device(), ctx.cache_root()));
  Selection s = select_variant(db, a, precision, ctx.device(), op, deterministic, &ctx.builder());
  ctx.kernel(s.variant);
  return s;
}

}  // namespace jitsparse
