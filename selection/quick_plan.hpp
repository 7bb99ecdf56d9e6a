#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "selection/model.hpp"

namespace jitsparse {

// Quick tuning measures the selection model's candidates on the matrix, in rounds, each chosen from the
// times of the rounds before. Two plans.
//
// "groups" (the default, nineteenth session) walks the model's ranking by group (outer layout, threads per
// row, kind, ordering): the model's first 4 groups hold a variant within 3% of the best on 92% of the H100
// database's records, while its first 16 (layout, threads per row) pairs, which differ mostly in inner and
// vector layouts and narrowness, often miss the right threads per row. Then it improves the fastest one
// coordinate at a time, keeping what it found (tuner/quick_tune.hpp):
// 1. the model's first `lead` candidates and its best-ranked variant of each of its first `groups` groups;
// 2. the model's next `per_group` variants of the `best_groups` fastest groups;
// 3. the fastest's neighbours: its other row layouts (from csr or ELL the other of the two, also at half
//    (ELL) or twice (csr) the threads per row; from a sliced layout all; and the sorted sell where sorting
//    pays), its other inner layout and its other vector layout, load policy and narrowness flipped, half
//    and twice the threads per row;
// 4. the coarse schedule grid of the fastest's kind, with its layout and load policy, less 64-thread
//    blocks at full occupancy (hola: n_t {64, 128, 256} x {2, 4, 8} entries per thread, not its whole
//    grid);
// 5. the schedules next to the grid's best (one step of threads or blocks; none for hola);
// 6. the fastest's load policy and narrowness flipped again, and (large matrices) its other unrolling of
//    2 and 4;
// 7. where rounds 4-6 moved the fastest, its other inner layout, and its other row layouts again (from csr
//    or ELL only the other of the two): most misses of rounds 1-6 wanted the layout and the schedule
//    changed together.
// Leave one matrix out on the H100 (146 records, every round timed; NOTES.md, twentieth session, a
// database made by the search with stage one's policy by size): within 10% of the best known on 99%,
// within 3% on 92%, at an estimated 11.5% of the full search's GPU time (about 30 variants); without
// round seven 89% at 10.7%; the pairs plan on the same database 93% / 76% at 16.7%. Rounds three to
// seven lost what seldom paid in the walks of the H100 database of 2026-11-25 as evaluated on
// 2026-11-27 (tuner/quick_tune.cpp says what and why), and round three gained csr and ELL at other
// threads per row: leave one matrix out (203 records) 98% / 82% within 10% / 3% at 11.6% of the search's
// GPU time with 33 variants a walk on the mean before, 97% / 82% (167 of 203) at 10.0% with 27 after.
//
// "pairs" (seventh to eighteenth sessions), the staged search in miniature:
// 1. the model's first `lead` candidates, and the best-ranked variant of each of its first `pairs` (layout,
//    threads per row, kind) pairs;
// 2. the model's first `per_pair` schedules of the `best_pairs` pairs that ran fastest in round one;
// 3. (with `grid`) the search's own stage two on the fastest so far: its coarse schedule grid (of the
//    fastest's schedule kind only), then the refinement around the grid's best;
// 4. the cached-load (and on large matrices unrolled) twins of the `twins` fastest (tuner.hpp
//    policy_twins), as the search's last stage.

// Before quick tuning re-times its finalists, the first runs this many milliseconds untimed: the GPU idles
// while quick tuning compiles, and a 3 us kernel re-timed right after ran at 8-10 us (seventh session).
// Counted in the evaluation's estimate of quick tuning's GPU time.
constexpr double kQuickWarmupMs = 5.0;

enum class QuickPlanKind { pairs, groups };

struct QuickPlan {
  QuickPlanKind kind = QuickPlanKind::groups;
  int lead = 3;
  int pairs = 16;  // pairs plan
  int best_pairs = 2;
  int per_pair = 8;
  int groups = 5;  // groups plan
  int best_groups = 2;
  int per_group = 2;
  bool grid = true;
  int twins = 1;  // round four: the load-policy (and, on large matrices, unroll) twins of the fastest
};

using TimeOf = std::function<std::optional<double>(const std::string&)>;

// The plan: `wanted` (--quick-k) when > 0 sets round one's pairs or groups, else the default.
QuickPlan quick_plan(int wanted, QuickPlanKind kind = QuickPlanKind::groups);
QuickPlanKind parse_quick_plan_kind(const std::string& s);  // "pairs" or "groups"; throws InvalidArgument
const char* to_string(QuickPlanKind k);

// The groups plan's unit: "ell/tpr2", "sell32s256/tpr1@rcm", "hola/tpr1/t-atomic".
std::string variant_group_key(const std::string& variant);

// Round one, in rank order, without repeats (of either plan).
std::vector<std::string> quick_round_one(const Prediction& p, const QuickPlan& plan);

// Round two from round one's times (time_of: a variant's measured time, empty when it has none or
// failed): the variants not yet in round one, in rank order.
// (Of either plan.)
std::vector<std::string> quick_round_two(const Prediction& p, const QuickPlan& plan, const TimeOf& time_of);

// A record's times by variant name (none for a failed one).
TimeOf record_times(const MatrixRecord& r);

// The fastest of `measured` (empty when none has a time): the seed of round three.
std::optional<std::string> quick_fastest(const std::vector<std::string>& measured, const TimeOf& time_of);

}  // namespace jitsparse
