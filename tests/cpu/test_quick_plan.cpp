// Quick tuning's rounds (selection/quick_plan.hpp): which variants each round asks for.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "selection/quick_plan.hpp"
#include "tuner/quick_tune.hpp"
#include "tuner/tuner.hpp"

using namespace jitsparse;

namespace {

Prediction ranked(const std::vector<std::string>& variants) {
  Prediction p;
  for (const auto& v : variants) p.ranked.push_back({v, 1.0, 0.0, 1});
  return p;
}

TimeOf times_of(const std::map<std::string, double>& t) {
  return [t](const std::string& v) -> std::optional<double> {
    auto it = t.find(v);
    if (it == t.end()) return std::nullopt;
    return it->second;
  };
}

const std::vector<std::string> kRanking = {
    "real.f64/csr-aos-aos/static-256x8-tpr4",   // pair csr/4
    "real.f64/csr-aos-aos/static-128x8-tpr4",   // csr/4 again
    "real.f64/ell-aos-aos/static-256x8",        // ell/1
    "real.f64/csr-aos-aos/static-512x4-tpr4",   // csr/4
    "real.f64/sell32-aos-aos/static-256x8",     // sell32/1
    "real.f64/ell-aos-aos/static-64x24",        // ell/1
    "real.f64/csr-aos-aos/static-256x8-tpr8",   // csr/8
    "real.f64/ell-aos-aos/static-1024x2",       // ell/1
    "real.f64/hola-aos-aos/hola-64x32-ept4",    // hola
};

}  // namespace

TEST_CASE("quick plan: pair keys ignore the schedule but keep threads per row and kind") {
  CHECK(variant_pair_key("real.f64/csr-aos-aos/static-256x8-tpr4") == "csr-aos-aos/4/");
  CHECK(variant_pair_key("real.f64/csr-aos-aos/dynamic-64x4-tpr4") == "csr-aos-aos/4/");
  CHECK(variant_pair_key("real.f64/ell-soa-aos/static-256x2") == "ell-soa-aos/1/");
  CHECK(variant_pair_key("real.f64/csr-aos-aos/static-256x8-tpr4/t-atomic") == "csr-aos-aos/4/t-atomic");
  CHECK(variant_pair_key("real.f64/hola-aos-aos/hola-64x32-ept4") == variant_pair_key("real.f64/hola-aos-aos/hola-256x8-ept8"));
}

TEST_CASE("quick plan (pairs): round one takes the first candidates and the first of each pair") {
  QuickPlan plan;
  plan.kind = QuickPlanKind::pairs;
  plan.lead = 2;
  plan.pairs = 3;
  const auto one = quick_round_one(ranked(kRanking), plan);
  // lead: the first two; pairs: csr/4 (already in), ell/1, sell32/1 (the third pair), no more.
  REQUIRE(one.size() == 4);
  CHECK(one[0] == kRanking[0]);
  CHECK(one[1] == kRanking[1]);
  CHECK(one[2] == kRanking[2]);
  CHECK(one[3] == kRanking[4]);
  CHECK(quick_round_one(Prediction{}, plan).empty());
  CHECK(quick_plan(0, QuickPlanKind::pairs).pairs == QuickPlan{}.pairs);
  CHECK(quick_plan(5, QuickPlanKind::pairs).pairs == 5);
  CHECK(quick_plan(5).groups == 5);  // the default plan is groups
  CHECK(quick_plan(5).pairs == QuickPlan{}.pairs);
}

namespace {
// A plan small enough to follow by hand: one lead candidate, three pairs, the best one refined by three.
QuickPlan small_plan() {
  QuickPlan plan;
  plan.kind = QuickPlanKind::pairs;
  plan.lead = 1;
  plan.pairs = 3;
  plan.best_pairs = 1;
  plan.per_pair = 3;
  return plan;
}
}  // namespace

TEST_CASE("quick plan (pairs): round two times the model's schedules of the fastest pairs of round one") {
  QuickPlan plan = small_plan();
  const Prediction p = ranked(kRanking);
  // Round one: csr/4 (256x8), ell/1 (256x8), sell32/1. ell is fastest: its next schedules follow.
  const auto two = quick_round_two(p, plan, times_of({{kRanking[0], 10.0}, {kRanking[2], 8.0}, {kRanking[4], 9.0}}));
  REQUIRE(two.size() == 2);  // per_pair 3 counts the one round one timed
  CHECK(two[0] == kRanking[5]);
  CHECK(two[1] == kRanking[7]);
  // Nothing timed (every variant failed): no pair to refine.
  CHECK(quick_round_two(p, plan, times_of({})).empty());
  // Two best pairs: csr/4's schedules follow ell/1's.
  plan.best_pairs = 2;
  const auto both = quick_round_two(p, plan, times_of({{kRanking[0], 8.5}, {kRanking[2], 8.0}, {kRanking[4], 9.0}}));
  REQUIRE(both.size() == 4);
  CHECK(both[2] == kRanking[1]);
  CHECK(both[3] == kRanking[3]);
}

TEST_CASE("quick plan: the seed of round three is the fastest timed variant") {
  const auto t = times_of({{"a", 3.0}, {"b", 2.0}, {"c", 2.5}});
  CHECK(quick_fastest({"a", "b", "c", "d"}, t) == std::optional<std::string>("b"));
  CHECK_FALSE(quick_fastest({"d", "e"}, t).has_value());
  CHECK_FALSE(quick_fastest({}, t).has_value());
}

TEST_CASE("quick steps (pairs): the grid around the fastest, its refinement, then the policy twin") {
  QuickPlan plan = small_plan();
  const Prediction p = ranked(kRanking);
  const EntryType& real = EntryRegistry::instance().get("real");
  ScheduleLimits limits;
  std::map<std::string, double> t = {{kRanking[0], 10.0}, {kRanking[2], 8.0}, {kRanking[4], 9.0}, {kRanking[5], 7.0}};
  std::vector<std::vector<std::string>> steps;
  for (int k = 0; k < 2; ++k) steps.push_back(quick_step(k, p, plan, QuickMatrix{&real, limits, false, false}, steps, times_of(t)));
  CHECK(steps[0] == quick_round_one(p, plan));
  CHECK(steps[1] == quick_round_two(p, plan, times_of(t)));
  // Step 2: the search's coarse grid around the fastest so far (ell 64x24 at 7 us), of its schedule kind.
  steps.push_back(quick_step(2, p, plan, QuickMatrix{&real, limits, false, false}, steps, times_of(t)));
  const Variant seed = Variant::parse(kRanking[5]);
  std::vector<std::string> coarse;
  bool other_kind = false;
  for (const auto& v : coarse_grid_variants(real, seed, limits)) {
    if (v.schedule.kind == seed.schedule.kind) coarse.push_back(v.name());
    else other_kind = true;
  }
  CHECK(other_kind);  // the search's grid has both kinds; quick tuning's only the seed's
  CHECK(steps[2] == coarse);
  // Step 3: the refinement around the fastest of step 2.
  t[coarse.back()] = 6.0;
  steps.push_back(quick_step(3, p, plan, QuickMatrix{&real, limits, false, false}, steps, times_of(t)));
  std::vector<std::string> refined;
  for (const auto& v : refined_grid_variants(Variant::parse(coarse.back()), limits)) refined.push_back(v.name());
  CHECK(steps[3] == refined);
  // Step 4: the cached twin of the fastest measured so far.
  const auto twins = quick_step(4, p, plan, QuickMatrix{&real, limits, false, false}, steps, times_of(t));
  Variant cached = Variant::parse(coarse.back());
  cached.schedule.cached_matrix = true;
  REQUIRE(twins.size() == 1);
  CHECK(twins[0] == cached.name());
  // Without the grid (or an entry type nobody registered) round three is empty; the twin still comes.
  plan.grid = false;
  CHECK(quick_step(2, p, plan, QuickMatrix{&real, limits, false, false}, steps, times_of(t)).empty());
  CHECK(quick_step(3, p, plan, QuickMatrix{nullptr, limits, false, false}, steps, times_of(t)).empty());
  CHECK(quick_step(4, p, plan, QuickMatrix{nullptr, limits, false, false}, steps, times_of(t)).size() == 1);
  // On a large matrix the unrolled twins join it.
  CHECK(quick_step(4, p, plan, QuickMatrix{&real, limits, true, false}, steps, times_of(t)).size() == 3);
  // Where the matrix fits 16-bit column offsets: the narrow form of the variant and of each twin.
  const auto narrow = quick_step(4, p, plan, QuickMatrix{&real, limits, true, true}, steps, times_of(t));
  CHECK(narrow.size() == 7);
  CHECK(std::count_if(narrow.begin(), narrow.end(), [](const std::string& n) { return Variant::parse(n).layout.narrow; }) == 4);
}

TEST_CASE("quick plan (groups): a group is the outer layout, threads per row, kind and ordering") {
  CHECK(variant_group_key("real.f64/ell-soa-aos-d16/static-256x8-tpr2-cached") == "ell/tpr2");
  CHECK(variant_group_key("real.f64/ell-aos-soa/dynamic-64x4-tpr2-u4") == "ell/tpr2");
  CHECK(variant_group_key("real.f64/sell32s256-aos-aos/static-256x8@rcm") == "sell32s256/tpr1@rcm");
  CHECK(variant_group_key("real.f64/csr-aos-aos/static-256x8-tpr4/t-atomic") == "csr/tpr4/t-atomic");
  CHECK(variant_group_key("real.f64/csr-aos-aos/static-256x8-tpr4/t-copy") != "csr/tpr4/t-atomic");
  CHECK(variant_group_key("real.f64/hola-aos-aos/hola-64x32-ept4") == variant_group_key("real.f64/hola-soa-aos/hola-256x8-ept8"));
  CHECK(parse_quick_plan_kind("pairs") == QuickPlanKind::pairs);
  CHECK(parse_quick_plan_kind("groups") == QuickPlanKind::groups);
  CHECK_THROWS_AS(parse_quick_plan_kind("psychic"), InvalidArgument);
}

namespace {
const std::vector<std::string> kGroupRanking = {
    "real.f64/ell-aos-aos-d16/static-256x8-tpr2-cached",  // ell/tpr2
    "real.f64/ell-soa-aos/static-256x8-tpr2-cached",      // ell/tpr2
    "real.f64/csr-aos-aos/static-1024x2-tpr4",            // csr/tpr4
    "real.f64/ell-aos-soa-d16/static-256x8-tpr2",         // ell/tpr2
    "real.f64/sell16-aos-aos/static-256x8-tpr2",          // sell16/tpr2
    "real.f64/csr-soa-aos/static-512x4-tpr4",             // csr/tpr4
    "real.f64/ell-aos-aos/static-256x8-tpr4",             // ell/tpr4: a fourth group
    "real.f64/csr-aos-aos/static-256x8-tpr4-cached",      // csr/tpr4
};
QuickPlan small_groups_plan() {
  QuickPlan plan;  // the groups plan is the default
  plan.lead = 1;
  plan.groups = 3;
  plan.best_groups = 1;
  plan.per_group = 2;
  return plan;
}
}  // namespace

TEST_CASE("quick plan (groups): round one is the best-ranked of each first group, round two the fastest group's next") {
  const QuickPlan plan = small_groups_plan();
  const Prediction p = ranked(kGroupRanking);
  const auto one = quick_round_one(p, plan);
  // lead: the first; groups ell/tpr2 (the first again), csr/tpr4, sell16/tpr2.
  REQUIRE(one.size() == 3);
  CHECK(one[0] == kGroupRanking[0]);
  CHECK(one[1] == kGroupRanking[2]);
  CHECK(one[2] == kGroupRanking[4]);
  // csr/tpr4 ran fastest: its next two of the ranking follow.
  const auto two = quick_round_two(p, plan, times_of({{kGroupRanking[0], 9.0}, {kGroupRanking[2], 8.0}, {kGroupRanking[4], 10.0}}));
  REQUIRE(two.size() == 2);
  CHECK(two[0] == kGroupRanking[5]);
  CHECK(two[1] == kGroupRanking[7]);
  CHECK(quick_round_two(p, plan, times_of({})).empty());
}

TEST_CASE("quick steps (groups): the fastest's neighbours, its grid with its load policy, the next schedules, the twins") {
  const QuickPlan plan = small_groups_plan();
  const Prediction p = ranked(kGroupRanking);
  const EntryType& real = EntryRegistry::instance().get("real");
  ScheduleLimits limits;
  const std::string fastest = kGroupRanking[0];  // ell-aos-aos-d16/static-256x8-tpr2-cached
  std::map<std::string, double> t = {{kGroupRanking[0], 7.0}, {kGroupRanking[2], 8.0}, {kGroupRanking[4], 10.0}};
  std::vector<std::vector<std::string>> steps;
  for (int k = 0; k < 2; ++k) steps.push_back(quick_step(k, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)));
  // Step 2: one coordinate at a time: the other inner layout, the other vector layout, csr (an ELL
  // fastest's other unsliced row layout) at tpr 2 and 4, the load policy, tpr 1 and 4, wide.
  steps.push_back(quick_step(2, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)));
  const std::vector<std::string> expected = {
      "real.f64/ell-soa-aos-d16/static-256x8-tpr2-cached", "real.f64/ell-aos-soa-d16/static-256x8-tpr2-cached",
      "real.f64/csr-aos-aos-d16/static-256x8-tpr2-cached", "real.f64/csr-aos-aos-d16/static-256x8-tpr4-cached",
      "real.f64/ell-aos-aos-d16/static-256x8-tpr2",
      "real.f64/ell-aos-aos-d16/static-256x8-cached",      "real.f64/ell-aos-aos-d16/static-256x8-tpr4-cached",
      "real.f64/ell-aos-aos/static-256x8-tpr2-cached"};
  CHECK(steps[2] == expected);
  // A sliced fastest gets every other row layout.
  const std::string sliced = "real.f64/sell16-aos-aos/static-256x8-tpr2";
  const auto from_sell = quick_step(2, p, plan, QuickMatrix{&real, limits, false, false}, {{sliced}}, times_of({{sliced, 1.0}}));
  for (const char* other : {"csr-aos-aos", "ell-aos-aos", "sell32-aos-aos"})
    CHECK(std::count(from_sell.begin(), from_sell.end(), "real.f64/" + std::string(other) + "/static-256x8-tpr2") == 1);
  // Where sorting pays, the sorted sell joins the other row layouts.
  const auto sorted = quick_step(2, p, plan, QuickMatrix{&real, limits, false, true, true}, {steps[0], steps[1]}, times_of(t));
  CHECK(sorted.size() == expected.size() + 1);
  CHECK(std::count(sorted.begin(), sorted.end(), "real.f64/sell32s256-aos-aos-d16/static-256x8-tpr2-cached") == 1);
  // Without narrow columns a wide fastest gets no narrow twin.
  const auto wide = quick_step(2, p, plan, QuickMatrix{&real, limits, false, false}, {{kGroupRanking[2]}}, times_of({{kGroupRanking[2], 1.0}}));
  CHECK(std::none_of(wide.begin(), wide.end(), [](const std::string& n) { return Variant::parse(n).layout.narrow; }));
  // Step 3: the coarse grid of the fastest (now tpr1) in its kind, every schedule keeping its cached loads.
  t[expected[5]] = 6.0;
  steps.push_back(quick_step(3, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)));
  REQUIRE(steps[3].size() >= 4);
  CHECK(std::count(steps[3].begin(), steps[3].end(), expected[5]) == 1);  // the seed once
  for (const auto& n : steps[3]) {
    const Variant v = Variant::parse(n);
    CHECK(v.schedule.cached_matrix);
    CHECK(v.layout.narrow);
    CHECK(v.schedule.threads_per_row == 1);
    CHECK(v.schedule.kind == ScheduleKind::static_);
    CHECK_FALSE((v.schedule.threads == 64 && v.schedule.blocks_per_sm == 32));  // as many threads as 256x8
  }
  // Step 4: one step of threads or blocks from the grid's best (not the other kind).
  t["real.f64/ell-aos-aos-d16/static-256x4-cached"] = 5.0;
  steps.push_back(quick_step(4, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)));
  const std::vector<std::string> next = {
      "real.f64/ell-aos-aos-d16/static-192x4-cached", "real.f64/ell-aos-aos-d16/static-384x4-cached",
      "real.f64/ell-aos-aos-d16/static-256x3-cached", "real.f64/ell-aos-aos-d16/static-256x6-cached"};
  CHECK(steps[4] == next);
  // Step 5: the fastest's load policy and narrowness flipped; on a large matrix unrolled 4 too (2 is the
  // default; 8 is left to the full search).
  CHECK(quick_step(5, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)) ==
        std::vector<std::string>{"real.f64/ell-aos-aos-d16/static-256x4", "real.f64/ell-aos-aos/static-256x4-cached"});
  const auto unrolled = quick_step(5, p, plan, QuickMatrix{&real, limits, true, true}, steps, times_of(t));
  CHECK(unrolled.size() == 3);
  CHECK(std::count(unrolled.begin(), unrolled.end(), "real.f64/ell-aos-aos-d16/static-256x4-u4-cached") == 1);
  // Step 6: the grid moved the fastest (ell 256x4, cached, narrow): its other inner layout and csr.
  const auto again = quick_step(6, p, plan, QuickMatrix{&real, limits, true, true}, steps, times_of(t));
  CHECK(again == std::vector<std::string>{"real.f64/ell-soa-aos-d16/static-256x4-cached", "real.f64/csr-aos-aos-d16/static-256x4-cached"});
  CHECK(quick_step(7, p, plan, QuickMatrix{&real, limits, true, true}, steps, times_of(t)).empty());
  CHECK(std::string(quick_step_name(plan, 3)).find("grid") != std::string::npos);
}

TEST_CASE("quick steps (groups): a hola fastest gets a coarse grid of 3 n_t x 3 entries per thread, and no step from its best") {
  const QuickPlan plan = small_groups_plan();
  const Prediction p = ranked(kGroupRanking);
  const EntryType& real = EntryRegistry::instance().get("real");
  ScheduleLimits limits;
  const std::string hola = "real.f64/hola-aos-aos/hola-96x10-ept1";
  const std::vector<std::vector<std::string>> earlier = {{hola}, {}, {}};
  std::map<std::string, double> t = {{hola, 5.0}};
  const auto grid = quick_step(3, p, plan, QuickMatrix{&real, limits, false, true}, earlier, times_of(t));
  REQUIRE(grid.size() == 10);  // the seed, then n_t {64, 128, 256} x ept {2, 4, 8}
  CHECK(grid[0] == hola);
  for (size_t i = 1; i < grid.size(); ++i) {
    const Variant v = Variant::parse(grid[i]);
    CHECK(v.schedule.kind == ScheduleKind::hola);
    CHECK((v.schedule.threads == 64 || v.schedule.threads == 128 || v.schedule.threads == 256));
    CHECK((v.schedule.entries_per_thread == 2 || v.schedule.entries_per_thread == 4 || v.schedule.entries_per_thread == 8));
  }
  t[grid[5]] = 4.0;
  std::vector<std::vector<std::string>> steps = earlier;
  steps.push_back(grid);
  CHECK(quick_step(4, p, plan, QuickMatrix{&real, limits, false, true}, steps, times_of(t)).empty());
}
