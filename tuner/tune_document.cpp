// Tuner::report(): the tune-result document (schema in tuner/report.hpp's caller notes) from the records of
// this run: winners, the layout table of the compound-entry study, heat maps, failures.
#include <algorithm>
#include <map>
#include <set>

#include "generator/nvrtc_compiler.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse {
namespace {

nlohmann::json timing(const MeasurementRecord* m) {
  if (!m) return nullptr;
  const Variant v = Variant::parse(m->variant);
  return {{"variant", m->variant}, {"layout", v.layout.name()}, {"schedule", v.schedule.name()},
          {"median_us", m->median_us}, {"gbps", m->gbps}};
}

// Per layout: the best measurement of any schedule, its speedup over schedule-only, bytes, status.
nlohmann::json layout_table(const MatrixRecord& r, double baseline_us) {
  nlohmann::json rows = nlohmann::json::array();
  std::vector<Layout> layouts = all_layouts();
  for (const Layout& l : hisparse_layouts()) layouts.push_back(l);
  for (const Layout& l : layouts) {
    const MeasurementRecord* best = nullptr;
    const MeasurementRecord* any = nullptr;
    // A row layout's narrow form (-d16) counts as the layout: stage one times only that form of a matrix
    // in L2 whose columns fit (StageOnePolicy); best_variant says which form was faster.
    Layout narrow = l;
    narrow.narrow = l.can_be_narrow();
    const std::string wide_key = "/" + l.name() + "/", narrow_key = "/" + narrow.name() + "/";
    for (const auto& m : r.measurements) {
      if (m.variant.find(wide_key) == std::string::npos &&
          (!narrow.narrow || m.variant.find(narrow_key) == std::string::npos))
        continue;
      if (!any) any = &m;
      if (m.ok() && (!best || m.median_us < best->median_us)) best = &m;
    }
    if (!any) continue;
    nlohmann::json row = {{"layout", l.name()}, {"bytes", any->bytes}};
    if (best) {
      row["best_variant"] = best->variant;
      row["median_us"] = best->median_us;
      row["gbps"] = best->gbps;
      row["speedup_over_schedule_only"] = baseline_us > 0 ? nlohmann::json(baseline_us / best->median_us) : nullptr;
      row["status"] = "ok";
      row["bytes"] = best->bytes;
    } else {
      row["best_variant"] = nullptr;
      row["median_us"] = nullptr;
      row["gbps"] = nullptr;
      row["speedup_over_schedule_only"] = nullptr;
      row["status"] = any->status.substr(0, 300);
    }
    rows.push_back(row);
  }
  return rows;
}

// Heat maps of time over n_t x n_b for every (layout, tpr) whose grid was swept, static and dynamic.
nlohmann::json heatmaps(const MatrixRecord& r) {
  std::map<std::string, std::map<std::pair<int, int>, double>> cells;  // key -> (nt, nb) -> us
  std::map<std::string, std::tuple<std::string, std::string, int>> meta;
  std::map<std::string, int> count;
  for (const auto& m : r.measurements) {
    const Variant v = Variant::parse(m.variant);
    const bool hola = v.schedule.kind == ScheduleKind::hola;
    // hola grids are n_t x entries per thread (n_b follows from n_t): the column axis holds ept there.
    std::string kind = hola ? "hola (columns: entries per thread)"
                            : v.schedule.kind == ScheduleKind::static_ ? "static" : "dynamic";
    if (v.op != Op::n) kind += " " + to_string(v.transpose);
    const std::string key = v.layout.name() + "|" + kind + "|" + std::to_string(v.schedule.threads_per_row);
    meta[key] = {v.layout.name(), kind, v.schedule.threads_per_row};
    ++count[key];
    if (m.ok())
      cells[key][{v.schedule.threads, hola ? v.schedule.entries_per_thread : v.schedule.blocks_per_sm}] = m.median_us;
  }
  nlohmann::json maps = nlohmann::json::array();
  for (const auto& [key, n] : count) {
    if (n < 8) continue;  // only swept grids, not stage-1 points
    std::set<int> nts, nbs;
    for (const auto& [cell, us] : cells[key]) {
      nts.insert(cell.first);
      nbs.insert(cell.second);
    }
    nlohmann::json grid = nlohmann::json::array();
    for (int nt : nts) {
      nlohmann::json row = nlohmann::json::array();
      for (int nb : nbs) {
        auto it = cells[key].find({nt, nb});
        row.push_back(it == cells[key].end() ? nlohmann::json(nullptr) : nlohmann::json(it->second));
      }
      grid.push_back(row);
    }
    const auto& [layout, kind, tpr] = meta[key];
    maps.push_back({{"layout", layout}, {"kind", kind}, {"threads_per_row", tpr},
                    {"threads", std::vector<int>(nts.begin(), nts.end())},
                    {"blocks_per_sm", std::vector<int>(nbs.begin(), nbs.end())}, {"median_us", grid}});
  }
  return maps;
}

}  // namespace

nlohmann::json Tuner::report() const {
  const DeviceInfo& d = ctx_.device();
  const auto stats = ctx_.compile_stats();
  nlohmann::json doc = {
      {"tool", "jitsparse " JITSPARSE_VERSION},
      {"started", started_iso_},
      {"wall_seconds", elapsed()},
      // Where the wall time went; the rest is reading matrices, the CPU reference and saving.
      {"seconds", {{"packing", pack_seconds_}, {"compiling", compile_seconds_}, {"measuring", measure_seconds_}}},
      // Single launches that read 4x slower than the best, then were not on a second launch (Tuner::measure).
      {"one_launch_verdicts_overturned", verdicts_overturned_},
      {"mode", options_.mode},
      {"op", to_string(options_.op)},
      {"deterministic_only", options_.deterministic},
      {"budget_seconds", options_.budget_seconds},
      {"database", db_.path()},
      {"gpu", {{"name", d.name}, {"arch", d.arch()}, {"sm_count", d.sm_count}, {"key", d.key()},
               {"driver_version", d.driver_version}}},
      {"nvrtc_version", nvrtc_version()},
      {"compile", {{"variants", stats.compiled + stats.from_cache + stats.failed}, {"compiled", stats.compiled},
                   {"from_cache", stats.from_cache}, {"failed", stats.failed}, {"programs", stats.programs}, {"seconds", stats.compile_seconds}}}};
  if (ahead_) doc["seconds"]["compiling_ahead"] = ahead_report();
  for (const auto& [stage, wait] : compile_by_stage_)
    doc["seconds"]["compiling_by_stage"][stage] = {{"seconds", wait.first}, {"rounds", wait.second}};
  for (const auto& [name, secs] : pack_by_matrix_) doc["seconds"]["packing_by_matrix"][name] = secs;
  doc["seconds"]["by_job"] = nlohmann::json::array();
  for (const auto& j : job_seconds_)
    doc["seconds"]["by_job"].push_back({{"matrix", j.matrix}, {"precision", j.precision}, {"wall", j.wall},
                                        {"packing", j.packing}, {"compiling", j.compiling}, {"measuring", j.measuring},
                                        {"reference", j.reference}, {"choosing", j.choosing}, {"saving", j.saving}});
  nlohmann::json mats = nlohmann::json::array();
  for (const auto& [hash, prec] : tuned_) {
    const MatrixRecord* r = db_.find(hash, prec, to_string(options_.op));
    if (!r) continue;
    const MeasurementRecord* w = r->find(options_.deterministic ? r->deterministic_winner : r->winner);
    const MeasurementRecord* s = r->find(r->schedule_only);
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& m : r->measurements)
      if (!m.ok() && m.status.rfind("skipped", 0) != 0) failures.push_back({{"variant", m.variant}, {"status", m.status.substr(0, 500)}});
    mats.push_back({{"name", r->name},
                    {"entry", r->entry},
                    {"precision", r->precision},
                    {"op", r->op},
                    {"domain", r->domain},
                    {"hash", r->hash},
                    {"rows", r->features.rows},
                    {"cols", r->features.cols},
                    {"nnz", r->features.nnz},
                    {"features", r->features},
                    {"compulsory_bytes", r->compulsory_bytes},
                    {"complete", r->complete},
                    {"timing", r->timing},
                    {"winner", timing(w)},
                    {"schedule_only", timing(s)},
                    {"speedup_over_schedule_only", w && s ? nlohmann::json(s->median_us / w->median_us) : nullptr},
                    {"layouts", layout_table(*r, s ? s->median_us : 0)},
                    {"heatmaps", heatmaps(*r)},
                    {"measured", r->measurements.size()},
                    {"failures", failures}});
  }
  doc["matrices"] = mats;
  nlohmann::json doms = nlohmann::json::array();
  for (const auto& dom : db_.domains()) {
    bool in_run = false;
    for (const auto& [hash, prec] : tuned_)
      if (const MatrixRecord* r = db_.find(hash, prec, to_string(options_.op));
          r && r->domain == dom.domain && r->entry == dom.entry && r->precision == dom.precision && r->op == dom.op)
        in_run = true;
    if (!in_run) continue;
    doms.push_back({{"domain", dom.domain}, {"entry", dom.entry}, {"precision", dom.precision}, {"winner", dom.winner},
                    {"geomean_speedup_over_schedule_only", dom.geomean_speedup}, {"matrices", dom.matrices}});
  }
  doc["domains"] = doms;
  return doc;
}

}  // namespace jitsparse
