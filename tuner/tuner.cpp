#include "tuner/tuner.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <future>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <unistd.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

#include "core/error.hpp"
#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "core/yardstick.hpp"
#include "generator/nvrtc_workers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/cuda_stream.hpp"
#include "runtime/l2_flush.hpp"
#include "runtime/spmv.hpp"
#include "selection/model.hpp"
#include "selection/quick_plan.hpp"
#include "tuner/gpu_check.hpp"
#include "tuner/quick_tune.hpp"
#include "tuner/stage_variants.hpp"

namespace jitsparse {
namespace {

// For a thread that compiles or packs while the tuner's thread launches and times kernels (a 4 us kernel
// is timed back to back, so a late launch shows): below it. The nice value is per thread on Linux, and NVRTC's pool
// threads inherit it.
void below_search_priority() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
#endif
}

// Threads for NVRTC: in worker processes all cores (at a lower priority), in threads half (NVRTC's
// throughput saturates at about 4 threads, generator/nvrtc_workers.hpp).
int background_compile_threads() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return nvrtc_workers_enabled() ? cores : std::max(1, cores / 2);
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string format_seconds(double s) {
  char buf[32];
  if (s >= 60)
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

constexpr int kPolicyTwins = 3;  // variants whose load-policy and unroll twins are measured
// The renumbering stage searches the schedules of its best variant if that is within this of the best.
constexpr double kRenumberedKeep = 1.15;
// HiSparse layouts past the first run (in the first's fastest setup) only where the first is within this
// factor of stage one's best, i.e. where one of them could win. H100, 2026-11-25, main set, cold tune with
// 2.0 here: the later layouts ran in 14 of 26 searches and were at most 1.12x faster than the first
// (hisparse64c4 on elasticity_large f32; hisparse32c2 never faster), while hisparse stayed 1.5-23x slower
// than the winners; their trees cost about 10 s of packing and their kernels 18 s of NVRTC waits.
// (A wide layout on a large matrix runs whatever the first's time: wide_hisparse_pays.)
constexpr double kHisparseKeep = 1.25;
// A layout that packs to more than kPaddedPrune x the compulsory bytes (padding of skewed rows, a
// hisparse tree of one-entry leaves) and more than kPaddedPruneMinBytes is not packed: reading 4x the
// bytes cannot win, and packing and uploading gigabytes of padding took a tenth of the tune time (the
// R-MAT graph: sell32 15x, sell16 9x, sorted sell 8x, 6-25x slower than the winner; H100 2026-11-24).
constexpr double kPaddedPrune = 4.0;
constexpr int64_t kPaddedPruneMinBytes = 16 << 20;
// Why a layout of `need` bytes is not packed for a record of `compulsory` bytes, or "" (pack_layouts and
// prepack; the evaluation's named variants are not pruned).
std::string pack_skip_reason(int64_t need, double compulsory, int64_t memory_cap, bool evaluation) {
  if (need > memory_cap)
    return "skipped: the layout needs " + std::to_string(need) + " bytes, over the memory cap of " +
           std::to_string(memory_cap);
  if (!evaluation && need > kPaddedPrune * compulsory && need > kPaddedPruneMinBytes) {
    char why[200];
    std::snprintf(why, sizeof why, "skipped: pruned (the layout holds %.1fx the matrix's compulsory bytes)",
                  static_cast<double>(need) / compulsory);
    return why;
  }
  return "";
}
// Tuner::prepack holds the next precision's stage-one packs in host memory only up to this much, and
// never more than an eighth of the host's memory.
constexpr int64_t kPrepackMaxBytes = int64_t{4} << 30;
int64_t prepack_limit_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;  // unknown: do not hold extra packs
  return std::min<int64_t>(kPrepackMaxBytes, static_cast<int64_t>(pages) * page / 8);
}

// Which packed matrix a variant runs on: its layout, of the matrix or of its transposed copy.
// The vector layout is left out: both vector layouts run on the same packed arrays (packed once).
std::string matrix_key(const Variant& v) {
  Layout l = v.layout;
  l.vector = VectorLayout::aos;
  return l.name() + (v.uses_transposed_copy() ? " (transposed copy)" : "") + ordering_suffix(v.ordering);
}

}  // namespace


// Everything one (matrix, precision) search holds: the packed layouts, vectors, the checker, the record.
struct Tuner::Job {
  const HostMatrix* a = nullptr;
  Precision precision = Precision::f64;
  MatrixRecord record;
  std::map<std::string, std::unique_ptr<DeviceMatrix>> packed;   // by matrix_key
  std::map<std::string, std::string> layout_skip;                // matrix_key -> why it is not packed
  std::unique_ptr<DeviceVector> x[2], y[2];                      // by VectorLayout
  std::unique_ptr<GpuCheck> check;
  std::string stage;
  size_t stage_done = 0, stage_total = 0;
  size_t planned = 0;
  // The full search records a variant far slower than the best after one launch; a short list (quick
  // tuning, the evaluation's checks) times each one properly: a single launch of a tiny kernel can hiccup.
  bool one_launch_verdict = true;
  bool quick = false;  // quick tuning: its finalists are re-timed with TuneOptions::quick_final_timing
  // measure_variants (jitsparse evaluate): what it measures is marked as such, and the search's own
  // measurements are left as they were (re-timing them would change what the model learns from).
  bool evaluation = false;
  const PermutedMatrix* renumbered = nullptr;  // the renumbering stage's P A P^T (Tuner::renumbered)
  // Not measured yet and its layout packed (or not tried): a stage compiles it.
  bool to_compile(const Variant& v) const { return !record.find(v.name()) && !layout_skip.count(matrix_key(v)); }
};

// The future of std::async: destroying it waits for the packing to finish.
struct Tuner::Prepacked {
  std::string hash;
  Precision precision = Precision::f64;
  std::future<std::map<std::string, std::unique_ptr<PackedMatrix>>> packs;  // by matrix_key
};

Tuner::Tuner(Context& ctx, TuningDatabase& db, TuneOptions options)
    : ctx_(ctx), db_(db), options_(std::move(options)), start_(std::chrono::steady_clock::now()),
      started_iso_(now_iso()) {
  if (options_.mode != "joint" && options_.mode != "schedule")
    throw InvalidArgument("tuning mode '" + options_.mode + "' (expected joint or schedule)");
  if (options_.memory_cap_bytes <= 0) options_.memory_cap_bytes = ctx.device().global_memory / 4;
  options_.progress = options_.progress && ::isatty(STDERR_FILENO);
}

// compile_ahead's batches, one per (entry type, precision) in the order the searches come, compiled in
// turn by one worker; each batch's future is ready once its programs are adopted by the context.
struct Tuner::CompileAhead {
  std::vector<std::pair<std::string, Precision>> batches;
  std::vector<std::promise<void>> adopted;
  std::vector<std::shared_future<void>> ready;
  // Per batch (kPending ... kDone). A search that comes before the worker did claims its batch: it
  // compiles its own stage one, the one load policy it needs of the three a batch holds, and the worker
  // compiles the batch after all the others (for the entry type's later matrices, whose policy may differ).
  static constexpr int kPending = 0, kCompiling = 1, kClaimed = 2, kDone = 3;
  std::unique_ptr<std::atomic<int>[]> state;
  std::atomic<bool> stop{false};
  std::atomic<double> seconds{0};      // the worker's wall time in NVRTC
  std::atomic<size_t> kernels{0};      // kernels it compiled (not found in the cubin cache)
  std::future<void> worker;
};

Tuner::~Tuner() {
  if (ahead_ && ahead_->worker.valid()) {
    ahead_->stop = true;  // stops after the batch it is compiling
    ahead_->worker.wait();
  }
}

std::vector<Variant> Tuner::ahead_stage_one(const EntryType& entry, Precision p) const {
  // What run_job's stage one compiles: the atomic kind waits for the copy kind's ranking, hisparse
  // layouts past the first for the first's time (both rarely run), so neither is compiled ahead; the first
  // hisparse layout's big-strip twins share their kernels (Variant::compiled_variant), so once each.
  // The matrices are not read yet, so each stage-one policy a matrix may get (stage_one_policy): large
  // (streaming, wide), in L2 (cached; narrow where its columns fit).
  std::vector<Variant> out;
  for (const StageOnePolicy policy : {StageOnePolicy{false, false}, StageOnePolicy{true, true}, StageOnePolicy{true, false}})
    for (const auto& v : stage_one_variants(entry, p, options_, schedule_limits(ctx_.device()), policy))
      if (!waits_for_copy_kind(v, options_) && !waits_for_first_hisparse(v, options_)) {
        const Variant k = v.compiled_variant();
        if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
      }
  return out;
}

void Tuner::compile_ahead(const std::vector<std::string>& entries) {
  if (options_.quick || ahead_) return;
  auto ahead = std::make_unique<CompileAhead>();
  for (const auto& name : entries) {
    if (!EntryRegistry::instance().contains(name)) continue;
    const EntryType& entry = EntryRegistry::instance().get(name);
    if (options_.op == Op::h && !entry.has_adjoint) continue;
    for (Precision p : options_.precisions)
      if (entry.supports(to_string(p))) ahead->batches.emplace_back(name, p);
  }
  if (ahead->batches.size() < 2) return;
  ahead->adopted.resize(ahead->batches.size());
  for (auto& a : ahead->adopted) ahead->ready.push_back(a.get_future().share());
  ahead->state = std::make_unique<std::atomic<int>[]>(ahead->batches.size());
  for (size_t i = 0; i < ahead->batches.size(); ++i) ahead->state[i] = i == 0 ? CompileAhead::kDone : CompileAhead::kPending;
  ahead->adopted.front().set_value();  // the first search compiles its own stage one
  // In worker processes all cores (at this thread's lower priority, below the search's own compiles):
  // when the search waits for a batch compiled ahead, nothing else runs (H100 host, 2026-11-25: 8 workers
  // ahead left 16 s of waiting in a 109 s tune).
  const int threads = background_compile_threads();
  CompileAhead* state = ahead.get();
  ahead->worker = std::async(std::launch::async, [this, state, threads] {
    below_search_priority();
    // Stage one only, not the register twins of its spilling kernels (run_with_register_twins): this thread
    // compiles stage one for every load policy a matrix may get, so their twins would triple that work, and
    // the searches then waited for the next batch as long as they had waited for the twins (H100,
    // twenty-third session, twins read from the cubins: op n 8.5 + 0.6 s against 1.6 + 6.8 s of waits, op t
    // 13.1 + 2.8 against 2.4 + 7.9).
    auto compile = [&](size_t i) {
      try {
        const EntryType& entry = EntryRegistry::instance().get(state->batches[i].first);
        const auto t0 = std::chrono::steady_clock::now();
        const auto outcomes = ctx_.builder().build_all(ahead_stage_one(entry, state->batches[i].second), threads);
        state->seconds = state->seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::set<const CompiledKernel*> programs;
        for (const auto& o : outcomes)
          if (o.ok && !o.program->from_cache && programs.insert(o.program.get()).second)
            state->kernels += o.program->variant_names.size();
        ctx_.adopt(outcomes);
      } catch (const std::exception&) {
        // nothing adopted: the search compiles (and reports) what it needs itself
      }
      state->state[i] = CompileAhead::kDone;
      state->adopted[i].set_value();
    };
    // The batches in the order the searches come, then those a search claimed before the worker got to them.
    for (int from : {CompileAhead::kPending, CompileAhead::kClaimed})
      for (size_t i = 1; i < state->batches.size() && !state->stop; ++i) {
        int expected = from;
        if (state->state[i].compare_exchange_strong(expected, CompileAhead::kCompiling)) compile(i);
      }
    for (size_t i = 1; i < state->batches.size(); ++i)  // stopped: nobody waits for the rest
      if (state->state[i].exchange(CompileAhead::kDone) != CompileAhead::kDone) state->adopted[i].set_value();
    // Last, the wide hisparse layouts in their own setups, for every batch: they run only on large matrices
    // (wide_hisparse_pays), which no stage one's compile knows of. H100, thirty-fourth session: compiled by
    // the searches, the main job waited 8.5 s for its hisparse layouts (14 rounds) instead of 5.2 (8).
    if (!state->stop) try {
        const std::vector<Variant> wide = wide_hisparse_kernels(state->batches, options_, schedule_limits(ctx_.device()));
        // a round of `threads` kernels at a time, so a tune that ends first waits for one round at most
        const size_t round = static_cast<size_t>(std::max(1, threads));
        for (size_t i = 0; i < wide.size() && !state->stop; i += round) {
          const std::vector<Variant> some(wide.begin() + i, wide.begin() + std::min(wide.size(), i + round));
          const auto t0 = std::chrono::steady_clock::now();
          const auto outcomes = ctx_.builder().build_all(some, threads);
          state->seconds = state->seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          state->kernels += std::count_if(outcomes.begin(), outcomes.end(),
                                          [](const auto& o) { return o.ok && o.program && !o.program->from_cache; });
          ctx_.adopt(outcomes);
        }
      } catch (const std::exception&) {
        // nothing adopted: the searches compile what they need themselves
      }
  });
  ahead_ = std::move(ahead);
}

nlohmann::json Tuner::ahead_report() const {
  return {{"seconds", ahead_->seconds.load()}, {"kernels", ahead_->kernels.load()}};
}

void Tuner::wait_for_ahead(const std::string& entry, Precision p) {
  if (!ahead_) return;
  for (size_t i = 0; i < ahead_->batches.size(); ++i)
    if (ahead_->batches[i].first == entry && ahead_->batches[i].second == p) {
      // Not started yet: the worker is still on earlier batches, and this one holds every load policy a
      // matrix may get. The search compiles its own stage one (one policy, at its priority) instead of
      // waiting for all of that (H100, call D: searches of the 12 MB matrices waited 1-5 s each here).
      int expected = CompileAhead::kPending;
      if (ahead_->state[i].compare_exchange_strong(expected, CompileAhead::kClaimed) ||
          expected == CompileAhead::kClaimed)
        return;
      const auto t0 = std::chrono::steady_clock::now();
      ahead_->ready[i].wait();
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (waited > 1e-3) count_compile_wait("stage one, compiled ahead", waited);  // NVRTC, on the other thread
      return;
    }
}

double Tuner::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Tuner::out_of_budget() const { return options_.budget_seconds > 0 && elapsed() >= options_.budget_seconds; }

void Tuner::progress_line(const Job& job, bool force) {
  if (!options_.progress && !force) return;
  const auto* best = job.record.best();
  const double per_variant = variants_done_ ? measure_seconds_ / variants_done_ : 0.01;
  const size_t left_here = job.planned > job.record.measurements.size() ? job.planned - job.record.measurements.size() : 0;
  const int left_matrices = std::max(0, planned_matrices_ * static_cast<int>(options_.precisions.size()) - matrices_done_ - 1);
  const double eta = per_variant * (left_here + static_cast<double>(left_matrices) * job.planned);
  char line[512];
  std::snprintf(line, sizeof line, "[%d/%d] %s %s: %s %zu/%zu, best %s%s, elapsed %s, ETA %s",
                matrices_done_ + 1, planned_matrices_ * static_cast<int>(options_.precisions.size()),
                job.a->name.c_str(), to_string(job.precision).c_str(), job.stage.c_str(), job.stage_done,
                job.stage_total, best ? (std::to_string(static_cast<int>(best->gbps)) + " GB/s ").c_str() : "-",
                best ? best->variant.c_str() : "", format_seconds(elapsed()).c_str(), format_seconds(eta).c_str());
  if (options_.progress)
    std::cerr << "\r\033[K" << line << std::flush;
  else
    std::cerr << line << "\n";
}

// The shortest single launch that may decide a variant is hopeless without timing it. Twice 50-65 us on
// launches of about 10 us was seen on the H100 while the background thread loaded modules (dirac_small
// f64 hola at 57-64 us recorded; 12.6 us timed back to back, 15.8 us as a single cold launch; 44 of a main-set
// tune's 365 verdicts fell between 50 and 100 us, twenty-seventh session): timing a variant takes about
// 1.5 ms (search_timing), so below this one times them all.
constexpr float kHopelessLaunchMs = 0.2f;

void Tuner::measure(Job& job, const Variant& v) {
  MeasurementRecord m;
  m.variant = v.name();
  if (job.evaluation) m.origin = "evaluation";
  const std::string lname = matrix_key(v);
  if (auto skip = job.layout_skip.find(lname); skip != job.layout_skip.end()) {
    m.status = skip->second;
    job.record.upsert(m);
    return;
  }
  const DeviceMatrix& da = *job.packed.at(lname);
  m.bytes = da.bytes();
  const int vl = v.layout.vector == VectorLayout::aos ? 0 : 1;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    SpmvLaunch launch(ctx_, v, da, *job.x[vl], *job.y[vl]);
    launch.launch();  // the first launch of a module also loads it: keep that out of the timed one
    // Correctness first, on a poisoned y; the same launch tells whether the variant is hopeless.
    job.y[vl]->poison();
    float first_ms = single_launch_ms(launch, v);
    const std::string wrong = job.check->check(*job.y[vl]);
    if (!wrong.empty()) {
      m.status = "wrong: " + wrong;
    } else if (first_ms > options_.variant_time_limit_ms) {
      m.status = "timeout: one launch took " + std::to_string(first_ms) + " ms";
    } else {
      const auto* best = job.record.best();
      auto hopeless = [&](float ms) { return best && ms * 1e3 > 4.0 * best->median_us && ms > kHopelessLaunchMs; };
      // A single launch timed by events also times the host whenever it submits the launch late (its
      // thread descheduled, the driver busy loading another thread's module): the GPU stamps the first
      // event and idles. Such launches read 4-40x slow on the H100 (a 1.5 us kernel at 65 us), a verdict
      // the model then learnt from. The faster of two launches decides, and only above kHopelessLaunchMs.
      if (job.one_launch_verdict && hopeless(first_ms)) {
        const float second_ms = single_launch_ms(launch, v);
        if (!hopeless(second_ms)) ++verdicts_overturned_;
        first_ms = std::min(first_ms, second_ms);
      }
      if (job.one_launch_verdict && hopeless(first_ms)) {
        // Far slower than the best already found, twice: evidence enough.
        m.median_us = first_ms * 1e3;
        m.samples_us = {m.median_us};
        m.reps_per_sample = 1;
      } else {
        const TimingResult t = time_variant(job, [&] { launch.launch(); }, options_.search_timing);
        m.median_us = t.median_us;
        m.samples_us = t.samples_us;
        m.reps_per_sample = t.reps_per_sample;
      }
      m.status = "ok";
      m.gbps = effective_gbps(job.record.compulsory_bytes, m.median_us);
    }
  } catch (const DeviceError& e) {
    // A fault in a kernel poisons the whole CUDA context: nothing after it can run in this process.
    const cudaError_t sticky = cudaDeviceSynchronize();
    m.status = std::string("error: ") + e.what();
    job.record.upsert(m);
    if (sticky != cudaSuccess) {
      db_.upsert(job.record);
      db_.save();
      throw DeviceError("the GPU context was lost while running " + v.name() + " (" + e.what() +
                        "); everything measured so far is saved in " + db_.path() +
                        ": run the same command again to resume without this variant");
    }
    return;
  } catch (const Error& e) {
    m.status = std::string("error: ") + e.what();
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  measure_seconds_ += m.seconds;
  ++variants_done_;
  job.record.upsert(m);
}

float Tuner::single_launch_ms(const SpmvLaunch& launch, const Variant& v) {
  const CudaEvent e0, e1;
  cuda_check(cudaEventRecord(e0.get(), ctx_.stream()), "cudaEventRecord");
  launch.launch();
  cuda_check(cudaEventRecord(e1.get(), ctx_.stream()), "cudaEventRecord");
  cuda_check(cudaEventSynchronize(e1.get()), "run " + v.name());
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, e0.get(), e1.get()), "cudaEventElapsedTime");
  return ms;
}

std::string Tuner::timing_for(double compulsory_bytes) const {
  return options_.graph_timing && graph_timed_size(compulsory_bytes, ctx_.device().l2_bytes) ? "graph" : "stream";
}

TimingResult Tuner::time_variant(const Job& job, const std::function<void()>& launch, const TimingOptions& options) {
  if (job.record.timing == "graph") {
    try {
      // A graph about one sample long (graph_calls at most): longer kernels in fewer calls per graph.
      return time_in_graph(ctx_.stream(), launch, options_.graph_calls, options,
                           options_.graph_fits_sample ? options.min_sample_ms : 0);
    } catch (const GraphCaptureError& e) {
      // Timed with the host's launch cost in it: slower than it is, never faster. Not seen on the H100.
      if (!graph_capture_warned_)
        std::cerr << "jitsparse tune: " << e.what() << ": timed on the stream instead (also any other such)\n";
      graph_capture_warned_ = true;
    }
  }
  return time_on_stream(ctx_.stream(), launch, options);
}

void Tuner::count_compile_wait(const std::string& stage, double seconds) {
  compile_seconds_ += seconds;
  compile_by_stage_[stage].first += seconds;
  compile_by_stage_[stage].second += 1;
}

std::vector<std::string> Tuner::prepare(const Job& job, const std::vector<Variant>& variants) {
  const auto c0 = std::chrono::steady_clock::now();
  auto errors = ctx_.prepare(variants);
  count_compile_wait(job.stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count());
  return errors;
}

void Tuner::run_variants(Job& job, const std::vector<Variant>& variants, const std::vector<Variant>& compile_too) {
  std::vector<Variant> todo;
  for (const auto& v : variants)
    if (!job.record.find(v.name())) todo.push_back(v);
  job.stage_total = todo.size();
  job.stage_done = 0;
  if (todo.empty()) return;
  // A stage proposes from everything the record holds, and a record may hold what this search did not
  // pack: a quick tune's or an evaluation's measurements (the y form of quick tuning's hola@degree, whose
  // layout the renumbering stage never packed, ended a full tune of the R-MAT graph in `map::at`).
  // Stages still pack their whole list first: on a resumed search that packs the layouts of what an
  // earlier run measured, which choose_winners re-times only where packed.
  pack_layouts(job, todo);
  // Compile everything this stage needs in parallel first (cached cubins cost nothing).
  std::vector<Variant> compile;
  for (const auto& v : todo)
    if (job.to_compile(v)) compile.push_back(v);
  const size_t own = compile.size();  // the errors of compile_too are left to the stage that runs them
  for (const auto& v : compile_too)
    if (job.to_compile(v)) compile.push_back(v);
  const auto errors = prepare(job, compile);
  std::map<std::string, std::string> compile_error;
  for (size_t i = 0; i < own; ++i)
    if (!errors[i].empty()) compile_error[compile[i].name()] = errors[i];
  for (const auto& v : todo) {
    if (out_of_budget()) return;
    if (auto it = compile_error.find(v.name()); it != compile_error.end()) {
      MeasurementRecord m;
      m.variant = v.name();
      if (job.evaluation) m.origin = "evaluation";
      m.status = "error: " + it->second.substr(0, 2000);
      job.record.upsert(m);
    } else {
      measure(job, v);
    }
    ++job.stage_done;
    if (job.stage_done % 8 == 0) progress_line(job);
    // A killed run loses at most kCheckpointSeconds of measuring. By time, not by count: a save re-reads
    // and rewrites the whole database, which grows with every matrix tuned (14 MB after the training set).
    if (std::chrono::steady_clock::now() - last_save_ > std::chrono::duration<double>(kCheckpointSeconds)) {
      db_.upsert(job.record);
      db_.save();
      last_save_ = std::chrono::steady_clock::now();
    }
  }
}

// Packs every matrix the given variants run on once (in parallel on the host; the layouts of the matrix,
// and of its transposed copy for the copy kind), then uploads; a layout over the memory cap or beyond
// 32-bit positions is recorded as skipped.
void Tuner::pack_layouts(Job& job, const std::vector<Variant>& variants) {
  std::vector<Variant> wanted;  // one per matrix_key not packed (or skipped) by an earlier stage
  for (const auto& v : variants)
    if (!job.packed.count(matrix_key(v)) && !job.layout_skip.count(matrix_key(v)) &&
        std::none_of(wanted.begin(), wanted.end(), [&](const Variant& w) { return matrix_key(w) == matrix_key(v); }))
      wanted.push_back(v);
  if (wanted.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  const auto first_renumbered =
      std::find_if(wanted.begin(), wanted.end(), [](const Variant& v) { return v.ordering != Ordering::none; });
  if (!job.renumbered && job.a->rows == job.a->cols && first_renumbered != wanted.end())
    job.renumbered = &renumbered(*job.a, job.record.hash, first_renumbered->ordering);  // quick tuning, evaluate
  // [renumbered]: the matrix as it is, or P A P^T (job.renumbered), and their transposed copies
  const HostMatrix* plain[2] = {job.a, job.renumbered ? &job.renumbered->matrix : nullptr};
  const HostMatrix* transposed[2] = {nullptr, nullptr};
  for (int r = 0; r < 2; ++r)
    if (plain[r] && std::any_of(wanted.begin(), wanted.end(), [r](const Variant& v) {
          return v.uses_transposed_copy() && (v.ordering != Ordering::none) == (r == 1);
        }))
      transposed[r] = &transposed_copy(
          *plain[r], r == 1 ? job.record.hash + ordering_suffix(job.renumbered->ordering) : job.record.hash, r == 1);
  std::vector<std::unique_ptr<PackedMatrix>> packs(wanted.size());
  std::vector<std::string> errors(wanted.size());
  std::vector<std::thread> pool;
  std::map<std::string, std::unique_ptr<PackedMatrix>> prepacked;  // Tuner::prepack's, for this job
  for (auto it = prepacked_.begin(); it != prepacked_.end(); ++it)
    if ((*it)->hash == job.record.hash && (*it)->precision == job.precision) {
      prepacked = (*it)->packs.get();
      prepacked_.erase(it);
      break;
    }
  for (size_t i = 0; i < wanted.size(); ++i) {
    const int r = wanted[i].ordering != Ordering::none ? 1 : 0;
    if (r == 1 && !job.renumbered) {
      job.layout_skip[matrix_key(wanted[i])] = "skipped: a renumbering needs a square matrix";
      continue;
    }
    if (r == 1 && wanted[i].ordering != job.renumbered->ordering) {  // one renumbered copy per matrix in memory
      job.layout_skip[matrix_key(wanted[i])] =
          "skipped: this search renumbers the matrix " + ordering_suffix(job.renumbered->ordering) + " only";
      continue;
    }
    const HostMatrix& m = wanted[i].uses_transposed_copy() ? *transposed[r] : *plain[r];
    const Layout layout = wanted[i].layout;
    const std::string skip = pack_skip_reason(packed_bytes(m, layout, job.precision), job.record.compulsory_bytes,
                                              options_.memory_cap_bytes, job.evaluation);
    if (!skip.empty()) {
      job.layout_skip[matrix_key(wanted[i])] = skip;
      continue;
    }
    if (auto it = prepacked.find(matrix_key(wanted[i])); r == 0 && it != prepacked.end() && it->second) {
      packs[i] = std::move(it->second);
      continue;
    }
    pool.emplace_back([&, i, layout] {
      try {
        packs[i] = std::make_unique<PackedMatrix>(pack(m, layout, job.precision));
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : pool) t.join();
  for (size_t i = 0; i < wanted.size(); ++i) {
    const std::string key = matrix_key(wanted[i]);
    if (!errors[i].empty()) job.layout_skip[key] = "skipped: " + errors[i];
    if (!packs[i]) continue;
    try {
      job.packed[key] = std::make_unique<DeviceMatrix>(ctx_, std::move(*packs[i]), job.a->entry.name,
                                                       wanted[i].uses_transposed_copy());
      if (wanted[i].ordering != Ordering::none) job.packed[key]->set_ordering(wanted[i].ordering, job.renumbered->perm);
    } catch (const DeviceError& e) {
      job.layout_skip[key] = std::string("skipped: ") + e.what();
    }
    packs[i].reset();
  }
  const double packed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  pack_seconds_ += packed;
  pack_by_matrix_[job.a->name] += packed;
}

// Stage one runs row kernels with 2048 threads per SM (stage_one_row_schedule), which leaves each thread
// 32 registers: a compound f64 entry may spill, and stage one ranked the spilled kernels (H100, 250 MB
// scanned Dirac operator in f64, cold: ell and sell kernels spilling about 200 bytes per thread ran
// 2.3-2.7x slower than at 1024 threads; the search of the main set's dirac_large f64 ended 1.10x off the
// best known). Quaternion f64 now starts at 1024 threads (stage_one_blocks_per_sm says why); for the
// others neither form is assumed (block3 f64 spills about 50 bytes, and complex f64 and quaternion f32 ran
// faster spilled in 16-29% of the pairs: more threads in flight): each stage-one row variant whose kernel
// spills is also measured with half its blocks per SM (twice the registers), and its pair ranks by the
// faster. From the loaded kernels, so before anything is measured.
std::vector<Variant> Tuner::register_twins(const std::vector<Variant>& stage1) {
  std::vector<Variant> twins;
  for (const auto& v : stage1) {
    if (!v.schedule.row_family() || v.schedule.blocks_per_sm < 2 || !ctx_.has_kernel(v) || ctx_.local_bytes(v) == 0)
      continue;
    Variant twin = v;
    twin.schedule.blocks_per_sm /= 2;
    if (std::find(stage1.begin(), stage1.end(), twin) == stage1.end() &&
        std::find(twins.begin(), twins.end(), twin) == twins.end())
      twins.push_back(twin);
  }
  return twins;
}

// Measures `first`, with the register twins of its spilling kernels (register_twins) compiled on another
// thread meanwhile, then the twins; appends them to `first`. `compile_too` as for run_variants.
void Tuner::run_with_register_twins(Job& job, std::vector<Variant>& first, const std::vector<Variant>& compile_too) {
  // What run_variants would compile, in one round (it reports the errors).
  auto wanted = [&job](const Variant& v) { return job.to_compile(v); };
  std::vector<Variant> compile;
  std::copy_if(first.begin(), first.end(), std::back_inserter(compile), wanted);
  std::copy_if(compile_too.begin(), compile_too.end(), std::back_inserter(compile), wanted);
  prepare(job, compile);
  const std::vector<Variant> twins = register_twins(first);
  std::future<std::vector<KernelBuilder::Outcome>> built;
  if (!twins.empty())
    built = std::async(std::launch::async, [this, twins] {
      below_search_priority();
      return ctx_.builder().build_all(twins, background_compile_threads());
    });
  run_variants(job, first, compile_too);
  if (twins.empty()) return;
  const std::string stage = job.stage;
  job.stage = "spilling kernels with twice the registers";
  const auto t0 = std::chrono::steady_clock::now();
  try {
    ctx_.adopt(built.get());
  } catch (const std::exception&) {
    // nothing adopted: run_variants compiles (and reports) the twins itself
  }
  count_compile_wait(job.stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  run_variants(job, twins);
  job.stage = stage;
  first.insert(first.end(), twins.begin(), twins.end());
}

// Stage 2: the coarse schedule grid of the best (layout, tpr) pairs of stage 1 and of the best csr-aos-aos
// pair (the schedule-only baseline), and the winners of the domain's other matrices (so the domain winner
// is measured on every matrix of the domain). refined_stage_two then sweeps around each pair's best.
std::vector<Variant> Tuner::stage_two_variants(const Job& job, const std::vector<Variant>& stage1,
                                               const ScheduleLimits& limits) const {
  const std::string& entry = job.record.entry;
  std::vector<std::pair<double, Variant>> ranked;
  for (const auto& v : stage1)
    if (const auto* m = job.record.find(v.name()); m && m->ok()) ranked.emplace_back(m->median_us, v);
  std::sort(ranked.begin(), ranked.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  std::vector<Variant> sweep;
  std::set<std::string> chosen;
  const EntryType& entry_type = job.a->entry;
  auto add_pair = [&](const Variant& v) {
    if (!chosen.insert(layout_tpr_key(v)).second) return;
    for (const auto& g : keeping_policy(coarse_grid_variants(entry_type, v, limits), v)) sweep.push_back(g);
  };
  for (const auto& [t, v] : ranked)
    if (v.layout.name() == "csr-aos-aos") {
      add_pair(v);
      break;
    }
  if (options_.mode == "joint")
    for (size_t i = 0; i < ranked.size() && static_cast<int>(chosen.size()) < options_.top_layouts + 1; ++i)
      add_pair(ranked[i].second);
  for (const MatrixRecord* r : db_.records())
    if (r->domain == job.record.domain && r->entry == entry && r->precision == job.record.precision &&
        r->op == job.record.op && !r->winner.empty() && r->hash != job.record.hash) {
      const Variant w = Variant::parse(r->winner);
      if ((!options_.deterministic || w.deterministic()) && job.packed.count(matrix_key(w))) sweep.push_back(w);
    }
  return sweep;
}

// The three fastest variants overall and the three fastest csr-aos-aos ones (the search's quick timing
// can rank near-equal variants wrongly, and short kernels are noisy) are timed again with the full
// method; the winner and the schedule-only best are chosen among those, on the full numbers. A matrix
// of more than an eighth of the L2 has six overall finalists, each timed cold too (the L2 flushed before
// each launch). One larger than the L2 is chosen on the cold numbers. One that fits runs warm only while
// nothing else evicts it between products, so it is chosen on the smallest worst-case regret: the larger
// of (warm / best warm) and (cold / best cold). Seen on the H100 (2026-11-24): the 12 MB built-ins went
// from 0.90-0.96x of cuSPARSE cold to 0.96-1.01x, and lost 2-6% warm. Smaller matrices are launch-bound
// (4-6 us): their cold timings are noise, and they stay chosen warm.
void Tuner::choose_winners(Job& job) {
  constexpr size_t kCandidates = 3, kColdCandidates = 6;
  const double l2 = static_cast<double>(ctx_.device().l2_bytes);
  const bool timed_cold = options_.cold_finalists && l2 > 0 && job.record.compulsory_bytes > l2 / 8;
  const bool cold = timed_cold && job.record.compulsory_bytes > l2;
  auto fastest = [&](bool csr_only, bool deterministic_only) {
    std::vector<const MeasurementRecord*> ok;
    for (const auto& m : job.record.measurements)
      if (m.ok() && (!csr_only || m.variant.find("/csr-aos-aos/") != std::string::npos) &&
          (!deterministic_only || m.deterministic()))
        ok.push_back(&m);
    std::sort(ok.begin(), ok.end(), [](auto* l, auto* r) { return l->median_us < r->median_us; });
    std::vector<std::string> names;
    // Quick tuning re-times three even where they are timed cold: six cost it a third of its GPU time on
    // the large matrices (H100, nineteenth session).
    const size_t n = timed_cold && !csr_only && !deterministic_only && !job.quick ? kColdCandidates : kCandidates;
    for (size_t i = 0; i < ok.size() && i < n; ++i) names.push_back(ok[i]->variant);
    return names;
  };
  // The winner is the fastest of all, the deterministic winner the fastest of those that always give the
  // same bits (what --deterministic asks for; load_tuned can ask for it too).
  const auto overall = fastest(false, false), baseline = fastest(true, false), steady = fastest(false, true);
  std::set<std::string> retimed;
  for (const auto& name : overall) retimed.insert(name);
  // Quick tuning re-times only its own finalists: its schedule-only baseline is whatever csr-aos-aos it
  // happened to measure, not worth GPU time.
  if (!job.quick)
    for (const auto& name : baseline) retimed.insert(name);
  for (const auto& name : steady) retimed.insert(name);
  if (job.evaluation)  // the evaluation's own finalists only
    for (auto it = retimed.begin(); it != retimed.end();) {
      const bool searched = job.record.find(*it)->origin.empty();
      it = searched ? retimed.erase(it) : std::next(it);
    }
  TimingOptions cold_timing = options_.cold_timing;
  if (timed_cold) {
    if (!flush_) flush_ = std::make_unique<L2Flush>(ctx_);
    cold_timing.before_each = [this](cudaStream_t s) { (*flush_)(s); };
  }
  TimingOptions final_timing = job.quick ? options_.quick_final_timing : options_.final_timing;
  if (job.quick) final_timing.warmup_ms = options_.quick_warmup_ms;  // the first finalist warms the GPU up
  for (const auto& name : retimed) {
    MeasurementRecord m = *job.record.find(name);
    const Variant v = Variant::parse(name);
    const int vl = v.layout.vector == VectorLayout::aos ? 0 : 1;
    if (!job.packed.count(matrix_key(v))) continue;
    try {
      const auto t0 = std::chrono::steady_clock::now();
      SpmvLaunch launch(ctx_, v, *job.packed.at(matrix_key(v)), *job.x[vl], *job.y[vl]);
      const TimingResult t = time_variant(job, [&] { launch.launch(); }, final_timing);
      final_timing.warmup_ms = 0;
      if (timed_cold) m.cold_us = time_on_stream(ctx_.stream(), [&] { launch.launch(); }, cold_timing).median_us;
      m.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      m.median_us = t.median_us;
      m.samples_us = t.samples_us;
      m.reps_per_sample = t.reps_per_sample;
      m.gbps = effective_gbps(job.record.compulsory_bytes, m.median_us);
      job.record.upsert(m);
    } catch (const Error&) {
      // keep the search's measurement
    }
  }
  // Cold (or the regret) where every finalist has a cold time (a failed re-timing keeps the search's warm
  // one), else warm.
  const bool all_cold = timed_cold && std::all_of(retimed.begin(), retimed.end(), [&](const std::string& n) {
                          return job.record.find(n)->cold_us > 0;
                        });
  const bool by_cold = cold && all_cold, by_regret = !cold && all_cold;
  double best_warm = 0, best_cold = 0;
  for (const auto& n : retimed) {
    const MeasurementRecord* m = job.record.find(n);
    if (m->median_us > 0 && (best_warm == 0 || m->median_us < best_warm)) best_warm = m->median_us;
    if (m->cold_us > 0 && (best_cold == 0 || m->cold_us < best_cold)) best_cold = m->cold_us;
  }
  auto time_of = [&](const std::string& n) {
    const MeasurementRecord* m = job.record.find(n);
    if (by_cold) return m->cold_us;
    if (by_regret && best_warm > 0 && best_cold > 0) return std::max(m->median_us / best_warm, m->cold_us / best_cold);
    return m->median_us;
  };
  auto pick = [&](const std::vector<std::string>& names) {
    std::string best;
    for (const auto& n : names)
      if (best.empty() || time_of(n) < time_of(best)) best = n;
    return best;
  };
  job.record.winner = pick(overall);
  // (Quick tuning did not re-time the baseline: its fastest as the search timed it.)
  job.record.schedule_only = job.quick ? (baseline.empty() ? "" : baseline.front()) : pick(baseline);
  job.record.deterministic_winner = pick(steady);
  // The baseline can beat the overall candidates after re-timing: the winner is never slower than it.
  if (!job.quick && !job.record.schedule_only.empty() &&
      (job.record.winner.empty() || time_of(job.record.schedule_only) < time_of(job.record.winner)))
    job.record.winner = job.record.schedule_only;
}

void Tuner::print_result(const Job& job, bool stopped) const {
  if (options_.progress) std::cerr << "\r\033[K";
  const auto* w = job.record.find(job.record.winner);
  const auto* s = job.record.find(job.record.schedule_only);
  std::cerr << job.record.name << " " << job.record.precision << ": " << (w ? w->variant : "no variant ran") << " "
            << (w ? std::to_string(w->median_us) + " us, " + std::to_string(static_cast<int>(w->gbps)) + " GB/s" : "")
            << (w && job.record.timing == "graph" ? " (in CUDA graphs)" : "")
            << (w && w->cold_us > 0 ? ", L2 cold " + std::to_string(w->cold_us) + " us" : "")
            << (w && s ? ", " + std::to_string(s->median_us / w->median_us) + "x schedule-only" : "")
            << (stopped ? " (budget reached: best so far)" : "") << "\n";
}

Tuner::MatrixFacts Tuner::facts_of(const HostMatrix& a) {
  MatrixFacts facts{matrix_hash(a), compute_features(a)};
  facts.features.narrow_fits = narrow_columns_fit(a) ? 1 : 0;
  facts.sorting_pays = sorted_sell_pays(facts.features, a.components());
  return facts;
}

bool Tuner::tune(const HostMatrix& a, const std::string& domain, const std::function<const HostMatrix*()>& following) {
  const EntryType& entry = a.entry;
  if (options_.op == Op::h && !entry.has_adjoint)
    throw InvalidArgument("entry type '" + entry.name + "' (" + entry.source + ") has no adjoint: cannot tune A^H x");
  // The background packing reads `a`: however this returns, it is finished (or waited for) first.
  struct WaitForPrepack {
    std::vector<std::unique_ptr<Prepacked>>& p;
    ~WaitForPrepack() { p.clear(); }
  } wait_for_prepack{prepacked_};
  // Packed while the matrix before was tuned (prepack_following): its facts, and its first precision's
  // stage one as a prepacked slot.
  MatrixFacts facts;
  if (following_ && following_->matrix == &a) {
    const auto t0 = std::chrono::steady_clock::now();
    PrepackedFollowing ready = following_->packed.get();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    pack_seconds_ += waited;
    pack_by_matrix_[a.name] += waited;
    facts = std::move(ready.facts);
    auto pre = std::make_unique<Prepacked>();
    pre->hash = facts.hash;
    pre->precision = following_->precision;
    std::promise<std::map<std::string, std::unique_ptr<PackedMatrix>>> done;
    done.set_value(std::move(ready.packs));
    pre->packs = done.get_future();
    prepacked_.push_back(std::move(pre));
  } else {
    facts = facts_of(a);
  }
  following_.reset();
  // Its records under the legacy key move to its key before anything looks them up (prepack's check, the
  // resumed search, the upsert): tuned again, a matrix is never held under both keys.
  if (db_.rekey_legacy_records(a, facts.hash) > 0 && options_.verbose)
    std::cerr << (options_.progress ? "\r\033[K" : "") << a.name << ": its records move from the legacy matrix key to "
              << facts.hash << "\n";
  const std::vector<Precision> precisions = precisions_of(entry);
  for (size_t i = 0; i < precisions.size(); ++i) {
    if (i + 1 < precisions.size()) prepack(a, facts, precisions[i + 1]);
    if (i + 1 == precisions.size() && following)
      if (const HostMatrix* next = following()) prepack_following(*next);
    if (!run_job(a, facts, domain, precisions[i], nullptr)) return false;
  }
  return true;
}

// What a precision's stage one packs of `a` (pack_layouts' checks, repeated): each layout once, of the
// matrix or (op t/h's copy kind, with_transposed) of its transposed copy; empty above prepack_limit_bytes.
std::vector<Tuner::PackTodo> Tuner::stage_one_packs(const HostMatrix& a, const MatrixFacts& facts, Precision p,
                                                    bool with_transposed) {
  const double compulsory = compulsory_bytes(a, p);
  std::vector<PackTodo> todo;
  int64_t total = 0;
  const StageOnePolicy policy =
      stage_one_policy(compulsory, ctx_.device().l2_bytes, facts.features.narrow_fits == 1);
  // The later hisparse layouts wait for the first's time, but a wide one runs on a large matrix anyway
  const int64_t y_rows = is_transposed(options_.op) ? a.cols : a.rows;
  auto waits = [&](const Variant& v) {
    return waits_for_first_hisparse(v, options_) && !wide_hisparse_pays(v.layout, y_rows, ctx_.device().sm_count);
  };
  for (const auto& v : stage_one_variants(a.entry, p, options_, schedule_limits(ctx_.device()), policy)) {
    if ((v.layout.sorted() && !facts.sorting_pays) || waits_for_copy_kind(v, options_) || waits(v) ||
        (v.uses_transposed_copy() && !with_transposed))
      continue;
    const std::string key = matrix_key(v);
    if (std::any_of(todo.begin(), todo.end(), [&](const PackTodo& t) { return t.key == key; })) continue;
    const HostMatrix& m = v.uses_transposed_copy() ? transposed_copy(a, facts.hash, false) : a;
    const int64_t need = packed_bytes(m, v.layout, p);
    if (!pack_skip_reason(need, compulsory, options_.memory_cap_bytes, false).empty()) continue;
    total += need;
    todo.push_back({key, v.layout, &m});
  }
  if (total > prepack_limit_bytes()) todo.clear();  // host memory: held until the job takes them
  return todo;
}

// Packs on `threads` threads below the search's priority (a failed pack is left to pack_layouts, which
// packs it again and records why it fails).
std::map<std::string, std::unique_ptr<PackedMatrix>> Tuner::pack_in_background(const std::vector<PackTodo>& todo,
                                                                               Precision p, int threads) {
  std::map<std::string, std::unique_ptr<PackedMatrix>> out;
  std::vector<std::unique_ptr<PackedMatrix>> packs(todo.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    below_search_priority();
    for (size_t i = next++; i < todo.size(); i = next++) {
      try {
        packs[i] = std::make_unique<PackedMatrix>(pack(*todo[i].matrix, todo[i].layout, p));
      } catch (const std::exception&) {
        // left out: pack_layouts packs it again and records why it fails
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  for (size_t i = 0; i < todo.size(); ++i)
    if (packs[i]) out[todo[i].key] = std::move(packs[i]);
  return out;
}

std::vector<Precision> Tuner::precisions_of(const EntryType& entry) const {
  std::vector<Precision> out;
  for (Precision p : options_.precisions)
    if (entry.supports(to_string(p))) out.push_back(p);
  return out;
}

void Tuner::prepack(const HostMatrix& a, const MatrixFacts& facts, Precision p) {
  // Only the full search packs the same layouts in every precision's first stage (quick tuning packs a
  // few), and only a job that will run. Op t/h's copy kind packs the transposed copy (made here once for
  // the matrix: the jobs of both precisions use it, transposed_copy).
  if (options_.quick) return;
  prepacked_.erase(std::remove_if(prepacked_.begin(), prepacked_.end(),
                                  [&](const auto& s) { return s->hash == facts.hash && s->precision == p; }),
                   prepacked_.end());
  const double compulsory = compulsory_bytes(a, p);
  if (const MatrixRecord* old = db_.find(facts.hash, to_string(p), to_string(options_.op));
      old && old->complete && old->search == "full" && old->timing == timing_for(compulsory) && !options_.remeasure &&
      !db_.stale())
    return;
  const std::vector<PackTodo> todo = stage_one_packs(a, facts, p, true);
  if (todo.empty()) return;
  auto pre = std::make_unique<Prepacked>();
  pre->hash = facts.hash;
  pre->precision = p;
  // The transposed copy stays until the matrix changes, after tune() has waited for this (WaitForPrepack).
  pre->packs = std::async(std::launch::async, [todo, p] { return pack_in_background(todo, p, 1); });
  prepacked_.push_back(std::move(pre));
}

// The matrix after this one (MatrixQueue's, loaded already): its facts and its first precision's stage
// one, packed on a few threads while this matrix's last precision is searched (tune() takes them). Not
// the transposed copy (op t/h's copy kind): the tuner keeps one, this matrix's, which its search still
// packs from. Nothing is looked up in the database here (another thread): a matrix tuned already just
// drops the packs.
void Tuner::prepack_following(const HostMatrix& next) {
  const std::vector<Precision> precisions = precisions_of(next.entry);
  if (options_.quick || (options_.op == Op::h && !next.entry.has_adjoint) || precisions.empty()) return;
  const Precision p = precisions.front();
  const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 4);
  auto f = std::make_unique<Following>();
  f->matrix = &next;
  f->precision = p;
  f->packed = std::async(std::launch::async, [this, &next, p, threads] {
    PrepackedFollowing out;
    out.facts = facts_of(next);
    out.packs = pack_in_background(stage_one_packs(next, out.facts, p, false), p, threads);
    return out;
  });
  following_ = std::move(f);
}

void Tuner::measure_variants(const HostMatrix& a, const std::string& domain,
                             const std::map<Precision, std::vector<Variant>>& variants) {
  for (const auto& [p, list] : variants)
    if (!a.entry.supports(to_string(p)))
      throw InvalidArgument("entry type '" + a.entry.name + "' has no " + to_string(p) + " kernels");
  const MatrixFacts facts = facts_of(a);
  for (const auto& [p, list] : variants) run_job(a, facts, domain, p, &list);
}

// Quick tuning: the selection model's ranking for this matrix (empty when the database knows no matrix of
// this entry type, precision and operation: the caller runs the full search then).
Prediction Tuner::quick_prediction(const HostMatrix& a, const MatrixFacts& facts, Precision p, std::string* why) const {
  const SelectionModel model(db_, ctx_.device().l2_bytes);
  ModelQuery q{facts.features, compulsory_bytes(a, p), a.entry.name, p, options_.op, options_.deterministic,
               a.entry.num_components()};
  Prediction pred = model.predict(q);
  if (facts.features.narrow_fits == 0)  // narrow candidates cannot hold this matrix's columns (renumbered: maybe)
    pred.ranked.erase(std::remove_if(pred.ranked.begin(), pred.ranked.end(),
                                     [](const Candidate& c) {
                                       const Variant v = Variant::parse(c.variant);
                                       return v.layout.narrow && v.ordering == Ordering::none;
                                     }),
                      pred.ranked.end());
  if (pred.empty()) {
    *why = "no tuned matrix of " + a.entry.name + " " + to_string(p) + " op " + to_string(options_.op) +
           " on this GPU to learn from: running the full search";
    return pred;
  }
  const QuickPlan plan = quick_plan(options_.quick_k, options_.quick_plan);
  *why = plan.kind == QuickPlanKind::groups
             ? "the model's candidates in " + std::to_string(plan.groups) + " groups, then the fastest improved"
             : "the model's candidates in " + std::to_string(plan.pairs) + " layout pairs, then the best pairs' schedules";
  *why += " (confidence " + std::to_string(pred.confidence).substr(0, 4) +
         ", nearest '" + pred.neighbours.front().name + "')";
  return pred;
}

bool Tuner::run_job(const HostMatrix& a, const MatrixFacts& facts, const std::string& domain, Precision p,
                    const std::vector<Variant>* given) {
  const EntryType& entry = a.entry;
  const ScheduleLimits limits = schedule_limits(ctx_.device());
  const Op op = options_.op;
  Job job;
  job.a = &a;
  job.precision = p;
  job.record.name = a.name;
  job.record.hash = facts.hash;
  job.record.entry = entry.name;
  job.record.precision = to_string(p);
  job.record.op = to_string(op);
  job.record.domain = domain;
  job.record.features = facts.features;
  job.record.compulsory_bytes = compulsory_bytes(a, p);
  job.record.timing = timing_for(job.record.compulsory_bytes);
  const bool quick = options_.quick && !given;
  job.evaluation = given != nullptr;
  std::vector<Variant> quick_list;
  Prediction quick_pred;
  const QuickPlan plan = quick_plan(options_.quick_k, options_.quick_plan);
  const MatrixRecord* old = db_.find(job.record.hash, to_string(p), to_string(op));
  // The evaluation (given variants) measures into a record as it is keyed, legacy key or not: it holds the
  // keys it read (only tune() moves a record to the new key).
  if (!old && given && (old = db_.find_matrix(a, to_string(p), to_string(op), facts.hash))) job.record.hash = old->hash;
  // Times taken another way do not compare with this search's: measured again (the evaluation's checks
  // of an old record are timed its way, so they compare with what it holds).
  if (old && given) job.record.timing = old->timing;
  if (old && !given && old->timing != job.record.timing && !options_.remeasure && !db_.stale() &&
      (options_.verbose || options_.progress))
    std::cerr << (options_.progress ? "\r\033[K" : "") << a.name << " " << to_string(p) << ": the database timed it "
              << (old->timing == "graph" ? "in CUDA graphs" : "with launches back to back") << ", this search times it "
              << (job.record.timing == "graph" ? "in CUDA graphs" : "with launches back to back")
              << ": measuring again\n";
  if (old && old->timing == job.record.timing && !options_.remeasure && !db_.stale()) {
    const bool enough = old->complete && (old->search == "full" || quick) &&
                        (!options_.deterministic || !old->deterministic_winner.empty());
    if (enough && !given) {
      tuned_.emplace_back(job.record.hash, to_string(p));
      ++matrices_done_;
      if (options_.verbose || options_.progress)
        std::cerr << (options_.progress ? "\r\033[K" : "") << a.name << " " << to_string(p) << ": already tuned"
                  << (old->search == "quick" ? " (quick)" : "") << ", winner "
                  << (options_.deterministic ? old->deterministic_winner : old->winner)
                  << " (use --remeasure to measure again)\n";
      return true;
    }
    job.record.measurements = old->measurements;  // resume
    if (given) {  // measuring more of a finished record keeps what it was
      job.record.complete = old->complete;
      job.record.domain = old->domain;
    }
  }
  if (out_of_budget()) return false;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const Clock::time_point job_start = Clock::now();
  JobSeconds spent;
  spent.matrix = a.name;
  spent.precision = to_string(p);
  const double packed_before = pack_seconds_, compiled_before = compile_seconds_, measured_before = measure_seconds_;
  if (quick) {
    std::string why;
    quick_pred = quick_prediction(a, facts, p, &why);
    for (const auto& v : quick_round_one(quick_pred, plan)) quick_list.push_back(Variant::parse(v));
    if (options_.verbose || options_.progress)
      std::cerr << (options_.progress ? "\r\033[K" : "") << a.name << " " << to_string(p) << ": quick tuning, " << why << "\n";
    if (!quick_list.empty()) given = &quick_list;
  }
  // The staged search makes a full record; a short list adds to the record there is (keeping its kind)
  // or starts a quick one.
  job.record.search = !given ? "full" : old ? old->search : "quick";
  job.quick = quick && !quick_list.empty();

  // Op t/h in both kinds: the copy kind first over every layout x threads-per-row, then the atomic kind
  // only where the copy kind ranked a layout's threads-per-row best (atomic_stage_one).
  std::vector<Variant> stage1, atomic;
  if (given) {
    stage1 = *given;
    // The evaluation's checks time each variant properly. Quick tuning keeps the search's verdict on a
    // variant 4x slower than its best after one launch of more than kHopelessLaunchMs (never a tiny
    // kernel's hiccup): a slow candidate of a large matrix cost it as much as a dozen others (H100,
    // nineteenth session).
    job.one_launch_verdict = job.quick;
  } else {
    const StageOnePolicy policy =
        stage_one_policy(job.record.compulsory_bytes, ctx_.device().l2_bytes, facts.features.narrow_fits == 1);
    for (const auto& v : stage_one_variants(entry, p, options_, limits, policy))
      if (!v.layout.sorted() || facts.sorting_pays)
        (waits_for_copy_kind(v, options_) ? atomic : stage1).push_back(v);
  }
  // HiSparse layouts past the first (a tree to build on the host for each, the slowest packing of all)
  // are timed only where the first came within kHisparseKeep of the best of stage one, and the wide ones
  // on a large matrix (wide_hisparse_pays: stage_one_packs packs them ahead).
  std::vector<Variant> hisparse_later;
  auto wide = [&](const Variant& v) {
    return wide_hisparse_pays(v.layout, is_transposed(op) ? a.cols : a.rows, ctx_.device().sm_count);
  };
  if (!given) {
    auto later = [this](const Variant& v) { return waits_for_first_hisparse(v, options_); };
    std::copy_if(stage1.begin(), stage1.end(), std::back_inserter(hisparse_later), later);
    stage1.erase(std::remove_if(stage1.begin(), stage1.end(), later), stage1.end());
  }
  const bool staged = !atomic.empty() && std::any_of(stage1.begin(), stage1.end(), [](const Variant& v) {
    return v.transpose == TransposeKind::copy;
  });
  if (!staged) {
    stage1.insert(stage1.end(), atomic.begin(), atomic.end());
    atomic.clear();
  }
  if (!given) wait_for_ahead(entry.name, p);
  {
    // with the wide hisparse layouts that run after stage one anyway (packed ahead by stage_one_packs)
    std::vector<Variant> packs = stage1;
    std::copy_if(hisparse_later.begin(), hisparse_later.end(), std::back_inserter(packs), wide);
    pack_layouts(job, packs);
  }
  // The wide hisparse layouts' own setups on a large matrix (compile_ahead compiles them last); a layout
  // none of them fits waits as the other later layouts do
  std::vector<Variant> wide_runs;
  for (const Variant& later : hisparse_later)
    if (wide(later))
      for (const Variant& v : wide_hisparse_setups(later, entry, limits)) wide_runs.push_back(v);
  auto has_own_setups = [&](const Variant& later) {
    return std::any_of(wide_runs.begin(), wide_runs.end(), [&](const Variant& v) { return v.layout == later.layout; });
  };
  // op(A) x: x has a.cols elements for A x, a.rows for A^T x and A^H x (and y the other length).
  const Clock::time_point reference_start = Clock::now();
  const int64_t x_len = is_transposed(op) ? a.rows : a.cols, y_len = is_transposed(op) ? a.cols : a.rows;
  const auto x_host = random_vector(x_len, a.vector_components(), 12345);
  for (int vl = 0; vl < 2; ++vl) {
    const VectorLayout layout = vl == 0 ? VectorLayout::aos : VectorLayout::soa;
    job.x[vl] = std::make_unique<DeviceVector>(ctx_, x_len, a.vector_components(), layout, p);
    job.y[vl] = std::make_unique<DeviceVector>(ctx_, y_len, a.vector_components(), layout, p);
    job.x[vl]->upload(x_host);
  }
  // The reference is the same for both precisions: keep it while the same matrix is tuned.
  if (!check_ || check_hash_ != job.record.hash || check_op_ != op) {
    check_.reset();
    check_ = std::make_unique<GpuCheck>(ctx_, a, x_host, op);
    check_hash_ = job.record.hash;
    check_op_ = op;
  }
  job.check = std::move(check_);
  spent.reference = since(reference_start);

  const size_t grid = 33;  // per pair: the coarse grid (13) and about 20 refined schedules
  job.planned = given ? stage1.size()
                      : stage1.size() + atomic.size() / 3 + wide_runs.size() +
                            grid * (options_.mode == "joint" ? options_.top_layouts + 1 : 1);
  job.stage = given ? (quick ? "the model's candidates (quick, round one)" : "given variants")
                    : staged ? "layouts x threads-per-row (copy kind)" : "layouts x threads-per-row";
  if (given)
    run_variants(job, stage1);
  else
    run_with_register_twins(job, stage1);
  if (const auto windows = given ? std::vector<Variant>{}
                                 : sorted_window_variants(job.record, stage1, a.rows, options_.top_layouts + 1);
      !windows.empty()) {
    pack_layouts(job, windows);
    job.stage = "sorted sell windows";
    // With the schedule grid that follows, as for the atomic kind below (a window rarely changes the best
    // pairs); op t/h compile it with the atomic kind instead.
    run_variants(job, windows, staged ? std::vector<Variant>{} : stage_two_variants(job, stage1, limits));
    if (const auto siblings = sorted_window_siblings(job.record, stage1, windows); !siblings.empty()) {
      pack_layouts(job, siblings);  // a sibling on another inner layout is a pack of its own
      job.stage = "sorted sell windows (siblings)";
      run_variants(job, siblings);
      stage1.insert(stage1.end(), siblings.begin(), siblings.end());
    }
    stage1.insert(stage1.end(), windows.begin(), windows.end());
  }
  if (staged) {
    auto chosen = atomic_stage_one(atomic, job.record, kAtomicPerLayout, kAtomicKeep);
    pack_layouts(job, chosen);
    job.stage = "layouts x threads-per-row (atomic kind)";
    // The schedule grid that follows is compiled in this round: it depends on the atomic kind's times only
    // where an atomic variant ranks among the best pairs, which it rarely does (kAtomicKeep); then the
    // grid stage compiles the rest.
    run_with_register_twins(job, chosen, stage_two_variants(job, stage1, limits));
    stage1.insert(stage1.end(), chosen.begin(), chosen.end());
  }
  if (!hisparse_later.empty()) {
    const MeasurementRecord* best = job.record.best();
    std::vector<std::pair<double, Schedule>> setups;  // the hisparse variants of stage one, fastest first
    for (const auto& m : job.record.measurements)
      if (m.ok())
        if (const Variant v = Variant::parse(m.variant); v.layout.outer == OuterLayout::hisparse)
          setups.emplace_back(m.median_us, v.schedule);
    std::stable_sort(setups.begin(), setups.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    const double first = setups.empty() ? 0 : setups.front().first;
    const bool near_best = best && first > 0 && first <= kHisparseKeep * best->median_us;
    // The wide layouts of a large matrix in their own setups (once the first ran); the others in the
    // first's fastest setup that fits their shared memory, where the first came near the best.
    std::vector<Variant> runs, pruned;
    if (first > 0) runs = wide_runs;
    for (const Variant& later : hisparse_later) {
      if (first > 0 && has_own_setups(later)) continue;
      if (!near_best) {
        pruned.push_back(later);
        continue;
      }
      Variant v = later;
      bool fits = false;
      for (size_t i = 0; i < setups.size() && !fits; ++i) {
        v.schedule = setups[i].second;
        fits = entry_supports(v, entry);
      }
      if (fits) {
        runs.push_back(v);
      } else if (!job.record.find(later.name())) {
        MeasurementRecord m;
        m.variant = later.name();
        m.status = "skipped: no hisparse setup timed fits its shared memory";
        job.record.upsert(m);
      }
    }
    if (!runs.empty()) {
      pack_layouts(job, runs);
      job.stage = "hisparse layouts";
      run_variants(job, runs);
      stage1.insert(stage1.end(), runs.begin(), runs.end());
    }
    if (!pruned.empty()) {
      char why[200];
      std::snprintf(why, sizeof why, "skipped: pruned (the first hisparse layout ran %.1f us, the best of stage one %.1f us)",
                    first, best ? best->median_us : 0.0);
      for (const auto& v : pruned)
        if (!job.record.find(v.name())) {
          MeasurementRecord m;
          m.variant = v.name();
          m.status = first > 0 ? why : "skipped: pruned (the first hisparse layout did not run)";
          job.record.upsert(m);
        }
    }
  }
  // The renumbering stage (ordering_twins), after the search.
  auto renumbering_stage = [&]() {
    if (!renumbering_may_pay(facts.features) || out_of_budget()) return;
    const bool unroll = unrolling_may_pay(job.record.compulsory_bytes, ctx_.device().l2_bytes);
    const bool in_l2 = stays_in_l2(job.record.compulsory_bytes, ctx_.device().l2_bytes);
    const Ordering ordering = preferred_ordering(facts.features);
    job.stage = "renumbering (" + to_string(ordering) + ")";
    const auto t0 = std::chrono::steady_clock::now();
    job.renumbered = &renumbered(a, facts.hash, ordering);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    pack_seconds_ += took;
    pack_by_matrix_[a.name] += took;
    const auto first = ordering_twins(job.record, kOrderingLayouts, ordering, renumbered_narrow_);
    pack_layouts(job, first);
    run_variants(job, first);
    for (const Variant& v : first)  // the renumbered tree's own setup (hisparse_setup_twins)
      if (v.layout.outer == OuterLayout::hisparse) run_variants(job, hisparse_setup_twins(job.record, v, entry, limits));
    // Which y form pays depends on the matrix and the precision (RenumberedY): the schedules below are
    // swept in the form of the fastest.
    run_variants(job, y_form_twins(job.record, kYFormTwins));
    // Where a renumbered variant is the fastest or near it, its schedules (hola: its whole grid) and load
    // policy as for the others: the plain matrix's best schedule is often not the renumbered one's (the
    // R-MAT graph by degree: hola-64x16-ept2 63.5 us, hola-128x8-ept4 49.4, the plain best 57-59).
    const MeasurementRecord* best = job.record.best();
    const MeasurementRecord* best_renumbered = nullptr;
    for (const auto& m : job.record.measurements)  // only an ordering puts '@' into a name
      if (m.ok() && m.variant.find('@') != std::string::npos && (!best_renumbered || m.median_us < best_renumbered->median_us))
        best_renumbered = &m;
    if (!best || !best_renumbered || best_renumbered->median_us > kRenumberedKeep * best->median_us) return;
    job.stage = "renumbering (" + to_string(ordering) + "): schedules";
    const Variant seed = Variant::parse(best_renumbered->variant);
    std::vector<Variant> more = seed.layout.outer == OuterLayout::hola
                                    ? grid_variants(entry, seed, limits)
                                    : keeping_policy(refined_grid_variants(seed, limits), seed);
    for (const auto& t : policy_twins(job.record, 1, unroll, renumbered_narrow_, in_l2))
      if (t.ordering != Ordering::none) more.push_back(t);
    pack_layouts(job, more);
    run_variants(job, more);
    run_variants(job, y_form_twins(job.record, 1));  // the fastest schedule in the other form too
  };
  if (job.quick) {  // the later steps of quick tuning, each from what the ones before measured
    std::vector<std::vector<std::string>> steps(1);
    for (const auto& v : stage1) steps[0].push_back(v.name());
    const bool unroll = unrolling_may_pay(job.record.compulsory_bytes, ctx_.device().l2_bytes);
    const QuickMatrix qm{&entry, limits, unroll, facts.features.narrow_fits == 1, facts.sorting_pays};
    for (int k = 1; k < kQuickSteps; ++k) {
      steps.push_back(quick_step(k, quick_pred, plan, qm, steps, record_times(job.record)));
      std::vector<Variant> variants;
      for (const auto& v : steps.back()) variants.push_back(Variant::parse(v));
      pack_layouts(job, variants);
      job.stage = quick_step_name(plan, k);
      run_variants(job, variants);
    }
    // No renumbering stage: the model proposes renumbered candidates where renumbering may pay, and
    // quick tuning measures what jitsparse evaluate scores, nothing more.
  }
  if (!given) {
    job.stage = "schedule grid";
    const auto coarse = stage_two_variants(job, stage1, limits);
    run_variants(job, coarse);
    job.stage = "schedule grid (refined)";
    run_variants(job, refined_stage_two(job.record, coarse, limits));
    job.stage = "load policy and unroll";
    const bool unroll = unrolling_may_pay(job.record.compulsory_bytes, ctx_.device().l2_bytes);
    const bool in_l2 = stays_in_l2(job.record.compulsory_bytes, ctx_.device().l2_bytes);
    const auto twins = policy_twins(job.record, kPolicyTwins, unroll, facts.features.narrow_fits == 1, in_l2);
    pack_layouts(job, twins);  // a narrow twin is a layout of its own
    run_variants(job, twins);
    renumbering_stage();
    job.stage = "even grids";
    const auto even = even_grid_twins(job.record, kEvenGridTwins, a.rows, a.cols, ctx_.device().sm_count);
    pack_layouts(job, even);  // packed already by the stages that timed their plain forms
    run_variants(job, even);
  }

  const bool stopped = out_of_budget();
  const Clock::time_point choosing_start = Clock::now();
  const double measured_before_choosing = measure_seconds_;
  if (!stopped) {
    choose_winners(job);
  } else {  // the budget is spent: the best so far, as measured
    if (const auto* w = job.record.best()) job.record.winner = w->variant;
    if (const auto* s = job.record.best(true)) job.record.schedule_only = s->variant;
    if (const auto* d = job.record.best(false, true)) job.record.deterministic_winner = d->variant;
  }
  if (!given || quick) job.record.complete = !stopped;
  spent.choosing = since(choosing_start) - (measure_seconds_ - measured_before_choosing);
  const Clock::time_point saving_start = Clock::now();
  db_.upsert(job.record);
  db_.save();
  spent.saving = since(saving_start);
  spent.wall = since(job_start);
  spent.packing = pack_seconds_ - packed_before;
  spent.compiling = compile_seconds_ - compiled_before;
  spent.measuring = measure_seconds_ - measured_before;
  job_seconds_.push_back(spent);
  tuned_.emplace_back(job.record.hash, to_string(p));
  print_result(job, stopped);
  check_ = std::move(job.check);
  ++matrices_done_;
  return !stopped;
}

const HostMatrix& Tuner::transposed_copy(const HostMatrix& m, const std::string& hash, bool renumbered) {
  const int r = renumbered ? 1 : 0;
  if (!transposed_[r] || transposed_hash_[r] != hash) {
    transposed_[r].reset();  // one matrix's copies at a time: host memory
    transposed_[r] = std::make_unique<HostMatrix>(transpose_pattern(m));
    transposed_hash_[r] = hash;
  }
  return *transposed_[r];
}

const PermutedMatrix& Tuner::renumbered(const HostMatrix& a, const std::string& hash, Ordering ordering) {
  const std::string key = hash + ordering_suffix(ordering);
  if (!renumbered_ || renumbered_hash_ != key) {
    renumbered_.reset();
    renumbered_ = std::make_unique<PermutedMatrix>(reorder(a, ordering));
    renumbered_hash_ = key;
    renumbered_narrow_ = narrow_columns_fit(renumbered_->matrix);
  }
  return *renumbered_;
}

namespace {

// A row variant without its load policy, narrowness, unrolling and even grid: what a domain winner names. The search
// picks those per matrix (stage_one_policy by its size, then policy_twins), so a domain of small and large
// matrices shares few whole variants: on the H100 (twentieth session) hola, the same on all, won four of
// the eight built-in domains at 0.70-0.81x of the schedule-only baseline.
std::string policy_free(const std::string& name) {
  Variant v = Variant::parse(name);
  if (!v.schedule.row_family()) return name;
  v.schedule.cached_matrix = false;
  v.schedule.unroll = 2;
  v.schedule.even_grid = false;
  v.layout.narrow = false;
  return v.name();
}

}  // namespace

DomainChoice domain_winner(const std::vector<const MatrixRecord*>& records, bool deterministic) {
  std::map<std::string, std::pair<double, int>> score;  // variant -> (sum log speedup, count)
  for (const MatrixRecord* r : records) {
    const MeasurementRecord* baseline = r->find(r->schedule_only);
    if (!baseline || !baseline->ok()) return {};
    std::map<std::string, double> fastest;  // policy-free form -> its fastest policy's time here
    for (const auto& m : r->measurements)
      if (m.ok() && (!deterministic || m.deterministic())) {
        auto [it, fresh] = fastest.emplace(policy_free(m.variant), m.median_us);
        if (!fresh) it->second = std::min(it->second, m.median_us);
      }
    for (const auto& [variant, us] : fastest) {
      auto& s = score[variant];
      s.first += std::log(baseline->median_us / us);
      ++s.second;
    }
  }
  DomainChoice out;
  double best = -1e300;
  for (const auto& [variant, s] : score)
    if (s.second == static_cast<int>(records.size()) && s.first > best) {
      best = s.first;
      out.winner = variant;
    }
  if (!out.winner.empty()) out.geomean_speedup = std::exp(best / records.size());
  return out;
}

void Tuner::finish() {
  // Group this run's records by (domain, entry, precision); each group's winner (domain_winner).
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const MatrixRecord*>> groups;
  for (const auto& [hash, prec] : tuned_)
    if (const MatrixRecord* r = db_.find(hash, prec, to_string(options_.op)); r && !r->schedule_only.empty())
      groups[{r->domain, r->entry, r->precision}].push_back(r);
  for (const auto& [key, recs] : groups) {
    const DomainChoice choice = domain_winner(recs, options_.deterministic);
    if (choice.winner.empty()) continue;
    TuningDatabase::DomainRecord d;
    std::tie(d.domain, d.entry, d.precision) = key;
    d.op = to_string(options_.op);
    d.winner = choice.winner;
    d.geomean_speedup = choice.geomean_speedup;
    for (const MatrixRecord* r : recs) d.matrices.push_back(r->name);
    db_.set_domain(d);
  }
  db_.save();
}

}  // namespace jitsparse
