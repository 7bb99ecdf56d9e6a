#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "selection/model.hpp"

namespace jitsparse {

// Quick tuning, the staged search in miniature over the model's candidates only:
// 1. the model's first `lead` candidates, and the best-ranked variant of each of its first `pairs` (layout,
//    threads per row, kind) pairs, so that a wrong guess of the pair costs one measurement, not the answer;
// 2. the model's first `per_pair` schedules of the `best_pairs` pairs that ran fastest in round one;
// 3. (with `grid`) the search's own stage two on the fastest so far: its coarse schedule grid (of the
//    fastest's schedule kind only), then the refinement around the grid's best (the caller makes those:
//    tuner/quick_tune.hpp);
// 4. the cached-load (and on large matrices unrolled) twins of the `twins` fastest (tuner.hpp
//    policy_twins), as the search's last stage.
// Why: the model's ranking rarely puts the best variant first (33% within 10% of the best on the H100) but
// mostly holds the right pair among its first. With these defaults, leave one matrix out on the H100 (144
// records of the training database): within 10% of the full search's best on 93%, within 3% on 72%, at
// 13.9% of the search's GPU time (NOTES.md, thirteenth session).
// Before quick tuning re-times its finalists, the first runs this many milliseconds untimed: the GPU idles
// while quick tuning compiles, and a 3 us kernel re-timed right after ran at 8-10 us (seventh session).
// Counted in the evaluation's estimate of quick tuning's GPU time.
constexpr double kQuickWarmupMs = 5.0;

struct QuickPlan {
  int lead = 3;
  int pairs = 16;
  int best_pairs = 2;
  int per_pair = 8;
  bool grid = true;
  int twins = 1;  // round four: the load-policy (and, on large matrices, unroll) twins of the fastest
};

using TimeOf = std::function<std::optional<double>(const std::string&)>;

// The plan for a prediction: `pairs` from the caller (--quick-k) when > 0, else the default.
QuickPlan quick_plan(int pairs_wanted);

// Round one, in rank order, without repeats.
std::vector<std::string> quick_round_one(const Prediction& p, const QuickPlan& plan);

// Round two from round one's times (time_of: a variant's measured time, empty when it has none or
// failed): the variants not yet in round one, in rank order.
std::vector<std::string> quick_round_two(const Prediction& p, const QuickPlan& plan, const TimeOf& time_of);

// A record's times by variant name (none for a failed one).
TimeOf record_times(const MatrixRecord& r);

// The fastest of `measured` (empty when none has a time): the seed of round three.
std::optional<std::string> quick_fastest(const std::vector<std::string>& measured, const TimeOf& time_of);

}  // namespace jitsparse
