#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/op.hpp"
#include "generator/search_space.hpp"
#include "selection/database.hpp"
#include "selection/quick_plan.hpp"

namespace jitsparse {

// Leave-one-out over the tuning database: every fully searched matrix is hidden in turn (with its whole
// family for holdout "family") and the selection model predicts for it from the rest. Each predictor's
// variant is then looked up in the hidden matrix's own record: its time over the exhaustive best.
struct EvaluationOptions {
  std::string holdout = "matrix";  // "matrix": leave one matrix out; "family": leave its domain out
  Op op = Op::n;
  bool deterministic = false;
  int neighbours = 5;
  int quick_pairs = 0;     // groups or layout pairs of quick tuning's first round (0: QuickPlan's default)
  QuickPlanKind quick_plan = QuickPlanKind::groups;
  bool quick_grid = true;  // quick tuning's schedule grid rounds
  bool time_quick = true;  // on the GPU, also time what quick tuning's rounds lack (missing())
  long long l2_bytes = 0;  // of the database's GPU
  ScheduleLimits limits;   // of the database's GPU (the rule of thumb's schedule)
};

// One predictor on one matrix. relative: its time over the exhaustive best (>= 1), empty when the
// variant was never timed on the matrix (no GPU to measure it) or failed there (then status says so).
struct PredictorResult {
  std::string variant;  // quick tuning: the fastest of its candidates
  std::optional<double> relative;
  std::string status = "ok";  // "ok", "not timed", or the failure recorded for the variant
};

struct EvaluationRow {
  std::string matrix, hash, domain, entry, precision;
  std::string best_variant;
  double best_us = 0;
  PredictorResult model, quick, rule, nearest_winner;  // nearest_winner: the old selection, for reference
  double expected_relative = 0, confidence = 0;          // the model's own estimate for its first choice
  int quick_k = 0;
  double quick_seconds = 0, full_seconds = 0;  // measuring cost on the GPU (sum of the records' seconds)
  std::optional<double> cusparse_us;           // the best cuSPARSE form, when measured
};

// The variants each predictor wants timed on a record that the record lacks (none for a record it holds).
struct MissingTimes {
  std::string hash, name, domain, precision;  // the record (by value: measuring may move records in memory)
  std::vector<std::string> variants;
};

class Evaluation {
 public:
  // Predicts for every complete full-search record of the operation (from the database as it is now).
  Evaluation(const TuningDatabase& db, EvaluationOptions options);
  // What is missing (to be measured by the caller, e.g. with Tuner::measure_variants); with `hash`, of
  // that matrix only (the caller measures matrix by matrix, round by round: each asks again).
  std::vector<MissingTimes> missing(const TuningDatabase& db, const std::string& hash = "") const;
  // Scores the predictions against the records in db (after the caller measured what was missing).
  std::vector<EvaluationRow> rows(const TuningDatabase& db) const;

 private:
  struct Planned {
    std::string hash, precision, name;
    std::string model, rule, nearest_winner;
    Prediction quick;  // the model's ranking, which quick tuning's two rounds walk
    double expected = 0, confidence = 0, full_seconds = 0;
  };
  EvaluationOptions options_;
  QuickPlan plan_;
  std::vector<Planned> planned_;
};

// Share of rows within a factor (1.10, 1.03) of the best, per predictor, and the geometric means: the
// summary `jitsparse evaluate` prints and the JSON document holds.
nlohmann::json evaluation_summary(const std::vector<EvaluationRow>& rows);
// "leave one matrix out", "leave one family out", "learn from the main set only": a holdout's title.
std::string holdout_title(const std::string& holdout);
nlohmann::json evaluation_document(const std::vector<EvaluationRow>& rows, const EvaluationOptions& options);

}  // namespace jitsparse
