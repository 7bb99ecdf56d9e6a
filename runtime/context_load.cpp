// Context::load: run-time selection from the tuning database (tuner/select.hpp).
#include "runtime/context.hpp"
#include "tuner/database.hpp"
#include "tuner/select.hpp"

namespace jitsparse {

Context::Choice Context::load(const HostMatrix& a, Precision precision, Op op, bool deterministic) {
  const TuningDatabase db(TuningDatabase::path_for(info_, cache_root_));
  const Selection s = select_variant(db, a, precision, ScheduleLimits::from(info_), op, deterministic);
  kernel(s.variant);
  return {s.variant, s.level, s.detail};
}

}  // namespace jitsparse
