#include "selection/quick_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "generator/variant.hpp"

namespace jitsparse {

QuickPlan quick_plan(int wanted, QuickPlanKind kind) {
  QuickPlan plan;
  plan.kind = kind;
  if (wanted > 0) (kind == QuickPlanKind::pairs ? plan.pairs : plan.groups) = wanted;
  return plan;
}

QuickPlanKind parse_quick_plan_kind(const std::string& s) {
  if (s == "pairs") return QuickPlanKind::pairs;
  if (s == "groups") return QuickPlanKind::groups;
  throw InvalidArgument("quick plan '" + s + "' (expected groups or pairs)");
}

const char* to_string(QuickPlanKind k) { return k == QuickPlanKind::pairs ? "pairs" : "groups"; }

std::string variant_group_key(const std::string& variant) {
  const Variant v = Variant::parse(variant);
  std::string key = v.layout.outer_name() + "/tpr" + std::to_string(v.schedule.threads_per_row);
  if (v.op != Op::n) key += "/" + to_string(v.op) + "-" + to_string(v.transpose);
  if (v.ordering != Ordering::none) key += "@" + to_string(v.ordering);
  return key;
}

namespace {

using KeyOf = std::string (*)(const std::string&);

// Round one of either plan: the model's first `lead` candidates, then its best-ranked variant of each of
// its first `units` units (pairs or groups, by `key`). Narrow twins the model made (Candidate::twin) are
// left to the last round, which times the fastest's.
std::vector<std::string> first_of_each(const Prediction& p, int lead, int units, KeyOf key) {
  std::vector<std::string> out;
  std::set<std::string> seen, taken;
  auto add = [&](const std::string& v) {
    if (seen.insert(v).second) out.push_back(v);
  };
  int led = 0;
  for (const auto& c : p.ranked) {
    if (led >= lead) break;
    if (c.twin) continue;
    add(c.variant);
    ++led;
  }
  for (const auto& c : p.ranked) {
    if (static_cast<int>(taken.size()) >= units) break;
    if (c.twin) continue;
    if (taken.insert(key(c.variant)).second) add(c.variant);
  }
  return out;
}

// Round two of either plan: the model's next `per_unit` variants of the `best_units` units that ran
// fastest in round one (`first`). The pairs plan counts round one's variants among its `per_unit`
// (count_first), the groups plan takes that many new ones.
std::vector<std::string> next_of_fastest(const Prediction& p, const std::vector<std::string>& first, int best_units,
                                         int per_unit, bool count_first, KeyOf key, const TimeOf& time_of) {
  std::map<std::string, double> unit_best;  // unit -> fastest time of round one
  for (const auto& v : first)
    if (const auto t = time_of(v)) {
      auto [it, fresh] = unit_best.emplace(key(v), *t);
      if (!fresh) it->second = std::min(it->second, *t);
    }
  std::vector<std::pair<double, std::string>> fastest;
  for (const auto& [unit, t] : unit_best) fastest.emplace_back(t, unit);
  std::sort(fastest.begin(), fastest.end());
  if (static_cast<int>(fastest.size()) > best_units) fastest.resize(best_units);
  const std::set<std::string> done(first.begin(), first.end());
  std::vector<std::string> out;
  for (const auto& [t, unit] : fastest) {
    int taken = 0;
    for (const auto& c : p.ranked) {
      if (taken >= per_unit) break;
      if (c.twin || key(c.variant) != unit || (!count_first && done.count(c.variant))) continue;
      ++taken;
      if (!done.count(c.variant)) out.push_back(c.variant);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> quick_round_one(const Prediction& p, const QuickPlan& plan) {
  return plan.kind == QuickPlanKind::groups ? first_of_each(p, plan.lead, plan.groups, variant_group_key)
                                            : first_of_each(p, plan.lead, plan.pairs, variant_pair_key);
}

std::vector<std::string> quick_round_two(const Prediction& p, const QuickPlan& plan, const TimeOf& time_of) {
  const std::vector<std::string> first = quick_round_one(p, plan);
  return plan.kind == QuickPlanKind::groups
             ? next_of_fastest(p, first, plan.best_groups, plan.per_group, false, variant_group_key, time_of)
             : next_of_fastest(p, first, plan.best_pairs, plan.per_pair, true, variant_pair_key, time_of);
}

TimeOf record_times(const MatrixRecord& r) {
  return [&r](const std::string& v) -> std::optional<double> {
    const MeasurementRecord* m = r.find(v);
    if (!m || !m->ok()) return std::nullopt;
    return m->median_us;
  };
}

std::optional<std::string> quick_fastest(const std::vector<std::string>& measured, const TimeOf& time_of) {
  std::optional<std::string> best;
  double best_t = 0;
  for (const auto& v : measured)
    if (const auto t = time_of(v); t && (!best || *t < best_t)) {
      best = v;
      best_t = *t;
    }
  return best;
}

}  // namespace jitsparse
