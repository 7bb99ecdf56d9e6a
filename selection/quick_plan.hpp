#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "selection/model.hpp"

namespace jitsparse {

// Quick tuning, the staged search in miniature over the model's candidates only.
// Round one: the model's first `lead` candidates, and the best-ranked variant of each of its first
// `pairs` (layout, threads per row, kind) pairs, so that a wrong guess of the pair costs one
// measurement, not the answer. Round two: the model's next `per_pair` schedules of the `best_pairs`
// pairs that ran fastest in round one. Round three (with `grid`): the search's own stage two on the
// fastest variant so far, its coarse schedule grid and then the refinement around the grid's best (the
// caller makes those: tuner.hpp). Round four: the cached-load and unrolled twins of the `twins` fastest
// (tuner.hpp policy_twins), as the search's last stage. Why: offline over the H100 training database (104 records), the
// model's first candidates alone were within 10% of the full search's best on 73% of the matrices; its
// pair was wrong on a third of them, its schedule within the right pair less often. With these
// defaults the rounds (about 40 variants) came within 10% of the best on 91% and within 3% on 80%
// (offline, variants the full search never timed counted as not measured).
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
