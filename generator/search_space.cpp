#include "generator/search_space.hpp"

#include <algorithm>

namespace jitsparse {

std::vector<int> thread_counts(const ScheduleLimits& l) {
  std::vector<int> t;
  for (int base : {l.warp_size, 3 * l.warp_size})
    for (int n = base; n <= l.max_threads_per_block; n *= 2) t.push_back(n);
  std::sort(t.begin(), t.end());
  return t;
}

std::vector<int> block_counts(const ScheduleLimits& l) {
  std::vector<int> b;
  for (int base : {1, 3})
    for (int n = base; n <= l.max_blocks_per_sm; n *= 2) b.push_back(n);
  std::sort(b.begin(), b.end());
  return b;
}

std::vector<Schedule> all_schedules(const ScheduleLimits& l, const std::vector<int>& threads_per_row) {
  std::vector<Schedule> out;
  for (ScheduleKind kind : {ScheduleKind::static_, ScheduleKind::dynamic})
    for (int t : thread_counts(l))
      for (int b : block_counts(l)) {
        if (t * b > l.max_threads_per_sm) continue;
        for (int tpr : threads_per_row) out.push_back(Schedule{kind, t, b, tpr});
      }
  return out;
}

std::vector<Variant> structural_variants(const std::vector<std::string>& entries, const Schedule& base, Op op) {
  std::vector<Variant> out;
  auto add = [&](Variant v) {
    v.op = op;
    for (TransposeKind k : {TransposeKind::atomic, TransposeKind::copy}) {
      v.transpose = k;
      out.push_back(v);
      if (op == Op::n) return;
    }
  };
  for (const auto& e : entries)
    for (Precision p : {Precision::f32, Precision::f64})
      for (const Layout& layout : all_layouts()) {
        Variant v;
        v.entry = e;
        v.precision = p;
        v.layout = layout;
        v.schedule = base;
        if (layout.outer == OuterLayout::hola) {
          // small enough for the widest built-in entries in shared memory (dual quaternion f64: 25 KB)
          v.schedule = Schedule{ScheduleKind::hola, 128, 16, 1, 2};
          add(v);
          continue;
        }
        for (ScheduleKind kind : {ScheduleKind::static_, ScheduleKind::dynamic}) {
          v.schedule.kind = kind;
          add(v);
        }
      }
  return out;
}

Schedule hola_schedule(const ScheduleLimits& l, int threads, int ept) {
  Schedule s;
  s.kind = ScheduleKind::hola;
  s.threads = threads;
  // Half the threads an SM holds: twice the registers per thread keep more of a thread's loads in
  // flight (H100, same variants: 1.0-1.4x over full occupancy on 22 of 26 main-set cases, NOTES.md).
  s.blocks_per_sm = std::max(1, std::min(l.max_blocks_per_sm, l.max_threads_per_sm / threads / 2));
  s.entries_per_thread = ept;
  return s;
}

std::vector<Schedule> hola_schedules(const ScheduleLimits& l) {
  std::vector<Schedule> out;
  for (int t : thread_counts(l))
    for (int ept : {1, 2, 4, 8, 16, 32}) out.push_back(hola_schedule(l, t, ept));
  return out;
}

int stage_one_blocks_per_sm(const ScheduleLimits& l, int vector_components, Precision p) {
  const int full = std::max(1, std::min(l.max_blocks_per_sm, l.max_threads_per_sm / 256));
  const bool heavy = vector_components * scalar_bytes(p) >= 32;
  return heavy ? std::max(1, full / 2) : full;
}

Schedule stage_one_row_schedule(const ScheduleLimits& l, int vector_components, Precision p, int threads_per_row) {
  Schedule s;
  s.kind = ScheduleKind::static_;
  s.threads = 256;
  s.blocks_per_sm = stage_one_blocks_per_sm(l, vector_components, p);
  s.threads_per_row = threads_per_row;
  return s;
}

size_t full_space_size(const ScheduleLimits& l) {
  return row_layouts().size() * all_schedules(l).size() + (all_layouts().size() - row_layouts().size()) * hola_schedules(l).size();
}

}  // namespace jitsparse
