#pragma once
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/features.hpp"
#include "core/host_matrix.hpp"
#include "core/layout.hpp"
#include "runtime/context.hpp"
#include "generator/search_space.hpp"
#include "runtime/gpu_timer.hpp"
#include "runtime/permuted_matrix.hpp"
#include "runtime/spmv.hpp"
#include "selection/database.hpp"
#include "selection/model.hpp"
#include "selection/quick_plan.hpp"
#include "tuner/stage_variants.hpp"
#include "tuner/tune_options.hpp"

namespace jitsparse {

class GpuCheck;
class L2Flush;

// The search of DESIGN.md: per matrix and precision, stage 1 measures every layout x threads-per-row with
// one default schedule (then other windows of a sorted sell that ranks high); stage 2 measures a coarse
// n_t x n_b x {static, dynamic} grid for the best (layout, threads-per-row) pairs and for the best
// csr-aos-aos pair (the schedule-only baseline), then every schedule near each pair's best; a last stage
// times cached-load and unrolled twins of the fastest; the finalists are re-timed (cold on matrices
// larger than the L2). Every
// variant is verified on the GPU against the CPU reference before it is timed; failures are recorded and
// the search goes on. Results go to the database after each matrix (resumable).
class Tuner {
 public:
  Tuner(Context& ctx, TuningDatabase& db, TuneOptions options);
  ~Tuner();

  // Tunes one matrix in every requested precision. Returns false when the budget ran out. `following`
  // (may be empty) returns the matrix tuned next when it is loaded already, else nullptr: its first
  // precision's stage one is packed on other threads while this matrix's last precision is searched
  // (the pointer must stay valid until it is tuned or the tuner is destroyed; MatrixQueue's do).
  bool tune(const HostMatrix& a, const std::string& domain,
            const std::function<const HostMatrix*()>& following = {});
  // Measures these variants of one matrix per precision (those its records lack), re-times the fastest
  // and saves: the evaluation's check of predictions the staged search never timed. A record that
  // exists keeps its kind of search and completeness, and its key (legacy or not: the evaluation holds the
  // keys it read); a new one is recorded as a quick search. tune() moves legacy-keyed records to the new key.
  void measure_variants(const HostMatrix& a, const std::string& domain,
                        const std::map<Precision, std::vector<Variant>>& variants);
  // Domain winners over everything tuned in this run (geometric mean of the speedup over schedule-only).
  void finish();
  // The tune-result document (tuner/report.hpp renders it).
  nlohmann::json report() const;
  bool out_of_budget() const;
  void set_planned_matrices(int n) { planned_matrices_ = n; }
  // The first stage of the searches to come (these entry types in this order, each requested precision)
  // is compiled on a background thread with half the cores while earlier matrices are tuned, and a
  // search takes its stage one from there (Context::adopt). A search's compile rounds wait for their
  // slowest program and leave cores idle (2026-11-25, H100 host: 605 s of NVRTC over 16 threads, 66 s
  // waited); stage one is the largest round and the same for every matrix of an entry type and
  // precision. The first pair is left to the first search, which needs it at once. Full searches only.
  void compile_ahead(const std::vector<std::string>& entries);

 private:
  struct Job;
  // What every record of a matrix shares, computed once per matrix (hashing a large one takes 0.2 s).
  struct MatrixFacts {
    std::string hash;
    MatrixFeatures features;
    bool sorting_pays = true;  // sorted sell layouts are searched (sorted_sell_pays)
  };
  static MatrixFacts facts_of(const HostMatrix& a);
  // One (matrix, precision): the staged search, or only `given` variants when not null.
  bool run_job(const HostMatrix& a, const MatrixFacts& facts, const std::string& domain, Precision p,
               const std::vector<Variant>* given);
  Prediction quick_prediction(const HostMatrix& a, const MatrixFacts& facts, Precision p, std::string* why) const;
  void pack_layouts(Job& job, const std::vector<Variant>& variants);
  // Packs the stage-one layouts of precision p on the host in the background (one thread), while the
  // precision before it is tuned: pack_layouts of p's first stage takes them instead of packing.
  void prepack(const HostMatrix& a, const MatrixFacts& facts, Precision p);
  struct Prepacked;
  std::vector<std::unique_ptr<Prepacked>> prepacked_;  // by (matrix hash, precision)
  // One layout a stage one packs, of `matrix` (the matrix or its transposed copy).
  struct PackTodo {
    std::string key;  // matrix_key
    Layout layout;
    const HostMatrix* matrix;
  };
  std::vector<PackTodo> stage_one_packs(const HostMatrix& a, const MatrixFacts& facts, Precision p, bool with_transposed);
  static std::map<std::string, std::unique_ptr<PackedMatrix>> pack_in_background(const std::vector<PackTodo>& todo,
                                                                                 Precision p, int threads);
  // The next matrix's facts and stage-one packs (tune's `following`), being made on other threads.
  struct PrepackedFollowing {
    MatrixFacts facts;
    std::map<std::string, std::unique_ptr<PackedMatrix>> packs;
  };
  struct Following {
    const HostMatrix* matrix = nullptr;
    Precision precision = Precision::f64;
    std::future<PrepackedFollowing> packed;  // destroying it waits for the packing
  };
  std::unique_ptr<Following> following_;
  void prepack_following(const HostMatrix& next);
  std::vector<Precision> precisions_of(const EntryType& entry) const;  // the requested ones it supports
  struct CompileAhead;
  std::unique_ptr<CompileAhead> ahead_;
  std::vector<Variant> ahead_stage_one(const EntryType& entry, Precision p) const;
  void wait_for_ahead(const std::string& entry, Precision p);
  nlohmann::json ahead_report() const;  // the background's NVRTC wall time and kernels compiled
  std::vector<Variant> stage_two_variants(const Job& job, const std::vector<Variant>& stage1,
                                          const ScheduleLimits& limits) const;
  // The row variants of stage one whose loaded kernels spill registers, with half the blocks per SM
  // (tuner.cpp says why); run_with_register_twins measures them after the others.
  std::vector<Variant> register_twins(const std::vector<Variant>& stage1);
  void run_with_register_twins(Job& job, std::vector<Variant>& first, const std::vector<Variant>& compile_too = {});
  void choose_winners(Job& job);
  void print_result(const Job& job, bool stopped) const;
  // Compiles the variants (with compile_too, a later stage's likely variants, in the same round: a round
  // waits for its slowest program whatever its size), then checks and times the variants only.
  void run_variants(Job& job, const std::vector<Variant>& variants, const std::vector<Variant>& compile_too = {});
  // Context::prepare, its wait counted as compiling in the job's stage.
  std::vector<std::string> prepare(const Job& job, const std::vector<Variant>& variants);
  void count_compile_wait(const std::string& stage, double seconds);  // compile_seconds_, compile_by_stage_
  void measure(Job& job, const Variant& v);
  float single_launch_ms(const SpmvLaunch& launch, const Variant& v);  // event-timed, synchronised
  // "graph" where a matrix of these compulsory bytes is timed in CUDA graphs (TuneOptions::graph_timing),
  // else "stream"; and a variant's timing the record's way (graph capture failing: on the stream).
  std::string timing_for(double compulsory_bytes) const;
  TimingResult time_variant(const Job& job, const std::function<void()>& launch, const TimingOptions& options);
  void progress_line(const Job& job, bool force = false);
  double elapsed() const;

  Context& ctx_;
  TuningDatabase& db_;
  TuneOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_save_ = std::chrono::steady_clock::now();
  static constexpr double kCheckpointSeconds = 10;
  std::vector<std::pair<std::string, std::string>> tuned_;  // (hash, precision) of this run, op options_.op
  std::string started_iso_;
  int planned_matrices_ = 0;
  int matrices_done_ = 0;
  size_t variants_done_ = 0;
  double measure_seconds_ = 0;  // checking and timing variants
  int verdicts_overturned_ = 0;  // one-launch "hopeless" verdicts a second launch contradicted (measure)
  double pack_seconds_ = 0;     // packing layouts on the host and uploading them
  double compile_seconds_ = 0;  // waiting for NVRTC (wall time; the compile stats sum the threads)
  // The same wait by stage name, with the number of waits (compile rounds): where the tune time goes.
  std::map<std::string, std::pair<double, int>> compile_by_stage_;
  std::map<std::string, double> pack_by_matrix_;  // packing and uploading, by matrix name
  // Where each search's wall time went (tune.json "by_job"): its packing, NVRTC waits and measuring, and
  // what those leave out: the vectors and the CPU reference, choosing the winners (finalists timed again),
  // saving the database. The tune's wall time minus the searches' is reading matrices and the rest.
  struct JobSeconds {
    std::string matrix, precision;
    double wall = 0, packing = 0, compiling = 0, measuring = 0, reference = 0, choosing = 0, saving = 0;
  };
  std::vector<JobSeconds> job_seconds_;
  std::unique_ptr<L2Flush> flush_;   // made on the first matrix larger than the L2 (cold finalists)
  std::unique_ptr<GpuCheck> check_;  // the CPU reference of the matrix tuned last (kept across precisions)
  // The renumbering stage's P A P^T of the matrix tuned last in `ordering` (preferred_ordering; kept across
  // precisions), and whether its columns fit the narrow layouts.
  const PermutedMatrix& renumbered(const HostMatrix& a, const std::string& hash, Ordering ordering);
  std::unique_ptr<PermutedMatrix> renumbered_;
  std::string renumbered_hash_;
  bool renumbered_narrow_ = false;
  // The transposed copies (A^T, and (P A P^T)^T with renumbered) that op t/h's copy kind packs, of the
  // matrix tuned last: made once, not at every stage and precision (each a pass over the matrix).
  const HostMatrix& transposed_copy(const HostMatrix& m, const std::string& hash, bool renumbered);
  std::unique_ptr<HostMatrix> transposed_[2];
  std::string transposed_hash_[2];
  std::string check_hash_;
  Op check_op_ = Op::n;
  bool graph_capture_warned_ = false;
};

// The winner of a domain's records: the variant, in its policy-free form (row kernels without cached loads,
// narrowness and unrolling, which the search picks per matrix), with the best geometric-mean speedup over
// each record's schedule-only baseline among those every record timed in some policy (its fastest
// policy's time counted); empty when none was (or a baseline is missing).
struct DomainChoice {
  std::string winner;
  double geomean_speedup = 0;
};
DomainChoice domain_winner(const std::vector<const MatrixRecord*>& records, bool deterministic);

}  // namespace jitsparse
