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

namespace jitsparse {

class GpuCheck;
class L2Flush;

struct TuneOptions {
  std::string mode = "joint";  // "joint": layouts and schedules; "schedule": schedules on csr-aos-aos only
  std::vector<Precision> precisions = {Precision::f32, Precision::f64};
  double budget_seconds = 0;           // 0: no limit; else stop cleanly with the best found so far
  bool remeasure = false;              // ignore measurements already in the database
  int64_t memory_cap_bytes = 0;        // a layout packing larger than this is skipped; 0: a quarter of GPU memory
  std::vector<int> threads_per_row = {1, 2, 4, 8, 16, 32};
  std::vector<int> entries_per_thread = {2, 4, 8};  // hola schedules of stage one
  // HiSparse layouts of stage one (each is a tree to build on the host). The first is timed in several
  // setups, the others in its fastest. d 64 first: in the same setups it was 1.1-2.2x faster than d 32 on
  // the large set and held the fastest setup on the small set (H100, 2026-11-25); d 256 leaves too few
  // strips for every SM on the small matrices. Then d 256, which the large real grids ran 1.2-2.5x faster
  // than d 64 and complex ones 1.0-1.04x, where d 32 was never the fastest (1.15-1.5x slower than d 64;
  // H100, thirty-second session); d 64 with COO4 leaves; last, d 64 with CSR leaves (the smallest pool;
  // 3x3 blocks ran it 0.53-0.80x the time of COO leaves, real and complex grids 1.1-1.4x: H100,
  // thirty-first session).
  std::vector<std::string> hisparse_layouts = {"hisparse64c2-aos-aos", "hisparse256c2-aos-aos", "hisparse64c4-aos-aos",
                                               "hisparse64c2r-aos-aos"};
  Op op = Op::n;                       // the product tuned: A x, A^T x or A^H x (a record per op)
  bool deterministic = false;          // only variants whose result bits never change (no float atomics)
  int top_layouts = 2;                 // (layout, threads per row) pairs whose n_t x n_b grid is measured (coarse, refined)
  // Quick timing while searching, and in quick tuning's rounds. Samples of 0.1 ms there halved quick
  // tuning's GPU time on the H100 but ranked worse (NOTES.md, eleventh session).
  TimingOptions search_timing{1, 3, 0.3, 100000};
  // A matrix whose compulsory bytes fit in the L2 is timed in CUDA graphs of graph_calls launches
  // (MatrixRecord::timing "graph"): its kernels run shorter than the host takes to launch one, so launches
  // back to back time the host's launch rate, not the kernel. On the H100 (2026-11-25: 40 variants of four
  // 1-2 us matrices, timed three times) back-to-back times ranked the variants alike from one run to the
  // next with a rank correlation of -0.1 to 0.64 and the best of one run was up to 1.67x the best of
  // another; in graphs 0.99-1.00 and at most 1.003x. False: every matrix on the stream.
  bool graph_timing = true;
  int graph_calls = 64;
  // Each graph about as long as a sample (time_in_graph's graph_ms): a kernel of 10-40 us (matrices of
  // 20-50 MB, in the L2) runs in graphs of 8-30 calls, not 64. False: always graph_calls.
  bool graph_fits_sample = true;
  TimingOptions final_timing{3, 9, 3.0, 100000};   // the reported numbers of the winners
  // Quick tuning's finalists: 9 samples of 0.3 ms, a tenth of final_timing's GPU time; a quick tune is
  // meant to cost milliseconds.
  TimingOptions quick_final_timing{1, 9, 0.3, 100000};
  double quick_warmup_ms = kQuickWarmupMs;  // untimed launches before quick tuning re-times its finalists
  // A matrix whose compulsory bytes exceed the L2: the finalists (kColdCandidates fastest warm, and the
  // three fastest csr-aos-aos and deterministic ones) are also timed with the L2 flushed before each
  // launch (cold_timing, one launch per sample) and the winners are chosen on that.
  bool cold_finalists = true;
  TimingOptions cold_timing{1, 15, 0, 1};
  double variant_time_limit_ms = 500;  // a single launch slower than this is recorded as "timeout"
  bool progress = true;                // progress line with ETA on stderr (when it is a terminal)
  bool verbose = false;                // a line per matrix even without a terminal
  // Quick tuning: a matrix the database does not hold gets only the selection model's candidates measured
  // in rounds (selection/quick_plan.hpp; quick_k: the groups or layout pairs of round one, 0: the
  // plan's default), recorded as search "quick".
  bool quick = false;
  int quick_k = 0;
  QuickPlanKind quick_plan = QuickPlanKind::groups;
};

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

// The load policy stage one gives the row layouts (csr, ell, sell). A matrix whose compulsory bytes fit
// in the L2 stays there between products, and evict-first loads (the default) throw it out each time: on
// the H100 (2026-11-25 training database, matrices of 0.1-1x the L2) ELL ran 1.8-3.4x faster with cached
// loads and CSR with threads per row 1.1x, so stage one ranked the pairs by a policy they would not run
// with, and the search missed winners by up to 1.35x that quick tuning found (cached loads won on 55 of
// 72 such records, on none of 33 above the L2). There stage one times cached loads and, where every
// column fits 16 bits, the narrow form (ELL 14 -> 9 us, CSR 11.6 -> 10.7 on a 37 MB real Laplacian in
// L2); the policy stage flips both back for the fastest pairs.
struct StageOnePolicy {
  bool cached = false;  // Schedule::cached_matrix
  bool narrow = false;  // Layout::narrow, for csr, ell and sell (csr-aos-aos stays wide too: the baseline)
};
StageOnePolicy stage_one_policy(double compulsory_bytes, long long l2_bytes, bool narrow_fits);  // stays_in_l2
// Stage-1 and grid variants for one entry/precision (exposed for tests). Stage one: every layout x
// threads-per-row at one schedule (hola layouts: a few entries per thread), for op t/h in each kind
// (copy only with options.deterministic), with what the entry type cannot run left out; the row layouts
// with `policy` (not in --mode schedule, whose csr-aos-aos is the plain baseline).
std::vector<Variant> stage_one_variants(const EntryType& entry, Precision p, const TuneOptions& options,
                                        const ScheduleLimits& limits, StageOnePolicy policy = {});
// The grids make schedules without a load policy: these keep seed's (cached loads, unrolling) on the row
// kernels, each schedule once.
std::vector<Variant> keeping_policy(const std::vector<Variant>& vs, const Variant& seed);
// Op t/h: the atomic kind's stage one is pruned by the copy kind's measurements in `measured`: per row
// layout the atomic twins of the per_layout threads-per-row the copy kind ran fastest, per hola layout of
// its fastest entries-per-thread, and only for layouts whose fastest copy variant is within `keep` of the
// copy kind's best over all layouts. A layout the copy kind has no measurement of keeps all its variants.
// Why so few: the atomic kind reads the entries the copy kind reads and adds atomics to y. On the H100
// (2026-11-25, main set, op t and op h: 52 searches) no atomic variant won; where one was the fastest of
// its layout it ran 1.56-4.99x the winner; and the atomic stage cost 10 s of NVRTC of a 124 s tune,
// besides packing the matrix's own layouts. So (twenty-sixth session, op h tunes over 2 minutes) the
// atomic kind is timed at the copy kind's fastest threads per row of the layouts within 10% of the
// copy kind's best: the database still holds both kinds, for the layouts that can matter. Main-set op h,
// cold: 11% fewer kernels (6,586 -> 5,876), 108.3 s -> 97.9 s as the first tune of a host (calls G, H);
// on one host the same 26 winners within 1.5% (geomean 0.998).
constexpr int kAtomicPerLayout = 1;
constexpr double kAtomicKeep = 1.1;
std::vector<Variant> atomic_stage_one(const std::vector<Variant>& atomic, const MatrixRecord& measured, int per_layout,
                                      double keep);
// Other windows of the fastest sorted sell pair of stage one, at its schedule, when that pair ranks
// among the `top` fastest pairs: sigma 64, 1024 and 8192 (past the first window that holds all rows,
// larger ones sort the same and are left out).
std::vector<Variant> sorted_window_variants(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            int32_t rows, int top);
// After the windows: where one of them beat the window stage one used, that window for the other sorted
// sell variants of stage one on the same slice within kWindowSiblingKeep of the pair the windows came from
// (the padding a window saves is the same for every vector layout and threads per row; which of those is
// fastest is not: the scanned Dirac's f32 winner is sell32s64 with aos x and one thread per row, while the
// windows were tried on the aos-soa pair 1.7% ahead of it at stage one). At most kWindowSiblings, fastest
// first; those measured already are left out.
std::vector<Variant> sorted_window_siblings(const MatrixRecord& measured, const std::vector<Variant>& stage1,
                                            const std::vector<Variant>& windows);
// The load-policy and unroll stage: twins of the fastest row-family variant of each of the `n` fastest
// (layout, threads-per-row) pairs measured so far (those not timed yet): with the other matrix load
// policy (Schedule::cached_matrix) and, with `unroll`, with 2, 4 and 8 loop iterations unrolled
// (Schedule::unroll; the tuner asks for them on matrices over half the L2, where loads in flight bound
// the speed), unrolled ones cached only where the matrix fits in the L2 (`in_l2`: above it cached loads
// never won); and with `narrow` (every |column - row| fits 16 bits) each of these and the variant itself
// in the other form of its csr, ell or sell layout (Layout::narrow: 2 bytes of column index per entry
// instead of 4).
std::vector<Variant> policy_twins(const MatrixRecord& measured, int n, bool unroll, bool narrow, bool in_l2 = false);
// The renumbering stage: on a square matrix whose own order scatters its columns (renumbering_may_pay),
// the fastest variants of the search run again on its reverse Cuthill-McKee renumbering P A P^T, x and y
// moved through the permutation inside each timed launch (Variant::ordering). ordering_twins: the
// fastest variant of each of the `n` fastest outer layouts (Layout::outer_name: csr, ell, sell32,
// sell32s256, hola, hisparse64c2...) and of the fastest hisparse layout wherever it ranks, renumbered,
// and with `narrow` (the renumbered columns fit 16 bits) the narrow form of each csr, ell or sell one;
// those `measured` lacks.
constexpr int kOrderingLayouts = 4;
std::vector<Variant> ordering_twins(const MatrixRecord& measured, int n, Ordering ordering, bool narrow);
// A renumbered hisparse variant in the other setups of stage one, without small leaves one per lane (and
// in the batched-leaves setup), those `measured` lacks (for the first hisparse layout, the one these twins nearly always come from on a
// scattered matrix, stage one compiled them: timing only). Its stage-one setup was chosen on the tree of
// the matrix's own order; on the renumbered tree of dirac_irregular and helmholtz_irregular 128x8-g32 ran
// 1.21-1.33x faster than the small-leaves setup the search kept (H100, thirty-second session).
// Only setups whose shared memory the entry fits (d 256 of quaternion f64 needs groups of 32).
std::vector<Variant> hisparse_setup_twins(const MatrixRecord& measured, const Variant& renumbered, const EntryType& entry,
                                          const ScheduleLimits& limits);
// Stage one times the hisparse layouts past the first only where the first came within kHisparseKeep of
// its best (in the first's fastest setup); a layout of wide nodes (d of kWideHisparseD or more) also on a
// matrix with at least kWideStripsPerSm strips of d rows of y per SM, whatever the first's time, in setups
// of its own (kWideHisparseSetups, compiled last by compile_ahead; only there). On the H100 (thirty-third session, call A, same run,
// 128x8-g32) d 256 ran 1.2-2.6x faster than d 64 on the real and complex matrices of 540k rows and more
// (laplacian_large f32 45.6 against 73.7 us, helmholtz_large f32 50.4 against 62.0, laplacian_irregular
// f32 37.8 against 96.5), where d 64 was 1.35-2.1x off the winner and so pruned; on the matrices below
// 300k rows it ran 1.7-2.2x slower (too few strips for every SM), and dirac_large (524k rows, 15.5
// strips per SM) was even in f32.
constexpr int kWideHisparseD = 256;
constexpr int kWideStripsPerSm = 16;
bool wide_hisparse_pays(const Layout& l, int64_t y_rows, int sm_count);
// What compile_ahead compiles last: the wide hisparse layouts of options.hisparse_layouts (past the first)
// in kWideHisparseSetups for each (entry type, precision), as compiled (Variant::compiled_variant, the key
// of Context::adopt), each once.
std::vector<Variant> wide_hisparse_kernels(const std::vector<std::pair<std::string, Precision>>& batches,
                                           const TuneOptions& options, const ScheduleLimits& limits);
// The n fastest renumbered variants `measured` holds, each in its other RenumberedY form (y written through
// the permutation by the product, or moved back by a kernel of its own), those it lacks.
constexpr int kYFormTwins = 2;
std::vector<Variant> y_form_twins(const MatrixRecord& measured, int n);
// The last stage: the n fastest static row-kernel variants `measured` holds, each with the even grid
// (Schedule::even_grid), where that launches fewer blocks than its plain form on a matrix of `rows` x
// `cols` (a transposed copy's kernel runs over cols rows) and `measured` lacks it. Same kernels: timing
// only.
constexpr int kEvenGridTwins = 3;
std::vector<Variant> even_grid_twins(const MatrixRecord& measured, int n, int64_t rows, int64_t cols, int sm_count);
// renumbering_may_pay (core/features.hpp) says which matrices get the renumbering stage.
// The winner of a domain's records: the variant, in its policy-free form (row kernels without cached loads,
// narrowness and unrolling, which the search picks per matrix), with the best geometric-mean speedup over
// each record's schedule-only baseline among those every record timed in some policy (its fastest
// policy's time counted); empty when none was (or a baseline is missing).
struct DomainChoice {
  std::string winner;
  double geomean_speedup = 0;
};
DomainChoice domain_winner(const std::vector<const MatrixRecord*>& records, bool deterministic);
// Stage two in two steps, for the row family (hola and hisparse seeds get their whole grid_variants):
// the coarse grid of seed's pair is n_t {64, 256, 1024} x n_b {as many as fit, half that} x {static,
// dynamic} and the seed itself (at most 13 schedules); the refined grid around a pair's best is every
// n_t and n_b within a factor of two of it in the same kind, and the other kind at its n_t and n_b; for a
// hisparse best (whose grid is whole), its twins with the other chunk counts per thread (unroll 1-8).
std::vector<Variant> coarse_grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits);
std::vector<Variant> refined_grid_variants(const Variant& best, const ScheduleLimits& limits);
// The refined grids around the best of each (layout, tpr, kind) pair that `coarse` holds, less what
// `measured` timed already.
std::vector<Variant> refined_stage_two(const MatrixRecord& measured, const std::vector<Variant>& coarse,
                                       const ScheduleLimits& limits);
// The schedule grid of seed's layout, threads per row, op and kind: every n_t x n_b x {static, dynamic};
// for hola every n_t x entries per thread that fits in shared memory.
std::vector<Variant> grid_variants(const EntryType& entry, const Variant& seed, const ScheduleLimits& limits);

}  // namespace jitsparse
