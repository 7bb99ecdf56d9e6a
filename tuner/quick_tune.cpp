#include "tuner/quick_tune.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "generator/source_gen.hpp"
#include "selection/database.hpp"
#include "selection/load.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse {

namespace {

std::vector<std::string> names_of(const std::vector<Variant>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.name());
  return out;
}

// The fastest with its load policy flipped (row kernels only).
void add_cached_flip(const Variant& f, std::vector<Variant>& out) {
  if (!f.schedule.row_family()) return;
  Variant v = f;
  v.schedule.cached_matrix = !f.schedule.cached_matrix;
  out.push_back(v);
}

// The fastest with its narrowness flipped where the columns fit (a renumbered matrix's fit is not known
// here: only its narrow form widens).
void add_narrow_flip(const Variant& f, bool narrow, std::vector<Variant>& out) {
  if (!f.layout.can_be_narrow() || !(f.layout.narrow || (narrow && f.ordering == Ordering::none))) return;
  Variant v = f;
  v.layout.narrow = !f.layout.narrow;
  out.push_back(v);
}

// The fastest in its other inner layout and (vectors_too) its other vector layout, one at a time: they act on
// different arrays (the matrix's entries, x and y). Over the walks of the H100 database of 2026-11-25 as
// evaluated on 2026-11-27 (leave one matrix out) changing both at once in round three ended as quick tuning's
// pick on 4 of 64 real-entry walks, where all four forms load the same scalars (timing noise), and on none of
// 102 of the other entry types.
void add_inner_vector(const Variant& f, bool vectors_too, std::vector<Variant>& out) {
  if (f.layout.outer != OuterLayout::hisparse) {  // hisparse has aos leaves only
    Variant v = f;
    v.layout.inner = f.layout.inner == InnerLayout::aos ? InnerLayout::soa : InnerLayout::aos;
    out.push_back(v);
  }
  if (vectors_too) {
    Variant v = f;
    v.layout.vector = f.layout.vector == VectorLayout::aos ? VectorLayout::soa : VectorLayout::aos;
    out.push_back(v);
  }
}

// The other row layouts of a row kernel at its schedule and load policy. From a sliced fastest, all of them:
// the model often ranks sell above ell (or the other way) where their bytes differ by a padding of a few per
// cent (H100, nineteenth session: 6 of the 18 misses of the first GPU evaluation of this plan). From csr or
// ELL, the other of the two: sell16 and sell32 keep csr's slice pointer and add padding, or add ELL's padding
// back less a share; over the walks of the H100 database of 2026-11-25 as evaluated on 2026-11-27 (leave one
// matrix out) they beat a csr or ELL fastest on 7 of 304 tries and ended as the pick once. Where sorting
// pays, the sorted sell too, except `again` (the best layout of the irregular meshes the model missed: H100,
// nineteenth session).
// In round three (not `again`) csr and ELL trade threads per row too: ELL stores the rows interleaved, so
// neighbouring threads of one entry slot load neighbouring rows (coalesced at one thread per row), where
// csr's threads coalesce only along a row. So ELL at half a csr fastest's threads per row, csr at twice an
// ELL fastest's. Offline on the H100 database above they took five walks of the three holdouts from
// 1.04-1.12x of the best to within 3% (helmholtz_box_natural_6mb f32 ELL tpr4 -> csr tpr8 in all three);
// they are new to quick tuning, so 27-60 more walks per holdout hold variants the database never timed.
void add_row_layouts(const Variant& f, bool sorting, bool again, std::vector<Variant>& out) {
  if (!f.schedule.row_family()) return;
  const bool sliced = f.layout.outer == OuterLayout::sell;
  for (const auto& [outer, slice, sigma] :
       {std::tuple{OuterLayout::csr, 0, 0}, {OuterLayout::ell, 0, 0}, {OuterLayout::sell, 16, 0}, {OuterLayout::sell, 32, 0},
        {OuterLayout::sell, 32, kDefaultSellSigma}}) {
    if (sigma > 0 ? !sorting || (again && !sliced) : slice > 0 && !sliced) continue;
    Variant v = f;
    v.layout.outer = outer;
    v.layout.slice = slice;
    v.layout.sigma = sigma;
    if (v.layout == f.layout) continue;
    out.push_back(v);
    const int tpr = outer == OuterLayout::ell ? f.schedule.threads_per_row / 2 : f.schedule.threads_per_row * 2;
    if (!again && !sliced && slice == 0 && tpr >= 1 && tpr <= 32) {
      v.schedule.threads_per_row = tpr;
      out.push_back(v);
    }
  }
}

// Groups plan, step 2: one coordinate of the fastest changed at a time (layouts, load policy, threads per
// row, narrowness).
std::vector<Variant> coordinate_neighbours(const Variant& f, bool narrow, bool sorting) {
  std::vector<Variant> out;
  add_inner_vector(f, true, out);
  add_row_layouts(f, sorting, false, out);
  if (f.schedule.row_family()) {
    add_cached_flip(f, out);
    for (int tpr : {f.schedule.threads_per_row / 2, f.schedule.threads_per_row * 2})
      if (tpr >= 1 && tpr <= 32 && tpr != f.schedule.threads_per_row) {
        Variant w = f;
        w.schedule.threads_per_row = tpr;
        out.push_back(w);
      }
  }
  add_narrow_flip(f, narrow, out);
  return out;
}

// Groups plan, step 4: the schedules one step of threads or of blocks per SM away. Not the other kind:
// dynamic rows never ran fastest on any of the 204 records of the H100 database of 2026-11-25 as evaluated on
// 2026-11-27, and as this step it never beat the fastest in 172 walks (rounds one and two time the kinds the
// model ranks).
std::vector<Variant> next_schedules(const Variant& b, const ScheduleLimits& limits) {
  if (!b.schedule.row_family()) return refined_grid_variants(b, limits);
  const auto threads = thread_counts(limits), blocks = block_counts(limits);
  const auto ti = std::find(threads.begin(), threads.end(), b.schedule.threads) - threads.begin();
  const auto bi = std::find(blocks.begin(), blocks.end(), b.schedule.blocks_per_sm) - blocks.begin();
  std::vector<Variant> out;
  for (const auto& [dt, db] : {std::pair{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
    const auto t = ti + dt, k = bi + db;
    if (t < 0 || k < 0 || t >= static_cast<long>(threads.size()) || k >= static_cast<long>(blocks.size())) continue;
    if (threads[t] * blocks[k] > limits.max_threads_per_sm || blocks[k] > limits.max_blocks_per_sm) continue;
    Variant v = b;
    v.schedule.threads = threads[t];
    v.schedule.blocks_per_sm = blocks[k];
    out.push_back(v);
  }
  return out;
}

// Hola's grid is every n_t x entries per thread (42-48 schedules): quick tuning times a coarse one, n_t {64,
// 128, 256} x {2, 4, 8} entries per thread. On the H100 database of the twentieth session (83 hola grids
// timed whole) these with the schedules one step from their best found the grid's best within 1% on 82 and
// within 2.1% on all; the whole grid was a third of quick tuning's GPU time there. The steps from the best no
// longer run: over the walks of the H100 database of 2026-11-25 as evaluated on 2026-11-27 they beat it on 1
// of 133 tries (the three holdouts) and never ended as the pick.
std::vector<Variant> hola_coarse(const Variant& seed, const EntryType& entry, const ScheduleLimits& limits) {
  std::vector<Variant> out{seed};
  for (int t : {64, 128, 256})
    for (int ept : {2, 4, 8}) {
      Variant v = seed;
      v.schedule = hola_schedule(limits, t, ept);
      if (entry_supports(v, entry) && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
  return out;
}

// The coarse grid of a row kernel's kind (coarse_grid_variants) with its layout and load policy, less
// 64-thread blocks at full occupancy: as many threads in flight as 256 x 8, the schedule round one nearly
// always timed, in four times the blocks; over the walks of the H100 database of 2026-11-25 as evaluated on
// 2026-11-27 that point never beat the fastest (0 of 180).
std::vector<Variant> quick_coarse_grid(const Variant& s, const EntryType& entry, const ScheduleLimits& limits) {
  std::vector<Variant> grid = coarse_grid_variants(entry, s, limits);
  grid.erase(std::remove_if(grid.begin(), grid.end(),
                            [&](const Variant& v) {
                              const bool full_small = v.schedule.threads == 64 &&
                                                      v.schedule.threads * v.schedule.blocks_per_sm == limits.max_threads_per_sm;
                              return v.schedule.kind != s.schedule.kind || (full_small && !(v == s));
                            }),
             grid.end());
  return keeping_policy(grid, s);
}

// Groups plan, step 5: the fastest's load policy and narrowness flipped, and on large matrices its other
// unrolling of 2 (the default) and 4. Not 8 (the full search's last stage times it): over the walks of the
// H100 database of 2026-11-25 as evaluated on 2026-11-27 it beat the fastest on 7 of 122 tries (three
// holdouts) and ended as the pick once: four loads in flight per thread already cover the latency.
std::vector<Variant> last_twins(const Variant& f, bool unroll, bool narrow) {
  std::vector<Variant> out;
  add_cached_flip(f, out);
  if (unroll && f.schedule.row_family())
    for (int u : {2, 4})
      if (u != f.schedule.unroll) {
        Variant w = f;
        w.schedule.unroll = u;
        out.push_back(w);
      }
  add_narrow_flip(f, narrow, out);
  return out;
}

// Groups plan, step 6: the layouts whose cost the schedule moves, once the grid or the twins moved the
// fastest. The inner layout (how a group of threads loads its entries) and, for csr or ELL, the other of the
// two, for a sliced fastest every row layout (add_row_layouts): ELL reads no row pointer before its entries,
// a latency that the schedule's threads in flight hide or not. Not the vector layout, nor a csr or ELL
// fastest's sliced forms, whose bytes the schedule does not change: over the walks of the H100 database of
// 2026-11-25 as evaluated on 2026-11-27 (leave one matrix out) they seldom beat the fastest there: none of 66
// vector moves of complex matrices, 2 of 276 sliced forms of a csr or ELL fastest (once the pick).
std::vector<Variant> layouts_again(const Variant& f, bool sorting) {
  std::vector<Variant> out;
  add_inner_vector(f, false, out);
  add_row_layouts(f, sorting, true, out);
  return out;
}

// Groups plan, steps 2-6 (steps 0 and 1 are quick_round_one and quick_round_two).
std::vector<std::string> groups_step(int step, const QuickPlan& plan, const QuickMatrix& m,
                                     const std::vector<std::vector<std::string>>& earlier, const TimeOf& time_of) {
  const EntryType* entry = m.entry;
  const ScheduleLimits& limits = m.limits;
  std::vector<std::string> so_far;
  for (const auto& e : earlier) so_far.insert(so_far.end(), e.begin(), e.end());
  const auto fastest = quick_fastest(so_far, time_of);
  switch (step) {
    case 2:
      return fastest ? names_of(coordinate_neighbours(Variant::parse(*fastest), m.narrow, m.sorting)) : std::vector<std::string>{};
    case 3: {
      if (!plan.grid || !entry || !fastest) return {};
      const Variant s = Variant::parse(*fastest);
      if (s.schedule.kind == ScheduleKind::hola) return names_of(hola_coarse(s, *entry, limits));
      return names_of(quick_coarse_grid(s, *entry, limits));
    }
    case 4: {
      if (!plan.grid || earlier.size() < 4) return {};
      const auto best = quick_fastest(earlier[3], time_of);
      if (!best) return {};
      const Variant b = Variant::parse(*best);
      if (b.schedule.kind == ScheduleKind::hola) return {};  // hola_coarse
      return names_of(next_schedules(b, limits));
    }
    case 5:
      return fastest ? names_of(last_twins(Variant::parse(*fastest), m.unroll, m.narrow)) : std::vector<std::string>{};
    case 6:  // where the grid or the twins moved the fastest: its layouts again (those timed are not again)
      return fastest ? names_of(layouts_again(Variant::parse(*fastest), m.sorting)) : std::vector<std::string>{};
    default:
      return {};
  }
}

}  // namespace

std::vector<std::string> quick_step(int step, const Prediction& p, const QuickPlan& plan, const QuickMatrix& m,
                                    const std::vector<std::vector<std::string>>& earlier, const TimeOf& time_of) {
  const EntryType* entry = m.entry;
  const ScheduleLimits& limits = m.limits;
  const bool unroll = m.unroll, narrow = m.narrow;
  if (step == 0) return quick_round_one(p, plan);  // either plan's
  if (step == 1) return quick_round_two(p, plan, time_of);
  if (plan.kind == QuickPlanKind::groups) return groups_step(step, plan, m, earlier, time_of);
  auto names = names_of;
  std::vector<std::string> so_far;
  for (const auto& e : earlier) so_far.insert(so_far.end(), e.begin(), e.end());
  switch (step) {
    case 2:
      if (!plan.grid || !entry) return {};
      if (const auto seed = quick_fastest(so_far, time_of)) {
        // The grid of the seed's schedule kind only (static or dynamic): rounds one and two timed both
        // kinds already. Leave one matrix out on the H100 (thirteenth session): the same shares within 10%
        // and 3% as the whole grid, at 13.9% of the full search's GPU time instead of 15.0%.
        const Variant s = Variant::parse(*seed);
        std::vector<Variant> grid = coarse_grid_variants(*entry, s, limits);
        grid.erase(std::remove_if(grid.begin(), grid.end(),
                                  [&](const Variant& v) { return v.schedule.kind != s.schedule.kind; }),
                   grid.end());
        return names(grid);
      }
      return {};
    case 3:
      if (!plan.grid || !entry || earlier.size() < 3) return {};
      if (const auto best = quick_fastest(earlier[2], time_of)) return names(refined_grid_variants(Variant::parse(*best), limits));
      return {};
    case 4: {
      if (plan.twins <= 0) return {};
      MatrixRecord measured;  // the twins are of the fastest quick tuning measured, not of a whole record
      for (const auto& v : so_far)
        if (const auto t = time_of(v); t && !measured.find(v)) {
          MeasurementRecord m;
          m.variant = v;
          m.status = "ok";
          m.median_us = *t;
          measured.measurements.push_back(m);
        }
      return names(policy_twins(measured, plan.twins, unroll, narrow));
    }
    case 5:  // the pairs plan has no sixth or seventh step
    case 6:
    default:
      return {};
  }
}

const char* quick_step_name(const QuickPlan& plan, int step) {
  static const char* const kPairs[kQuickSteps] = {
      "the model's candidates (quick, round one)", "the best pairs' schedules (quick, round two)",
      "the fastest pair's schedule grid (quick, round three)", "refined schedules (quick, round three)",
      "load policy and unroll (quick, round four)", "", ""};
  static const char* const kGroups[kQuickSteps] = {
      "the model's first groups (quick, round one)", "the fastest groups' next candidates (quick, round two)",
      "the fastest's neighbours (quick, round three)", "the fastest's schedule grid (quick, round four)",
      "the schedules next to the grid's best (quick, round five)", "load policy, narrowness, unroll (quick, round six)",
      "the fastest's layouts again (quick, round seven)"};
  return step < 0 || step >= kQuickSteps ? "" : plan.kind == QuickPlanKind::pairs ? kPairs[step] : kGroups[step];
}

Selection load_quick_tuned(Context& ctx, const HostMatrix& a, Precision precision, Op op, bool deterministic) {
  {
    TuningDatabase db(ctx.device(), ctx.cache_root());
    const Selection s = select_variant(db, a, precision, ctx.device(), op, deterministic, &ctx.builder());
    if (s.level != "model") {  // tuned already, or nothing to learn from
      ctx.kernel(s.variant);
      return s;
    }
    TuneOptions o;
    o.precisions = {precision};
    o.op = op;
    o.deterministic = deterministic;
    o.quick = true;
    o.progress = false;
    Tuner tuner(ctx, db, o);
    tuner.tune(a, "quick");
  }
  return load_tuned(ctx, a, precision, op, deterministic);
}

}  // namespace jitsparse
