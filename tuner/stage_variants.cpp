// What each stage of the search measures next (tuner/stage_variants.hpp): pure functions of the options,
// the schedule limits and what a record holds, so the CPU tests pin them; the Tuner runs them.
#include "tuner/stage_variants.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/yardstick.hpp"
#include "generator/source_gen.hpp"

namespace jitsparse {
namespace {

// sorted_window_siblings: stage one's sorted sell variants within this of the windows' source pair get the
// fastest window, at most kWindowSiblings of them. The scanned Dirac 260 MB in f32 (H100, twenty-ninth
// session): four sorted pairs within 5% at stage one, and the one the windows were tried on was not the
// one that wins at sigma 64 (cold, one host: 58.3 us without the siblings, 56.4-56.5 with them; the
// twenty-seventh session's sigma-64 aos-aos winner ran 53.8 us).
constexpr double kWindowSiblingKeep = 1.10;
constexpr int kWindowSiblings = 6;

}  // namespace

// The layout, threads-per-row, transpose kind and ordering of a variant: the unit whose schedule grid
// stage 2 sweeps.
std::string layout_tpr_key(const Variant& v) {
  return v.layout.name() + "/" + std::to_string(v.schedule.threads_per_row) + "/" +
         (v.op == Op::n ? "" : to_string(v.transpose)) + ordering_suffix(v.ordering);
}


namespace {

std::vector<TransposeKind> transpose_kinds(const TuneOptions& o, const Layout& l) {
  if (o.op == Op::n) return {TransposeKind::atomic};  // unused for op n
  if (l.outer == OuterLayout::hisparse) return {TransposeKind::tree};
  if (o.deterministic) return {TransposeKind::copy};
  return {TransposeKind::atomic, TransposeKind::copy};
}

// Groups of g threads per strip, n_b blocks of n_t for `resident` threads per SM (which sets the registers
// __launch_bounds__ leaves each thread: 2048 threads force 32, and a compound f64 entry then spills), big
// strips from `big` slots.
Schedule hisparse_schedule(const ScheduleLimits& l, int threads, int g, int big, int resident) {
  Schedule s;
  s.kind = ScheduleKind::hisparse;
  s.threads = threads;
  s.blocks_per_sm = std::max(1, std::min({l.max_blocks_per_sm, resident / threads, l.max_threads_per_sm / threads}));
  s.threads_per_row = g;
  s.big_strip = big;
  return s;
}

// Stage one's setups of the first hisparse layout. The H100 (2026-11-25, cold, 24 setups of hisparse64c2
// and hisparse32c2 over the small and large sets, A x and A^T x): the fastest setup depends on the entry
// (large grids: real f32 128x16-g16-u1 70 us, complex f32 128x8-g32-u1 75 us, block3 f64 128x4-g16 113 us,
// quaternion f64 128x4-g32-u1 90 us), and these four held the fastest of nearly every case swept; on the
// large set 1.2-2.2x faster than the one setup stage one had before (hisparse32c2, 128x4-g16).
struct HisparseSetup {
  int threads, group, resident, unroll;
};
constexpr HisparseSetup kHisparseStageOne[] = {{128, 16, 512, 2}, {128, 32, 512, 1}, {128, 32, 1024, 1}, {128, 16, 2048, 1}};
Schedule hisparse_stage_one(const ScheduleLimits& l, const HisparseSetup& h, int big) {
  Schedule s = hisparse_schedule(l, h.threads, h.group, big, h.resident);
  s.unroll = h.unroll;
  return s;
}
// Stage one's setup with batched leaves: groups of 32, one chunk a lane (the fastest batched setup on
// the randomly numbered matrices of the large and small sets, H100, session 33).
Schedule batched_stage_one(const ScheduleLimits& l, int big) {
  Schedule s = hisparse_stage_one(l, kHisparseStageOne[1], big);
  s.batched_leaves = true;
  return s;
}

// The setups a wide hisparse layout runs in on a large matrix (wide_hisparse_pays): groups of 32, 1024
// threads an SM, two and four chunks unrolled. H100, thirty-third session (call A, same run, 128x8-g32 at
// unroll 1, 2 and 4): d 256 ran fastest at unroll 2 or 4 on the real and complex matrices of 540k rows and
// more (laplacian_large f32 47.0 / 45.6 us against 62.8 at unroll 1, helmholtz_large f32 50.4 / 65.4
// against 65.9), none of them a setup of stage one's.
constexpr HisparseSetup kWideHisparseSetups[] = {{128, 32, 1024, 2}, {128, 32, 1024, 4}};

}  // namespace

std::vector<Variant> wide_hisparse_setups(const Variant& later, const EntryType& entry, const ScheduleLimits& limits) {
  std::vector<Variant> out;
  for (const HisparseSetup& h : kWideHisparseSetups) {
    Variant v = later;
    v.schedule = hisparse_stage_one(limits, h, 4096);
    if (entry_supports(v, entry)) out.push_back(v);
  }
  return out;
}

bool waits_for_copy_kind(const Variant& v, const TuneOptions& o) {
  return v.op != Op::n && v.transpose == TransposeKind::atomic && !o.deterministic;
}
bool waits_for_first_hisparse(const Variant& v, const TuneOptions& o) {
  return v.layout.outer == OuterLayout::hisparse && !o.hisparse_layouts.empty() &&
         !(v.layout == Layout::parse(o.hisparse_layouts.front()));
}

std::vector<Variant> wide_hisparse_kernels(const std::vector<std::pair<std::string, Precision>>& batches,
                                           const TuneOptions& options, const ScheduleLimits& limits) {
  std::vector<Variant> out;
  for (const auto& [name, p] : batches) {
    const EntryType& entry = EntryRegistry::instance().get(name);
    for (const auto& v : stage_one_variants(entry, p, options, limits))
      if (waits_for_first_hisparse(v, options) && v.layout.slice >= kWideHisparseD)
        for (const Variant& w : wide_hisparse_setups(v, entry, limits))
          if (const Variant k = w.compiled_variant(); std::find(out.begin(), out.end(), k) == out.end())
            out.push_back(k);
  }
  return out;
}

bool wide_hisparse_pays(const Layout& l, int64_t y_rows, int sm_count) {
  return l.outer == OuterLayout::hisparse && l.slice >= kWideHisparseD &&
         y_rows >= int64_t{kWideStripsPerSm} * l.slice * std::max(1, sm_count);
}

StageOnePolicy stage_one_policy(double compulsory_bytes, long long l2_bytes, bool narrow_fits) {
  StageOnePolicy p;
  p.cached = stays_in_l2(compulsory_bytes, l2_bytes);
  p.narrow = p.cached && narrow_fits;
  return p;
}

std::vector<Variant> keeping_policy(const std::vector<Variant>& vs, const Variant& seed) {
  std::vector<Variant> out;
  for (Variant v : vs) {
    if (v.schedule.row_family() && seed.schedule.row_family()) {
      v.schedule.cached_matrix = seed.schedule.cached_matrix;
      v.schedule.unroll = seed.schedule.unroll;
    }
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::vector<Variant> stage_one_variants(const EntryType& entry, Precision p, const TuneOptions& o,
                                        const ScheduleLimits& limits, StageOnePolicy policy) {
  std::vector<Variant> out;
  if (o.mode == "schedule") policy = {};
  auto push = [&](Variant v) {
    v.entry = entry.name;
    v.precision = p;
    v.op = o.op;
    for (TransposeKind k : transpose_kinds(o, v.layout)) {
      v.transpose = k;
      if (entry_supports(v, entry) && (!o.deterministic || v.deterministic())) out.push_back(v);
    }
  };
  auto add = [&](Variant v) {
    if (v.schedule.row_family()) {
      v.schedule.cached_matrix = policy.cached;
      if (policy.narrow && v.layout.can_be_narrow()) {
        // csr-aos-aos stays wide beside its narrow form: the schedule-only baseline (stage_two_variants)
        if (v.layout.name() == "csr-aos-aos") push(v);
        v.layout.narrow = true;
      }
    }
    push(v);
  };
  std::vector<Layout> layouts =
      o.mode == "schedule" ? std::vector<Layout>{Layout::parse("csr-aos-aos")} : all_layouts();
  if (o.mode != "schedule")
    for (const auto& name : o.hisparse_layouts) layouts.push_back(Layout::parse(name));
  bool first_hisparse = true;
  for (const Layout& l : layouts) {
    Variant v;
    v.layout = l;
    if (l.outer == OuterLayout::hisparse) {
      if (!first_hisparse) {
        // run_job gives it the first layout's fastest setup (that fits) before it runs; until then a setup
        // whose accumulators fit its shared memory (d 256 of 32-byte entries needs groups of 32). A
        // hisparse layout has one transpose kind (tree, or none for op n).
        v.entry = entry.name;
        v.precision = p;
        v.op = o.op;
        v.transpose = transpose_kinds(o, l).front();
        for (const HisparseSetup& h : kHisparseStageOne) {
          v.schedule = hisparse_stage_one(limits, h, 4096);
          if (entry_supports(v, entry)) break;
        }
        add(v);
        continue;
      }
      first_hisparse = false;
      // The first hisparse layout in each setup of kHisparseStageOne, with big strips from 256 slots
      // (1.3-2.8x faster where strips hold many small leaves: irregular and small matrices) and from 4096
      // (0.6-0.9x of that on large regular grids); big is not a template number, so this compiles one
      // kernel per setup. Then the first setup with small leaves one per lane (pays on randomly numbered
      // matrices, costs on ordered ones), and the second setup with leaves batched (-b: 3.6-4.3x faster on
      // randomly numbered matrices, 1.0-1.3x slower on regular grids; H100, session 33) in both big strips.
      for (const HisparseSetup& h : kHisparseStageOne)
        for (int big : {256, 4096}) {
          v.schedule = hisparse_stage_one(limits, h, big);
          add(v);
        }
      v.schedule = hisparse_stage_one(limits, kHisparseStageOne[0], 4096);
      v.schedule.small_leaves = true;
      add(v);
      for (int big : {256, 4096}) {
        v.schedule = batched_stage_one(limits, big);
        add(v);
      }
    } else if (l.outer == OuterLayout::hola) {
      for (int ept : o.entries_per_thread) {
        v.schedule = hola_schedule(limits, 256, ept);
        add(v);
      }
    } else {
      for (int tpr : o.threads_per_row) {
        v.schedule = stage_one_row_schedule(limits, entry.num_vector_components(), p, tpr);
        add(v);
      }
    }
  }
  return out;
}

std::vector<Variant> sorted_window_variants(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            int32_t rows, int top) {
  std::vector<std::pair<double, const Variant*>> ranked;
  for (const auto& v : stage1)
    if (const auto* m = measured.find(v.name()); m && m->ok()) ranked.emplace_back(m->median_us, &v);
  std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::set<std::string> pairs;
  for (const auto& [t, v] : ranked) {
    if (static_cast<int>(pairs.size()) >= top) break;
    pairs.insert(layout_tpr_key(*v));
    if (!v->layout.sorted()) continue;
    // a window of at least all rows sorts the whole matrix: larger ones are the same layout
    int whole = 1 << 30;
    for (int sigma : {v->layout.sigma, 64, 1024, 8192})
      if (sigma >= rows) whole = std::min(whole, sigma);
    std::vector<Variant> out;
    for (int sigma : {64, 1024, 8192}) {
      Variant w = *v;
      w.layout.sigma = sigma;
      if (sigma != v->layout.sigma && sigma <= whole && valid_sell_sigma(w.layout.slice, sigma)) out.push_back(w);
    }
    return out;
  }
  return {};
}

std::vector<Variant> sorted_window_siblings(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            const std::vector<Variant>& windows) {
  if (windows.empty()) return {};
  auto time_of = [&](const Variant& v) {
    const auto* m = measured.find(v.name());
    return m && m->ok() ? m->median_us : -1.0;
  };
  // The pair the windows came from (its stage-one window) and the fastest window.
  const Variant* source = nullptr;
  for (const auto& v : stage1) {
    Variant w = v;
    w.layout.sigma = windows.front().layout.sigma;
    if (v.layout.sorted() && w == windows.front()) source = &v;
  }
  const Variant* best = nullptr;
  for (const auto& w : windows)
    if (time_of(w) > 0 && (!best || time_of(w) < time_of(*best))) best = &w;
  const double source_us = source ? time_of(*source) : -1;
  if (!source || !best || source_us <= 0 || time_of(*best) >= source_us) return {};
  std::vector<std::pair<double, Variant>> ranked;
  for (const auto& v : stage1) {
    const double us = time_of(v);
    if (!v.layout.sorted() || v.layout.slice != source->layout.slice || v.layout.sigma != source->layout.sigma ||
        v == *source || us <= 0 || us > kWindowSiblingKeep * source_us)
      continue;
    Variant s = v;
    s.layout.sigma = best->layout.sigma;
    if (!measured.find(s.name())) ranked.emplace_back(us, s);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<Variant> out;
  for (const auto& [us, s] : ranked) {
    if (static_cast<int>(out.size()) >= kWindowSiblings) break;
    out.push_back(s);
  }
  return out;
}

std::vector<Variant> policy_twins(const MatrixRecord& measured, int n, bool unroll, bool narrow, bool in_l2) {
  std::vector<const MeasurementRecord*> ok;
  for (const auto& m : measured.measurements)
    if (m.ok()) ok.push_back(&m);
  std::sort(ok.begin(), ok.end(), [](auto* l, auto* r) { return l->median_us < r->median_us; });
  std::vector<Variant> out;
  std::set<std::string> pairs;  // one seed per (layout, threads per row): near-equal schedules of one pair
                                // would otherwise take every seat (the scanned Dirac's narrow aos-aos twin
                                // went unmeasured behind three aos-soa schedules, H100 2026-11-24)
  for (const MeasurementRecord* m : ok) {
    if (static_cast<int>(pairs.size()) >= n) break;
    const Variant v = Variant::parse(m->variant);
    if (!v.schedule.row_family()) continue;
    Variant key = v;  // the pair without narrowness: a narrow and a wide seed of one pair are one seat
    key.layout.narrow = false;
    if (!pairs.insert(layout_tpr_key(key)).second) continue;
    // The seed's own policy first, then the other; its unrolling first, then the others.
    std::vector<int> unrolls{v.schedule.unroll};
    if (unroll)
      for (int u : {2, 4, 8})
        if (u != v.schedule.unroll) unrolls.push_back(u);
    std::vector<Variant> twins;
    for (int u : unrolls)
      for (bool cached : {v.schedule.cached_matrix, !v.schedule.cached_matrix}) {
        if (cached && u != 2 && !in_l2) continue;
        twins.push_back(v);
        twins.back().schedule.unroll = u;
        twins.back().schedule.cached_matrix = cached;
      }
    // The other form of its csr, ell or sell layout, each policy: narrow only where the columns fit; a
    // narrow seed (stage one's form in L2) widens always.
    if (v.layout.can_be_narrow() && (narrow || v.layout.narrow)) {
      const size_t forms = twins.size();
      for (size_t i = 0; i < forms; ++i) {
        twins.push_back(twins[i]);
        twins.back().layout.narrow = !v.layout.narrow;
      }
    }
    for (const auto& t : twins)
      if (!(t == v) && !measured.find(t.name())) out.push_back(t);
  }
  return out;
}

std::vector<Variant> ordering_twins(const MatrixRecord& measured, int n, Ordering ordering, bool narrow) {
  std::map<std::string, std::pair<double, Variant>> fastest;  // by outer layout
  for (const auto& m : measured.measurements) {
    if (!m.ok()) continue;
    const Variant v = Variant::parse(m.variant);
    if (v.ordering != Ordering::none) continue;
    auto [it, fresh] = fastest.emplace(v.layout.outer_name(), std::make_pair(m.median_us, v));
    if (!fresh && m.median_us < it->second.first) it->second = {m.median_us, v};
  }
  std::vector<std::pair<double, Variant>> ranked;
  for (auto& [outer, best] : fastest) ranked.push_back(best);
  std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  // The fastest hisparse variant is renumbered too, wherever it ranks: a randomly numbered matrix makes a
  // tree of one-entry leaves, and renumbered it ran 9-14x faster (dirac_irregular f32 651 -> 62 us, f64
  // 904 -> 95, H100, session 32), so the database holds what HiSparse can do there (bench --layout hisparse).
  const auto hisparse = std::find_if(ranked.begin(), ranked.end(),
                                     [](const auto& r) { return r.second.layout.outer == OuterLayout::hisparse; });
  int keep = n;
  if (hisparse != ranked.end() && hisparse - ranked.begin() >= n) {
    std::rotate(ranked.begin() + n, hisparse, hisparse + 1);  // to rank n, the others in their order
    ++keep;
  }
  std::vector<Variant> out;
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < keep; ++i) {
    Variant v = ranked[i].second;
    v.ordering = ordering;
    if (!narrow) v.layout.narrow = false;  // the renumbered columns do not fit 16 bits
    std::vector<Variant> twins{v};
    if (narrow && v.layout.can_be_narrow() && !v.layout.narrow) {
      twins.push_back(v);
      twins.back().layout.narrow = true;
    }
    for (const auto& t : twins)
      if (!measured.find(t.name())) out.push_back(t);
  }
  return out;
}

std::vector<Variant> hisparse_setup_twins(const MatrixRecord& measured, const Variant& renumbered, const EntryType& entry,
                                          const ScheduleLimits& limits) {
  std::vector<Variant> out;
  if (renumbered.layout.outer != OuterLayout::hisparse) return out;
  std::vector<Schedule> setups;
  for (const HisparseSetup& h : kHisparseStageOne) setups.push_back(hisparse_stage_one(limits, h, renumbered.schedule.big_strip));
  setups.push_back(batched_stage_one(limits, renumbered.schedule.big_strip));
  for (const Schedule& s : setups) {
    Variant v = renumbered;
    v.schedule = s;
    if (!(v == renumbered) && !measured.find(v.name()) && entry_supports(v, entry) &&
        std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  }
  return out;
}

std::vector<Variant> y_form_twins(const MatrixRecord& measured, int n) {
  std::vector<std::pair<double, Variant>> renumbered;
  for (const auto& m : measured.measurements)  // only an ordering puts '@' into a name
    if (m.ok() && m.variant.find('@') != std::string::npos) renumbered.emplace_back(m.median_us, Variant::parse(m.variant));
  std::sort(renumbered.begin(), renumbered.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<Variant> out;
  std::set<std::string> seen;  // by the mapped form: both forms of one variant count once
  for (const auto& [us, v] : renumbered) {
    if (static_cast<int>(seen.size()) == n) break;
    Variant mapped = v, other = v;
    mapped.renumbered_y = RenumberedY::mapped;
    if (!seen.insert(mapped.name()).second) continue;
    other.renumbered_y = v.renumbered_y == RenumberedY::moved ? RenumberedY::mapped : RenumberedY::moved;
    if (!measured.find(other.name())) out.push_back(other);
  }
  return out;
}

std::vector<Variant> even_grid_twins(const MatrixRecord& measured, int n, int64_t rows, int64_t cols, int sm_count) {
  std::vector<std::pair<double, Variant>> ranked;
  for (const auto& m : measured.measurements) {
    if (!m.ok()) continue;
    const Variant v = Variant::parse(m.variant);
    if (v.schedule.kind == ScheduleKind::static_ && !v.schedule.even_grid) ranked.emplace_back(m.median_us, v);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<Variant> out;
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < n; ++i) {
    Variant even = ranked[i].second;
    even.schedule.even_grid = true;
    const int64_t stored_rows = even.uses_transposed_copy() ? cols : rows;
    if (row_kernel_blocks(stored_rows, even.schedule, sm_count) <
            row_kernel_blocks(stored_rows, ranked[i].second.schedule, sm_count) &&
        !measured.find(even.name()))
      out.push_back(even);
  }
  return out;
}

namespace {

// The largest block count of the search with t * b within the SM's threads.
int max_blocks(const ScheduleLimits& limits, int threads) {
  int best = 1;
  for (int b : block_counts(limits))
    if (b * threads <= limits.max_threads_per_sm) best = std::max(best, b);
  return best;
}

}  // namespace

std::vector<Variant> coarse_grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits) {
  if (!seed.schedule.row_family()) return grid_variants(entry, seed, limits);
  std::vector<Variant> out{seed};
  const auto counts = thread_counts(limits);
  for (ScheduleKind kind : {ScheduleKind::static_, ScheduleKind::dynamic})
    for (int t : {64, 256, 1024}) {
      if (std::find(counts.begin(), counts.end(), t) == counts.end()) continue;
      const int full = max_blocks(limits, t);
      for (int b : {full, std::max(1, full / 2)}) {
        Variant v = seed;
        v.schedule = Schedule{kind, t, b, seed.schedule.threads_per_row};
        if (std::none_of(out.begin(), out.end(), [&](const Variant& o) { return o == v; })) out.push_back(v);
      }
    }
  return out;
}

std::vector<Variant> refined_grid_variants(const Variant& best, const ScheduleLimits& limits) {
  const Schedule& s = best.schedule;
  std::vector<Variant> out;
  if (s.kind == ScheduleKind::hisparse) {  // the grid's best with the other chunk counts per thread
    for (int u : {1, 2, 4, 8})
      if (u != s.unroll) {
        out.push_back(best);
        out.back().schedule.unroll = u;
      }
    return out;
  }
  if (!s.row_family()) return {};
  for (int t : thread_counts(limits))
    for (int b : block_counts(limits)) {
      if (t * b > limits.max_threads_per_sm || 2 * t < s.threads || t > 2 * s.threads || 2 * b < s.blocks_per_sm ||
          b > 2 * s.blocks_per_sm)
        continue;
      Variant v = best;
      v.schedule = Schedule{s.kind, t, b, s.threads_per_row};
      out.push_back(v);
    }
  Variant other = best;  // the other kind where the best stands
  other.schedule = Schedule{s.kind == ScheduleKind::static_ ? ScheduleKind::dynamic : ScheduleKind::static_,
                            s.threads, s.blocks_per_sm, s.threads_per_row};
  out.push_back(other);
  return out;
}

std::vector<Variant> refined_stage_two(const MatrixRecord& measured, const std::vector<Variant>& coarse,
                                       const ScheduleLimits& limits) {
  std::map<std::string, std::pair<double, const Variant*>> best;  // per (layout, tpr, kind) of the coarse grid
  for (const auto& v : coarse)
    if (const auto* m = measured.find(v.name()); m && m->ok()) {
      auto [it, fresh] = best.emplace(layout_tpr_key(v), std::make_pair(m->median_us, &v));
      if (!fresh && m->median_us < it->second.first) it->second = {m->median_us, &v};
    }
  std::vector<Variant> out;
  for (const auto& [key, b] : best)
    for (const auto& v : keeping_policy(refined_grid_variants(*b.second, limits), *b.second))
      if (!measured.find(v.name())) out.push_back(v);
  return out;
}

std::vector<Variant> grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits) {
  std::vector<Variant> out;
  Variant v = seed;
  if (seed.layout.outer == OuterLayout::hisparse) {
    // The node/queue setup: threads per group, block size and where a strip counts as big.
    for (int t : {64, 128, 256})
      for (int resident : {512, 1024, 2048})
        for (int g : {4, 8, 16, 32})
          for (int big : {0, 256, 1024, 16384}) {
            v.schedule = hisparse_schedule(limits, t, g, big, resident);
            v.schedule.small_leaves = seed.schedule.small_leaves;
            v.schedule.batched_leaves = seed.schedule.batched_leaves;
            if (entry_supports(v, entry)) out.push_back(v);
          }
    return out;
  }
  if (seed.layout.outer == OuterLayout::hola) {
    for (int t : thread_counts(limits)) {
      if (t < 64) continue;
      for (int ept : {1, 2, 4, 8, 16, 32}) {
        v.schedule = hola_schedule(limits, t, ept);
        if (entry_supports(v, entry)) out.push_back(v);
      }
    }
    return out;
  }
  for (const Schedule& s : all_schedules(limits, {seed.schedule.threads_per_row})) {
    v.schedule = s;
    out.push_back(v);
  }
  return out;
}

std::vector<Variant> atomic_stage_one(const std::vector<Variant>& atomic, const MatrixRecord& measured,
                                      int per_layout, double keep) {
  // The copy kind's measurements, fastest first, by layout.
  std::map<std::string, std::vector<std::pair<double, Variant>>> copy_by_layout;
  double fastest = 0;  // the copy kind's best over every layout
  for (const auto& m : measured.measurements) {
    if (!m.ok()) continue;
    const Variant v = Variant::parse(m.variant);
    if (v.op == Op::n || v.transpose != TransposeKind::copy) continue;
    copy_by_layout[v.layout.name()].emplace_back(m.median_us, v);
    if (fastest == 0 || m.median_us < fastest) fastest = m.median_us;
  }
  std::set<std::string> wanted;  // the atomic twins of the best copy variants
  for (auto& [layout, ranked] : copy_by_layout) {
    std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    if (ranked.front().first > keep * fastest) continue;  // a slow layout: its atomic twins are pruned
    const int keep_tpr = ranked.front().second.layout.outer == OuterLayout::hola ? 1 : per_layout;
    for (int i = 0; i < keep_tpr && i < static_cast<int>(ranked.size()); ++i) {
      Variant twin = ranked[i].second;
      twin.transpose = TransposeKind::atomic;
      wanted.insert(twin.name());
    }
  }
  std::vector<Variant> out;
  for (const auto& v : atomic)
    // A layout the copy kind could not rank (its transposed copy was skipped or failed) keeps every variant.
    if (wanted.count(v.name()) || !copy_by_layout.count(v.layout.name())) out.push_back(v);
  return out;
}

}  // namespace jitsparse
