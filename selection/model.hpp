#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/features.hpp"
#include "core/op.hpp"
#include "core/precision.hpp"
#include "generator/search_space.hpp"
#include "generator/variant.hpp"
#include "selection/database.hpp"

namespace jitsparse {

// What the selection model knows of a matrix: its features and its compulsory bytes, which say how the
// matrix compares with the GPU's L2 (the tuning database is per GPU, so the GPU enters through that ratio).
struct ModelQuery {
  MatrixFeatures features;
  double compulsory_bytes = 0;
  std::string entry;
  Precision precision = Precision::f64;
  Op op = Op::n;
  bool deterministic = false;  // only variants whose result bits never change
  int components = 1;          // scalars per entry (1 real, 2 complex, 4 quaternion, 9 block3)
};

// The model's coordinates of a matrix: log sizes, the matrix against L2, row-length shape and the locality
// of x, each scaled so that one unit is a difference that changes which kernel wins (names in
// model_feature_names).
constexpr int kModelFeatures = 9;
std::array<double, kModelFeatures> model_features(const MatrixFeatures& f, double compulsory_bytes, long long l2_bytes,
                                                  int components = 1);
const std::array<const char*, kModelFeatures>& model_feature_names();

// One variant the model proposes, with its expected time relative to the best variant of the matrix.
struct Candidate {
  std::string variant;
  double expected_relative = 0;  // geometric mean of (its time / the best) over the neighbours, weighted
  // The same before the launch floors: orders candidates that a small query expects at the same floor.
  double scale_free = 0;
  double spread = 0;             // weighted standard deviation of log(relative time) over the neighbours
  int measured_on = 0;           // neighbours that timed it (the others are estimated from its layout)
  // The narrow twin of a wide candidate, made by the model (neighbours time narrow twins of their own
  // fastest variants only). Quick tuning leaves these to its last round, which times the fastest's twins.
  bool twin = false;
};

struct Prediction {
  std::vector<Candidate> ranked;  // most promising first
  // 0..1: high when the neighbours agree on the first candidate and are close to the query.
  double confidence = 0;
  struct Neighbour {
    std::string name, hash;
    double distance = 0;
    double weight = 0;
  };
  std::vector<Neighbour> neighbours;
  // No tuned matrix of the query's entry type: learnt from other entry types of the same precision and
  // operation, their variants renamed to the query's entry type (layouts and schedules are entry-generic).
  bool transferred = false;
  // > 0 where renumbered twins were made (no neighbour was renumbered, the query may pay): what renumbering
  // gained on the nearest scattered matrices of the nearest entry size, by which the twins are expected faster.
  double renumbering_gain = 0;
  bool empty() const { return ranked.empty(); }
};

// "quaternion.f64/ell-soa-aos/static-256x2-tpr4/t-atomic" -> "ell-soa-aos/4/t-atomic": the (layout,
// threads per row, transpose kind) pair whose schedules the search sweeps together (hola: layout and kind).
std::string variant_pair_key(const std::string& variant);

// The family of a domain: "builtin-dirac" and "train-dirac" are both "dirac" (the built-in and training sets
// keep domains of their own but hold the same families); any other domain is its own family.
std::string family_of_domain(const std::string& domain);
// The domains of the main job's built-in set start with this ("builtin-dirac").
inline constexpr const char* kMainSetDomainPrefix = "builtin-";

// Which records may teach the model: complete full searches of the same entry type (else, transferred,
// of any entry type), precision and operation; exclude_hash / exclude_family leave records out
// (leave-one-out and leave-one-family-out, family_of_domain); learn_only_prefix keeps only the records
// of domains starting with it ("builtin-": what the main job tunes, evaluate --holdout main).
struct TrainingFilter {
  std::string exclude_hash;
  std::string exclude_family;
  std::string learn_only_prefix;
};

// A k-nearest-neighbour ranking over the relative-time profiles of the matrices the tuner measured on this
// GPU: every timed variant of every neighbour counts, not just its winner. A variant a neighbour did not
// time (the staged search pruned it) is estimated from the variant its policy twin was made from (narrow
// ones gaining a share of their bytes), else by the best time of its layout and threads per row there; a
// failed one counts as 4x slower. The candidates are what the query can run as the tuner would time it:
// renumbered (@rcm) ones only where renumbering_may_pay, narrow (-d16) ones only where the columns may fit
// (known, or unknown and not ruled out by their mean distance from the diagonal), and there the narrow
// twins of the first wide candidates too, cached ones only on a matrix that fits in the L2 (and row kernels
// only cached on one of 0.25-0.75x the L2). A query in random order whose neighbours were never renumbered
// gets renumbered twins, expected faster by what renumbering gained on similar scattered matrices. A row
// kernel on a query of fewer rows x threads per row than ~64k threads is expected slower than on its
// larger neighbours (latency no longer hidden), counted from the widest threads per row. A query smaller
// than its neighbours expects each variant at least its launch kind's floor (row kernel, hola, hisparse:
// the fastest the nearest and the smallest records ran it in) over its own best time.
// Construction is free; predict() derives what it needs of each record it reads (its profile, its
// coordinates) once and keeps it for later queries, so one model serves many matrices (load_tuned keeps
// one per database). prepare() derives it for every record ahead of the first query. The database must
// outlive the model and not change under it. Thread-safe: predictions on one model run one at a time.
class SelectionModel {
 public:
  SelectionModel(const TuningDatabase& db, long long l2_bytes, int neighbours = 5);
  ~SelectionModel();
  SelectionModel(const SelectionModel&) = delete;
  SelectionModel& operator=(const SelectionModel&) = delete;
  Prediction predict(const ModelQuery& q, const TrainingFilter& filter = {}) const;
  void prepare(bool deterministic = false) const;

 private:
  struct Cache;
  const TuningDatabase& db_;
  long long l2_bytes_;
  int sm_count_;  // the database's GPU (0 unknown: no rule that needs it)
  int neighbours_;
  std::unique_ptr<Cache> cache_;
};

// The rule of thumb from cuSPARSE's characterisation of SpMV formats (regular rows: ELL, moderately
// irregular ones: the hybrid, here sliced ELL; skewed ones: CSR), with stage one's default schedule, so the
// full search always timed it. A baseline for the model, never used to select.
Variant rule_of_thumb(const MatrixFeatures& f, const std::string& entry, Precision p, Op op, bool deterministic,
                      const ScheduleLimits& limits);

}  // namespace jitsparse
