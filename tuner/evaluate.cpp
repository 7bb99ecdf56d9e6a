#include "tuner/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/yardstick.hpp"
#include "selection/model.hpp"
#include "selection/quick_plan.hpp"
#include "tuner/quick_tune.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse {
namespace {

bool evaluated(const MatrixRecord& r, const EvaluationOptions& o) {
  return r.complete && r.search == "full" && r.op == to_string(o.op) && r.best(false, o.deterministic);
}

PredictorResult look_up(const MatrixRecord& r, const std::string& variant, double best_us) {
  PredictorResult p;
  p.variant = variant;
  const MeasurementRecord* m = variant.empty() ? nullptr : r.find(variant);
  if (!m) {
    p.status = "not timed";
  } else if (!m->ok()) {
    p.status = m->status.substr(0, m->status.find(':'));
  } else {
    p.relative = m->median_us / best_us;
  }
  return p;
}

// Quick tuning's variants on a record, round by round. Each round is chosen from the times the record
// has of the rounds before; a variant it lacks counts as not measured (offline, with no GPU, that is all
// there is). On the GPU, missing() asks for the first round with variants the record lacks, the caller
// measures them, and the next walk goes on from there (tuner/quick_tune.hpp quick_step: the tuner's steps).
struct QuickWalk {
  std::vector<std::string> variants;     // every variant of the rounds walked, in order
  std::vector<std::string> wanted;       // those the record lacks
  std::vector<std::string> next_wanted;  // those of the first round with any the record lacks
};
QuickWalk quick_walk(const Prediction& pred, const QuickPlan& plan, const MatrixRecord& r,
                     const ScheduleLimits& limits, long long l2_bytes) {
  QuickWalk w;
  const TimeOf times = record_times(r);
  auto add_round = [&](const std::vector<std::string>& round) {
    const bool earlier_complete = w.wanted.empty();
    for (const auto& v : round) {
      if (std::find(w.variants.begin(), w.variants.end(), v) != w.variants.end()) continue;
      w.variants.push_back(v);
      if (r.find(v)) continue;
      w.wanted.push_back(v);
      if (earlier_complete) w.next_wanted.push_back(v);
    }
  };
  const EntryType* entry = EntryRegistry::instance().contains(r.entry) ? &EntryRegistry::instance().get(r.entry) : nullptr;
  const bool unroll = unrolling_may_pay(r.compulsory_bytes, l2_bytes);
  const QuickMatrix m{entry, limits, unroll, r.features.narrow_fits == 1,
                      sorted_sell_pays(r.features, entry ? entry->num_components() : 1)};
  std::vector<std::vector<std::string>> steps;
  for (int k = 0; k < kQuickSteps; ++k) {
    steps.push_back(quick_step(k, pred, plan, m, steps, times));
    add_round(steps.back());
  }
  return w;
}

// Quick tuning's three finalists, in search measurements of the matrix: re-timed (quick_final_timing),
// and timed cold where the matrix is over an eighth of the L2. Checked against real quick tunes on the
// H100 (nineteenth session): on the 58 small tests/data records this estimate gave 4.39 s for a real
// 4.37 s; on the main set's 18 large records, with six finalists timed cold, real quick tuning cost
// k + 24 measurements (now three: about k + 12).
constexpr double kQuickFinalistCost = 9, kQuickColdFinalistCost = 3;

// What one measurement of the staged search cost on this matrix: the median over the measurements
// timed with the search's few samples (the finalists' long re-timing left out).
double search_measurement_seconds(const MatrixRecord& r) {
  std::vector<double> s;
  for (const auto& m : r.measurements)
    if (m.seconds > 0 && m.samples_us.size() <= 3) s.push_back(m.seconds);
  if (s.empty()) return 0;
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  return s[s.size() / 2];
}

}  // namespace

Evaluation::Evaluation(const TuningDatabase& db, EvaluationOptions options)
    : options_(std::move(options)), plan_(quick_plan(options_.quick_pairs, options_.quick_plan)) {
  plan_.grid = options_.quick_grid;
  if (options_.holdout != "matrix" && options_.holdout != "family" && options_.holdout != "main")
    throw InvalidArgument("holdout '" + options_.holdout + "' (expected matrix, family or main)");
  // "main": a user who ran only the main job: the model learns from the built-in set and predicts for
  // every other matrix.
  const bool main_only = options_.holdout == "main";
  const SelectionModel model(db, options_.l2_bytes, options_.neighbours);
  for (const MatrixRecord* r : db.records()) {
    if (!evaluated(*r, options_)) continue;
    if (main_only && r->domain.rfind(kMainSetDomainPrefix, 0) == 0) continue;
    Planned p;
    p.hash = r->hash;
    p.precision = r->precision;
    p.name = r->name;
    for (const auto& m : r->measurements)
      if (m.origin.empty()) p.full_seconds += m.seconds;  // the search's own cost
    const Precision prec = parse_precision(r->precision);
    TrainingFilter filter;
    filter.exclude_hash = r->hash;
    if (options_.holdout == "family") filter.exclude_family = family_of_domain(r->domain);
    if (main_only) filter.learn_only_prefix = kMainSetDomainPrefix;
    const int components =
        EntryRegistry::instance().contains(r->entry) ? EntryRegistry::instance().get(r->entry).num_components() : 1;
    // Quick tuning predicts as the tuner does, knowing whether the columns fit narrow offsets (it checks).
    // The model's first choice as run-time selection makes it: from compute_features, which leaves that
    // unknown (the model proposes narrow twins as where they fit), a narrow pick falling back to its wide
    // twin where the columns do not fit (select_variant). So only a record known not to fit predicts twice.
    const ModelQuery query{r->features, r->compulsory_bytes, r->entry, prec, options_.op, options_.deterministic, components};
    const Prediction pred = model.predict(query, filter);
    std::optional<Prediction> fit_unknown;
    if (query.features.narrow_fits == 0) {
      ModelQuery run_time = query;
      run_time.features.narrow_fits = -1;
      fit_unknown = model.predict(run_time, filter);
    }
    const Prediction& first = fit_unknown ? *fit_unknown : pred;
    if (!pred.empty() && !first.empty()) {
      Variant chosen = Variant::parse(first.ranked.front().variant);
      if (chosen.layout.narrow && chosen.ordering == Ordering::none && r->features.narrow_fits == 0)
        chosen.layout.narrow = false;
      p.model = chosen.name();
      p.expected = first.ranked.front().expected_relative;
      p.confidence = first.confidence;
      p.quick = pred;
      // The nearest matrix's fastest variant as its search found it: its `winner` may since have become
      // a variant an evaluation timed, and an evaluation must not learn from what evaluations measured.
      if (const MatrixRecord* n = db.find(pred.neighbours.front().hash, r->precision, r->op)) {
        const MeasurementRecord* fastest = nullptr;
        for (const auto& m : n->measurements)
          if (m.ok() && m.origin.empty() && (!options_.deterministic || m.deterministic()) &&
              (!fastest || m.median_us < fastest->median_us))
            fastest = &m;
        if (fastest) {
          p.nearest_winner = fastest->variant;
          if (n->entry != r->entry) p.nearest_winner = r->entry + p.nearest_winner.substr(p.nearest_winner.find('.'));
        }
      }
    }
    p.rule = rule_of_thumb(r->features, r->entry, prec, options_.op, options_.deterministic, options_.limits).name();
    planned_.push_back(std::move(p));
  }
}

std::vector<MissingTimes> Evaluation::missing(const TuningDatabase& db, const std::string& hash) const {
  std::vector<MissingTimes> out;
  for (const Planned& p : planned_) {
    if (!hash.empty() && p.hash != hash) continue;
    const MatrixRecord* r = db.find(p.hash, p.precision, to_string(options_.op));
    if (!r) continue;
    MissingTimes m{r->hash, r->name, r->domain, r->precision, {}};
    auto want = [&](const std::string& v) {
      if (!v.empty() && !r->find(v) && std::find(m.variants.begin(), m.variants.end(), v) == m.variants.end())
        m.variants.push_back(v);
    };
    want(p.model);
    want(p.rule);
    want(p.nearest_winner);
    // Quick tuning's later rounds depend on the earlier rounds' times: asked for once those are there.
    if (options_.time_quick)
      for (const auto& v : quick_walk(p.quick, plan_, *r, options_.limits, options_.l2_bytes).next_wanted) want(v);
    if (!m.variants.empty()) out.push_back(std::move(m));
  }
  return out;
}

std::vector<EvaluationRow> Evaluation::rows(const TuningDatabase& db) const {
  std::vector<EvaluationRow> out;
  for (const Planned& p : planned_) {
    const MatrixRecord* r = db.find(p.hash, p.precision, to_string(options_.op));
    if (!r) continue;
    const MeasurementRecord* best = r->best(false, options_.deterministic);
    if (!best) continue;
    EvaluationRow row;
    row.matrix = r->name;
    row.hash = r->hash;
    row.domain = r->domain;
    row.entry = r->entry;
    row.precision = r->precision;
    row.best_variant = best->variant;
    row.best_us = best->median_us;
    row.model = look_up(*r, p.model, best->median_us);
    row.rule = look_up(*r, p.rule, best->median_us);
    row.nearest_winner = look_up(*r, p.nearest_winner, best->median_us);
    row.expected_relative = p.expected;
    row.confidence = p.confidence;
    row.full_seconds = p.full_seconds;
    // Quick tuning keeps the fastest of its rounds. Its GPU time is estimated, not summed from the
    // record (whose finalists were re-timed with the full search's long final timing): each variant
    // costs what one search measurement of this matrix cost (the record's median), re-timing three
    // finalists with quick_final_timing's 9 samples costs 9 more (kQuickFinalistCost), timing them cold
    // too (a matrix over an eighth of the L2) 3 more, and the warm-up before them its time.
    const QuickWalk walk = quick_walk(p.quick, plan_, *r, options_.limits, options_.l2_bytes);
    const std::vector<std::string>& quick = walk.variants;
    bool untimed = quick.empty();
    for (const auto& v : quick) {
      const PredictorResult one = look_up(*r, v, best->median_us);
      untimed = untimed || one.status == "not timed";
      if (one.relative && (!row.quick.relative || *one.relative < *row.quick.relative)) {
        row.quick.relative = one.relative;
        row.quick.variant = v;
      }
    }
    // Planned, not only what the record has: a real quick tune measures every variant of its rounds.
    row.quick_k = static_cast<int>(quick.size());
    const bool cold = options_.l2_bytes > 0 && r->compulsory_bytes > options_.l2_bytes / 8.0;
    const double finalists = kQuickFinalistCost + (cold ? kQuickColdFinalistCost : 0);
    row.quick_seconds =
        quick.empty() ? 0 : (quick.size() + finalists) * search_measurement_seconds(*r) + kQuickWarmupMs / 1000;
    row.quick.status = !walk.wanted.empty() && row.quick.relative ? "partly timed"
                       : row.quick.relative                       ? "ok"
                       : untimed                                  ? "not timed"
                                                                  : "failed";
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json evaluation_summary(const std::vector<EvaluationRow>& rows) {
  nlohmann::json s = nlohmann::json::object();
  auto summarize = [&](const char* name, auto pick) {
    int n = 0, timed = 0, within10 = 0, within3 = 0;
    double log_sum = 0, worst = 1;
    for (const auto& r : rows) {
      ++n;
      const PredictorResult& p = pick(r);
      if (!p.relative) continue;
      ++timed;
      within10 += *p.relative <= 1.10;
      within3 += *p.relative <= 1.03;
      log_sum += std::log(*p.relative);
      worst = std::max(worst, *p.relative);
    }
    int partly = 0;
    for (const auto& r : rows) partly += pick(r).status == "partly timed";
    nlohmann::json j = {{"matrices", n},         {"timed", timed},          {"within_10_percent", within10},
                        {"within_3_percent", within3}, {"partly_timed", partly}};
    if (timed > 0) {
      j["share_within_10_percent"] = static_cast<double>(within10) / timed;
      j["share_within_3_percent"] = static_cast<double>(within3) / timed;
      j["geomean_relative"] = std::exp(log_sum / timed);
      j["worst_relative"] = worst;
    }
    s[name] = j;
  };
  summarize("model", [](const EvaluationRow& r) -> const PredictorResult& { return r.model; });
  summarize("quick", [](const EvaluationRow& r) -> const PredictorResult& { return r.quick; });
  summarize("rule_of_thumb", [](const EvaluationRow& r) -> const PredictorResult& { return r.rule; });
  summarize("nearest_winner", [](const EvaluationRow& r) -> const PredictorResult& { return r.nearest_winner; });
  double quick = 0, full = 0;
  int slower_than_cusparse = 0, cusparse_rows = 0;
  for (const auto& r : rows) {
    quick += r.quick_seconds;
    full += r.full_seconds;
    if (r.cusparse_us && r.model.relative) {
      ++cusparse_rows;
      // Where a tuned variant beats cuSPARSE, the model's choice must too.
      if (r.best_us < *r.cusparse_us && r.best_us * *r.model.relative > *r.cusparse_us) ++slower_than_cusparse;
    }
  }
  s["quick_seconds"] = quick;
  s["full_seconds"] = full;
  if (full > 0) s["quick_share_of_full_gpu_time"] = quick / full;
  s["cusparse_compared"] = cusparse_rows;
  s["model_slower_than_cusparse_where_tuned_is_faster"] = slower_than_cusparse;
  return s;
}

std::string holdout_title(const std::string& holdout) {
  if (holdout == "main") return "learn from the main set only, predict for the other matrices";
  return "leave one " + holdout + " out";
}

nlohmann::json evaluation_document(const std::vector<EvaluationRow>& rows, const EvaluationOptions& options) {
  auto predictor = [](const PredictorResult& p) {
    nlohmann::json j = {{"variant", p.variant}, {"status", p.status}};
    j["relative"] = p.relative ? nlohmann::json(*p.relative) : nlohmann::json(nullptr);
    return j;
  };
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j = {{"matrix", r.matrix},
                        {"domain", r.domain},
                        {"entry", r.entry},
                        {"precision", r.precision},
                        {"best_variant", r.best_variant},
                        {"best_us", r.best_us},
                        {"model", predictor(r.model)},
                        {"quick", predictor(r.quick)},
                        {"rule_of_thumb", predictor(r.rule)},
                        {"nearest_winner", predictor(r.nearest_winner)},
                        {"expected_relative", r.expected_relative},
                        {"confidence", r.confidence},
                        {"quick_k", r.quick_k},
                        {"quick_seconds", r.quick_seconds},
                        {"full_seconds", r.full_seconds}};
    j["cusparse_us"] = r.cusparse_us ? nlohmann::json(*r.cusparse_us) : nlohmann::json(nullptr);
    list.push_back(j);
  }
  return {{"holdout", options.holdout},
          {"op", to_string(options.op)},
          {"deterministic", options.deterministic},
          {"neighbours", options.neighbours},
          {"rows", list},
          {"summary", evaluation_summary(rows)}};
}

}  // namespace jitsparse
