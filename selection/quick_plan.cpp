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

// Groups plan, round one: the lead candidates, then the best-ranked of each of the first groups.
std::vector<std::string> groups_round_one(const Prediction& p, const QuickPlan& plan) {
  std::vector<std::string> out;
  std::set<std::string> seen, groups;
  auto add = [&](const std::string& v) {
    if (seen.insert(v).second) out.push_back(v);
  };
  int lead = 0;
  for (const auto& c : p.ranked) {
    if (lead >= plan.lead) break;
    if (c.twin) continue;
    add(c.variant);
    ++lead;
  }
  for (const auto& c : p.ranked) {
    if (static_cast<int>(groups.size()) >= plan.groups) break;
    if (c.twin) continue;
    if (groups.insert(variant_group_key(c.variant)).second) add(c.variant);
  }
  return out;
}

// Groups plan, round two: the model's next variants of the fastest groups of round one.
std::vector<std::string> groups_round_two(const Prediction& p, const QuickPlan& plan, const TimeOf& time_of) {
  const std::vector<std::string> first = groups_round_one(p, plan);
  std::map<std::string, double> group_best;
  for (const auto& v : first)
    if (const auto t = time_of(v)) {
      auto [it, fresh] = group_best.emplace(variant_group_key(v), *t);
      if (!fresh) it->second = std::min(it->second, *t);
    }
  std::vector<std::pair<double, std::string>> fastest;
  for (const auto& [g, t] : group_best) fastest.emplace_back(t, g);
  std::sort(fastest.begin(), fastest.end());
  if (static_cast<int>(fastest.size()) > plan.best_groups) fastest.resize(plan.best_groups);
  const std::set<std::string> done(first.begin(), first.end());
  std::vector<std::string> out;
  for (const auto& [t, g] : fastest) {
    int taken = 0;
    for (const auto& c : p.ranked) {
      if (taken >= plan.per_group) break;
      if (c.twin || done.count(c.variant) || variant_group_key(c.variant) != g) continue;
      ++taken;
      out.push_back(c.variant);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> quick_round_one(const Prediction& p, const QuickPlan& plan) {
  if (plan.kind == QuickPlanKind::groups) return groups_round_one(p, plan);
  std::vector<std::string> out;
  std::set<std::string> seen, pairs;
  auto add = [&](const std::string& v) {
    if (seen.insert(v).second) out.push_back(v);
  };
  // Narrow twins the model made (Candidate::twin) are left to the last round, which times the fastest's.
  int lead = 0;
  for (const auto& c : p.ranked) {
    if (lead >= plan.lead) break;
    if (c.twin) continue;
    add(c.variant);
    ++lead;
  }
  for (const auto& c : p.ranked) {
    if (static_cast<int>(pairs.size()) >= plan.pairs) break;
    if (c.twin) continue;
    if (pairs.insert(variant_pair_key(c.variant)).second) add(c.variant);
  }
  return out;
}

std::vector<std::string> quick_round_two(const Prediction& p, const QuickPlan& plan, const TimeOf& time_of) {
  if (plan.kind == QuickPlanKind::groups) return groups_round_two(p, plan, time_of);
  const std::vector<std::string> first = quick_round_one(p, plan);
  std::map<std::string, double> pair_best;  // pair -> fastest time of round one
  for (const auto& v : first)
    if (const auto t = time_of(v)) {
      auto [it, fresh] = pair_best.emplace(variant_pair_key(v), *t);
      if (!fresh) it->second = std::min(it->second, *t);
    }
  std::vector<std::pair<double, std::string>> fastest;
  for (const auto& [pair, t] : pair_best) fastest.emplace_back(t, pair);
  std::sort(fastest.begin(), fastest.end());
  if (static_cast<int>(fastest.size()) > plan.best_pairs) fastest.resize(plan.best_pairs);

  const std::set<std::string> done(first.begin(), first.end());
  std::vector<std::string> out;
  for (const auto& [t, pair] : fastest) {
    int taken = 0;
    for (const auto& c : p.ranked) {
      if (taken >= plan.per_pair) break;
      if (c.twin || variant_pair_key(c.variant) != pair) continue;
      ++taken;
      if (!done.count(c.variant)) out.push_back(c.variant);
    }
  }
  return out;
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
