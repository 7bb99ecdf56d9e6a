#pragma once
#include "core/host_matrix.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "runtime/context.hpp"
#include "selection/quick_plan.hpp"
#include "selection/select.hpp"
#include "generator/search_space.hpp"

namespace jitsparse {

// load_tuned for a matrix that may never have been tuned: instead of trusting the selection model's first
// choice, measure its candidates on this matrix in rounds (selection/quick_plan.hpp: about 30 variants;
// on the H100, 0.06-0.08 s of GPU time on most tests/data matrices and on the main set's large ones, 0.2-0.5 s
// where a measurement runs long, plus compiling and packing them on the host), record the result in the tuning database as a quick search, and load the fastest. Done
// once per matrix: the next call finds the record ("exact"). A matrix the database already holds, or an
// entry type the model knows nothing of, is loaded as load_tuned would (then Selection::level says
// "domain" or "default").
// Quick tuning's steps (selection/quick_plan.hpp), each chosen from the times of the steps before it
// (`earlier`, in order; time_of: what they measured): the tuner measures a step and asks for the next,
// jitsparse evaluate walks them over a record. Pairs plan: step 0, the model's candidates of round one; 1:
// round two; 2 and 3 (round three, with plan.grid and a known entry type): the coarse schedule grid
// around the fastest so far (of its schedule kind), then the refinement around the fastest of step 2;
// 4 (round four): the policy twins of the fastest (unrolled ones too when `unroll`, narrow ones when
// `narrow`: the matrix fits 16-bit column offsets); 5 and 6: none. Groups plan: its seven rounds, one step
// each. A step may repeat variants measured before (neither the tuner nor the evaluation times them again).
constexpr int kQuickSteps = 7;

// What quick tuning knows of the matrix beyond the model's ranking: its entry type (none: no schedule
// grid), the GPU's schedule limits, and the tuner's rules for it: unrolled twins (over half the L2),
// narrow twins (every column within 16-bit offsets of its row), the sorted sell (sorted_sell_pays).
struct QuickMatrix {
  const EntryType* entry = nullptr;
  ScheduleLimits limits;
  bool unroll = false;
  bool narrow = false;
  bool sorting = false;
};

// What step k does, for progress messages.
const char* quick_step_name(const QuickPlan& plan, int step);
std::vector<std::string> quick_step(int step, const Prediction& p, const QuickPlan& plan, const QuickMatrix& m,
                                    const std::vector<std::vector<std::string>>& earlier, const TimeOf& time_of);

Selection load_quick_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op = Op::n,
                           bool deterministic = false);

}  // namespace jitsparse
