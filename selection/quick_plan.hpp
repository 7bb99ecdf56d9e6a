#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "selection/model.hpp"

namespace jitsparse {

// Quick tuning in two rounds, the staged search in miniature over the model's candidates only.
// Round one: the model's first `lead` candidates, and the best-ranked variant of each of its first
// `pairs` (layout, threads per row, kind) pairs, so that a wrong guess of the pair costs one
// measurement, not the answer. Round two: the model's next `per_pair` schedules of the `best_pairs`
// pairs that ran fastest in round one. Why: offline over the H100 training database (104 records),
// the model's first candidates alone were within 10% of the full search's best on 73% of the matrices;
// its pair was wrong on a third of them, its schedule within the right pair rarely.
struct QuickPlan {
  int lead = 3;
  int pairs = 8;
  int best_pairs = 2;
  int per_pair = 8;
};

// The plan for a prediction: `pairs` from the caller (--quick-k) when > 0, else the default.
QuickPlan quick_plan(int pairs_wanted);

// Round one, in rank order, without repeats.
std::vector<std::string> quick_round_one(const Prediction& p, const QuickPlan& plan);

// Round two from round one's times (time_of: a variant's measured time, empty when it has none or
// failed): the variants not yet in round one, in rank order.
std::vector<std::string> quick_round_two(const Prediction& p, const QuickPlan& plan,
                                         const std::function<std::optional<double>(const std::string&)>& time_of);

}  // namespace jitsparse
