// jitsparse bench: the tuned variant of this GPU against every cuSPARSE path a user would try, timed the
// same way in the same process, all checked against the CPU reference.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <boost/program_options.hpp>

#include "bench/cusparse_baseline.hpp"
#include "bench/empty_kernel.hpp"
#include "bench/stream_bandwidth.hpp"
#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "core/random_matrix.hpp"
#include "core/yardstick.hpp"
#include "runtime/context.hpp"
#include "runtime/gpu_timer.hpp"
#include "runtime/l2_flush.hpp"
#include "runtime/spmv.hpp"
#include "tuner/gpu_check.hpp"
#include "tuner/report.hpp"
#include "selection/select.hpp"
#include "tuner/tuner.hpp"


namespace jitsparse::cli {
namespace {

nlohmann::json row(const std::string& matrix, const HostMatrix& a, Precision p, const std::string& method,
                   bool ours, const std::string& status, double us, double gbps, double stream_gbps) {
  nlohmann::json r = {{"matrix", matrix}, {"entry", a.entry.name}, {"precision", to_string(p)},
                      {"rows", a.rows}, {"cols", a.cols}, {"nnz", a.nnz()},
                      {"method", method}, {"is_jitsparse", ours}, {"status", status}};
  if (status == "ok") {
    r["median_us"] = us;
    r["gbps"] = gbps;
    r["fraction_of_stream"] = stream_gbps > 0 ? nlohmann::json(gbps / stream_gbps) : nullptr;
  } else {
    r["median_us"] = nullptr;
    r["gbps"] = nullptr;
    r["fraction_of_stream"] = nullptr;
  }
  r["speedup_vs_best_cusparse"] = nullptr;
  return r;
}

// Bytes per second of what the method itself moves: its matrix as stored on the GPU (padding, expanded
// blocks, a transposed copy) plus x and y once; beside the compulsory-bytes figure every method shares.
void add_own_bandwidth(nlohmann::json& r, int64_t device_bytes, const HostMatrix& a, Precision p) {
  r["device_bytes"] = device_bytes;
  const double vectors = static_cast<double>(a.rows + a.cols) * a.vector_components() * scalar_bytes(p);
  if (r["status"] == "ok") r["own_gbps"] = effective_gbps(static_cast<double>(device_bytes) + vectors, r["median_us"].get<double>());
}

// Every sample and their quartiles (the spread a reader needs beside the median).
void add_samples(nlohmann::json& r, const std::vector<double>& samples_us) {
  r["samples_us"] = samples_us;
  r["q1_us"] = quantile(samples_us, 0.25);
  r["q3_us"] = quantile(samples_us, 0.75);
}

// --graph: calls per CUDA graph (enough that one graph launch's host cost is spread thin; a 5 us SpMV
// makes a 0.5 ms graph).
constexpr int kGraphCalls = 100;

// --graph: the row's time per call inside a CUDA graph, or why there is none ("unavailable: ...",
// "skipped: ...").
void add_graph(nlohmann::json& r, const std::string& status, const TimingResult* t = nullptr) {
  r["graph_status"] = status;
  r["graph_us"] = t ? nlohmann::json(t->median_us) : nlohmann::json(nullptr);
  if (!t) return;
  r["graph_q1_us"] = t->q1_us;
  r["graph_q3_us"] = t->q3_us;
  r["graph_samples_us"] = t->samples_us;
}

// The empty kernel's launch floor as stored in bench.json (bench/empty_kernel.hpp).
nlohmann::json floor_json(const EmptyKernelFloor& f) {
  nlohmann::json j = {{"status", f.status}, {"calls_per_graph", f.calls_per_graph}};
  if (f.status != "ok") return j;
  j["single_us"] = f.single_us;
  j["single_q1_us"] = f.single_q1_us;
  j["single_q3_us"] = f.single_q3_us;
  j["single_samples_us"] = f.single_samples_us;
  j["graph_status"] = f.graph_status;
  if (f.graph_status == "ok") {
    j["graph_us"] = f.graph_us;
    j["graph_q1_us"] = f.graph_q1_us;
    j["graph_q3_us"] = f.graph_q3_us;
    j["graph_samples_us"] = f.graph_samples_us;
  }
  return j;
}

// One console row of the method table; with --graph a "graph us" column before the speedup.
void print_row(const nlohmann::json& r, bool graph) {
  const std::string median =
      r["median_us"].is_null() ? "-" : std::to_string(r["median_us"].get<double>()).substr(0, 9);
  const std::string gbps = r["gbps"].is_null() ? "-" : std::to_string(static_cast<int>(r["gbps"].get<double>()));
  const std::string own = r.contains("own_gbps") ? std::to_string(static_cast<int>(r["own_gbps"].get<double>())) : "-";
  const std::string share =
      r["fraction_of_stream"].is_null() ? "-" : std::to_string(r["fraction_of_stream"].get<double>()).substr(0, 5);
  const std::string speedup = r["speedup_vs_best_cusparse"].is_null()
                                  ? ""
                                  : "x" + std::to_string(r["speedup_vs_best_cusparse"].get<double>()).substr(0, 5);
  const std::string method = r["method"].get<std::string>().substr(0, 64);
  const std::string status = r["status"].get<std::string>().substr(0, 10);
  if (!graph) {
    std::printf("%-22s %-4s %-64s %-10s %10s %8s %8s %6s %s\n", r["matrix"].get<std::string>().c_str(),
                r["precision"].get<std::string>().c_str(), method.c_str(), status.c_str(), median.c_str(), gbps.c_str(),
                own.c_str(), share.c_str(), speedup.c_str());
    return;
  }
  const std::string graph_us = r.contains("graph_us") && r["graph_us"].is_number()
                                   ? std::to_string(r["graph_us"].get<double>()).substr(0, 9)
                                   : "-";
  std::printf("%-22s %-4s %-64s %-10s %10s %8s %8s %6s %10s %s\n", r["matrix"].get<std::string>().c_str(),
              r["precision"].get<std::string>().c_str(), method.c_str(), status.c_str(), median.c_str(), gbps.c_str(),
              own.c_str(), share.c_str(), graph_us.c_str(), speedup.c_str());
}

// The matrix packed for the last variant timed, kept for the next one of the same layout, ordering and
// kind: a list of --variant schedules of one layout packs it once (packing a large hisparse tree takes
// seconds, the product microseconds).
struct LastPacked {
  std::string key;
  std::optional<DeviceMatrix> matrix;
  // permutation: the renumbering run-time selection computed (Selection::permutation), or null
  const DeviceMatrix& get(Context& ctx, const HostMatrix& a, const Variant& v, const std::vector<int32_t>* permutation) {
    const std::string k = a.name + "|" + v.layout.name() + "|" + to_string(v.precision) + "|" + to_string(v.ordering) +
                          (v.uses_transposed_copy() ? "|transposed" : "");
    if (k != key || !matrix) {
      matrix.reset();  // the old one's device memory first
      key.clear();
      matrix.emplace(DeviceMatrix::for_variant(ctx, a, v, permutation));
      key = k;
    }
    return *matrix;
  }
};

// Our variant on one matrix and precision: verified on the GPU, then timed the full way (and, with
// graph_calls > 0, again as graph_calls launches in a CUDA graph).
nlohmann::json time_ours(Context& ctx, const HostMatrix& a, Precision p, const Selection& sel,
                         const TimingOptions& timing, double stream_gbps, LastPacked& packed, int graph_calls = 0) {
  const Variant& v = sel.variant;
  const std::string method = "jitsparse " + v.name() + " (" + sel.level + ")";
  const int64_t x_len = is_transposed(v.op) ? a.rows : a.cols, y_len = is_transposed(v.op) ? a.cols : a.rows;
  try {
    const DeviceMatrix& da = packed.get(ctx, a, v, sel.permutation.get());
    const auto x = random_vector(x_len, a.vector_components(), 12345);
    DeviceVector dx(ctx, x_len, a.vector_components(), v.layout.vector, p);
    DeviceVector dy(ctx, y_len, a.vector_components(), v.layout.vector, p);
    dx.upload(x);
    SpmvLaunch launch(ctx, v, da, dx, dy);
    launch.launch();
    dy.poison();
    launch.launch();
    GpuCheck check(ctx, a, x, v.op);
    const std::string wrong = check.check(dy);
    if (!wrong.empty()) return row(a.name, a, p, method, true, "wrong: " + wrong, 0, 0, stream_gbps);
    const TimingResult t = time_on_stream(ctx.stream(), [&] { launch.launch(); }, timing);
    auto r = row(a.name, a, p, method, true, "ok", t.median_us, effective_gbps(compulsory_bytes(a, p), t.median_us), stream_gbps);
    add_samples(r, t.samples_us);
    add_own_bandwidth(r, da.bytes(), a, p);
    if (graph_calls > 0) {
      try {
        const TimingResult g = time_in_graph(ctx.stream(), [&] { launch.launch(); }, graph_calls, timing);
        add_graph(r, "ok", &g);
      } catch (const std::exception& e) {
        add_graph(r, std::string("unavailable: ") + e.what());
      }
    }
    r["variant"] = v.name();
    r["selection"] = sel.level;
    r["deterministic"] = v.deterministic();
    return r;
  } catch (const Error& e) {
    return row(a.name, a, p, method, true, std::string("error: ") + e.what(), 0, 0, stream_gbps);
  }
}

// The fastest measured variant of a layout ("hola": any hola-*-*) in this matrix's record. If none was
// measured: for hisparse, the tuner's stage-one setup of that layout (hisparse64c2 for "hisparse"), so
// the format can be benchmarked for an operation nobody tuned; else the selection as it was.
Selection best_of_layout(const TuningDatabase& db, const HostMatrix& a, Precision p, Op op, const std::string& layout,
                         const Selection& fallback, const DeviceInfo& device) {
  const MatrixRecord* r = db.find_matrix(a, to_string(p), to_string(op));
  const MeasurementRecord* best = nullptr;
  if (r)
    for (const auto& m : r->measurements) {
      if (!m.ok()) continue;
      const Variant v = Variant::parse(m.variant);
      const bool any_hisparse = layout == "hisparse" && v.layout.outer == OuterLayout::hisparse;
      if (v.layout.name() != layout && v.layout.outer_name() != layout && !any_hisparse) continue;
      if (!best || m.median_us < best->median_us) best = &m;
    }
  if (!best && layout.rfind("hisparse", 0) == 0) {
    TuneOptions o;
    o.op = op;
    o.hisparse_layouts = {layout == "hisparse"                    ? std::string("hisparse64c2-aos-aos")
                          : layout.find('-') == std::string::npos ? layout + "-aos-aos"
                                                                  : layout};
    for (const Variant& v : stage_one_variants(a.entry, p, o, schedule_limits(device)))
      if (v.layout.outer == OuterLayout::hisparse) {
        std::cerr << "jitsparse bench: no " << layout << " variant tuned for " << a.name << " " << to_string(p)
                  << " op " << to_string(op) << "; using the tuner's first setup " << v.name() << "\n";
        return {v, "hisparse stage one", "the tuner's first hisparse setup (not tuned on this matrix)"};
      }
  }
  if (!best) {
    std::cerr << "jitsparse bench: no " << layout << " variant tuned for " << a.name << " " << to_string(p)
              << "; using " << fallback.variant.name() << "\n";
    return fallback;
  }
  return {Variant::parse(best->variant), "best " + layout, "the fastest tuned " + layout + " variant"};
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse bench [matrices or folders...] [options]\n\n"
      "For each matrix (files, folders, or the built-in set) and precision: the tuned variant of this GPU\n"
      "against cuSPARSE (CSR ALG1/ALG2 and sliced ELL; BSR generic and legacy, row- and column-major blocks, and\n"
      "CSR of the expanded real matrix for blocks and quaternions), timed the same way (CUDA events, median), each\n"
      "checked against the CPU reference. Matrices not tuned yet are tuned first (see --no-tune).\n"
      "'folder@complex' gives a folder its own entry type. --reorder rcm (or degree) benchmarks each square\n"
      "matrix twice: as it is and renumbered by reverse Cuthill-McKee ('<name>@rcm'; by decreasing degree:\n"
      "'<name>@degree'), in rows of their own.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the matrix files")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("precision,p", po::value<std::string>()->default_value("both"), "f32, f64 or both")
      ("builtin", po::value<std::string>()->default_value("all"), "without matrices: small, tiny, large or all built-in matrices, train, irregular (large irregular ones), or one built-in matrix by name (jitsparse generate --list)")
      ("no-tune", "do not tune untuned matrices: use the selection model's first choice (or the domain winner, or the default)")
      ("op", po::value<std::string>()->default_value("n"), "the product: n (A x), t (A^T x) or h (A^H x)")
      ("deterministic", "ours: only variants whose result bits never change")
      ("layout", po::value<std::string>(), "ours: the fastest tuned variant of this layout (e.g. hola, csr, hola-aos-aos, hisparse, hisparse64c2) instead of the winner")
      ("variant", po::value<std::vector<std::string>>(), "ours: this variant (its entry type and precision must match: "
       "e.g. real.f32/ell-aos-aos-d16/static-512x4, or one ending in @rcm or @degree, with -ymove after it for y moved back) instead of the tuned one; repeatable, "
       "each gets a row; implies --no-tune")
      ("reorder", po::value<std::string>()->default_value("none"), kReorderHelp)
      ("samples", po::value<int>(), "timing samples per method, median reported (default 9 warm, 51 cold)")
      ("l2", po::value<std::string>()->default_value("warm"),
       "warm: back-to-back launches (a matrix that fits in L2 is partly served from it); cold: a buffer of "
       "twice the L2 is read before every sample, one launch per sample, for every method and the stream probe")
      ("graph", "also time every method (ours and each cuSPARSE one) as 100 back-to-back calls captured in a CUDA "
       "graph, per call ('graph us'), on matrices whose compulsory bytes fit in the L2 (larger ones are "
       "not launch-bound), and print an empty kernel's launch time, single and in a graph, as the floor")
      ("output,o", po::value<std::string>()->default_value("jitsparse-bench"), "folder for bench.html, bench.json, bench.jsonl")
      ("device", po::value<int>()->default_value(0), "GPU ordinal")
      ("quiet,q", "no progress line while tuning");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::vector<Precision> precisions = parse_precisions(vm["precision"].as<std::string>());
  MatrixQueue matrices(matrix_sources(positional_values(vm, "matrix"), vm["entry"].as<std::string>(),
                                      vm["builtin"].as<std::string>()),
                       parse_reorder_option(vm["reorder"].as<std::string>()));
  const std::string l2_mode = vm["l2"].as<std::string>();
  if (l2_mode != "warm" && l2_mode != "cold")
    throw InvalidArgument("--l2 must be warm or cold, got '" + l2_mode + "'");
  const bool cold = l2_mode == "cold";
  TimingOptions timing;
  timing.samples = vm.count("samples") ? vm["samples"].as<int>() : cold ? 51 : 9;
  if (timing.samples < 1) throw InvalidArgument("--samples must be at least 1");
  const Op op = parse_op(vm["op"].as<std::string>());
  const bool deterministic = vm.count("deterministic") > 0;
  const bool graph = vm.count("graph") > 0;
  std::vector<Variant> given;  // --variant
  if (vm.count("variant"))
    for (const auto& name : vm["variant"].as<std::vector<std::string>>()) given.push_back(Variant::parse(name));
  if (!given.empty() && vm.count("layout")) throw InvalidArgument("--variant and --layout both say which variant: give one");

  const std::time_t start_time = std::time(nullptr);
  char started[32];
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&start_time));
  Context ctx(vm["device"].as<int>());
  TuningDatabase db(ctx.device(), ctx.cache_root());
  const std::string out = vm["output"].as<std::string>();
  std::filesystem::create_directories(out);

  std::unique_ptr<L2Flush> flush;
  if (cold) {
    flush = std::make_unique<L2Flush>(ctx);
    timing.before_each = [f = flush.get()](cudaStream_t s) { (*f)(s); };
  }
  StreamBandwidthOptions so;
  so.device = ctx.device().ordinal;
  so.timing.samples = timing.samples;
  so.timing.before_each = timing.before_each;  // the yardstick measured like every method
  const StreamBandwidthResult stream = measure_stream_bandwidth(so);
  const double stream_gbps = std::max(stream.copy_gbps, stream.read_gbps);
  std::cout << "stream bandwidth on " << ctx.device().name << ": copy " << stream.copy_gbps << " GB/s, read "
            << stream.read_gbps << " GB/s; cuSPARSE " << cusparse_version_string() << "\n"
            << (cold ? "timing: L2 cold (" + std::to_string(flush->bytes() >> 20) +
                           " MiB read before every sample, one launch per sample; " + std::to_string(timing.samples) +
                           " samples, median)"
                     : "timing: L2 warm (back-to-back launches, median of " + std::to_string(timing.samples) +
                           " samples: a matrix that fits in L2 is partly served from it, so the share of stream "
                           "is not a bandwidth share; use --l2 cold)")
            << "\n";
  EmptyKernelFloor launch_floor;
  if (graph) {
    launch_floor = measure_empty_kernel_floor(ctx.device().ordinal, timing, kGraphCalls);
    std::printf("graph us: time per call of %d calls in one CUDA graph (always L2 warm), for matrices whose "
                "compulsory bytes fit in the L2 (%lld MiB)\n",
                kGraphCalls, ctx.device().l2_bytes >> 20);
    if (launch_floor.status != "ok") {
      std::printf("launch floor (empty kernel): %s\n", launch_floor.status.c_str());
    } else {
      char in_graph[128];
      std::snprintf(in_graph, sizeof in_graph, "%.2f us per launch (q1 %.2f, q3 %.2f)", launch_floor.graph_us,
                    launch_floor.graph_q1_us, launch_floor.graph_q3_us);
      std::printf("launch floor (empty kernel, 1 block of 32 threads): single launch %.2f us (q1 %.2f, q3 %.2f); "
                  "in a graph %s\n",
                  launch_floor.single_us, launch_floor.single_q1_us, launch_floor.single_q3_us,
                  launch_floor.graph_status == "ok" ? in_graph : launch_floor.graph_status.c_str());
    }
  }

  // GB/s: compulsory bytes (the same for every method) per second; own: what the method itself moves.
  if (graph)
    std::printf("%-22s %-4s %-64s %-10s %10s %8s %8s %6s %10s %s\n", "matrix", "prec", "method", "status",
                "median us", "GB/s", "own GB/s", "stream", "graph us", "vs best cuSPARSE");
  else
    std::printf("%-22s %-4s %-64s %-10s %10s %8s %8s %6s %s\n", "matrix", "prec", "method", "status", "median us",
                "GB/s", "own GB/s", "stream", "vs best cuSPARSE");
  nlohmann::json rows = nlohmann::json::array();
  std::ofstream jsonl(out + "/bench.jsonl");
  TuneOptions tune_options;
  tune_options.precisions = precisions;
  tune_options.op = op;
  tune_options.deterministic = deterministic;
  tune_options.progress = !vm.count("quiet");
  Tuner tuner(ctx, db, tune_options);
  tuner.set_planned_matrices(matrices.planned());
  // A --variant list compiles in parallel up front, not one kernel per row (a sweep of 432 hisparse
  // schedules spent most of 10 minutes in NVRTC, one program at a time). A variant that does not compile
  // reports its error in its own row, when time_ours asks for its kernel again.
  if (!given.empty()) ctx.prepare(given);
  while (const LoadedMatrix* m = matrices.next()) {  // with --reorder rcm a reordered matrix follows its original
    const HostMatrix& a = m->matrix;
    if (!vm.count("no-tune") && given.empty()) tuner.tune(a, m->domain);
    for (Precision p : precisions) {
      if (!a.entry.supports(to_string(p))) continue;
      nlohmann::json group = nlohmann::json::array();
      Selection sel = select_variant(db, a, p, ctx.device(), op, deterministic, &ctx.builder());
      if (vm.count("layout")) sel = best_of_layout(db, a, p, op, vm["layout"].as<std::string>(), sel, ctx.device());
      // --graph: only where launch cost can matter (within the L2; DESIGN.md, Measuring).
      const bool graph_here = graph && graph_timed_size(compulsory_bytes(a, p), ctx.device().l2_bytes);
      const int graph_calls = graph_here ? kGraphCalls : 0;
      LastPacked packed;
      if (given.empty()) {
        group.push_back(time_ours(ctx, a, p, sel, timing, stream_gbps, packed, graph_calls));
      } else {
        bool any = false;
        for (const Variant& v : given)
          if (v.entry == a.entry.name && v.precision == p && v.op == op) {
            group.push_back(time_ours(ctx, a, p, {v, "given", "--variant", {}, {}}, timing, stream_gbps, packed, graph_calls));
            any = true;
          }
        if (!any)
          std::cerr << "jitsparse bench: no --variant of " << a.entry.name << " " << to_string(p) << " op "
                    << to_string(op) << " for " << a.name << ": cuSPARSE only\n";
      }
      BaselineOptions bo;
      bo.op = op;
      bo.timing = timing;
      bo.device = ctx.device().ordinal;
      bo.graph_calls = graph_calls;
      const auto x = random_vector(is_transposed(op) ? a.rows : a.cols, a.vector_components(), 12345);
      for (const auto& b : run_cusparse_baselines(a, p, x, bo)) {
        auto r = row(a.name, a, p, b.method, false, b.ok() ? "ok" : b.status + (b.detail.empty() ? "" : ": " + b.detail),
                     b.median_us, b.gbps, stream_gbps);
        if (b.ok()) {
          add_samples(r, b.samples_us);
          add_own_bandwidth(r, b.device_bytes, a, p);
        }
        if (b.setup_us > 0) r["setup_us"] = b.setup_us;  // explicit transposes: csr2csc once
        if (b.graph_status == "ok") {
          TimingResult g;
          g.median_us = b.graph_median_us;
          g.q1_us = b.graph_q1_us;
          g.q3_us = b.graph_q3_us;
          g.samples_us = b.graph_samples_us;
          add_graph(r, "ok", &g);
        } else if (!b.graph_status.empty()) {
          add_graph(r, b.graph_status);
        }
        group.push_back(r);
      }
      for (auto& r : group)  // --graph: every row says why it has no graph time
        if (graph && !r.contains("graph_status"))
          add_graph(r, graph_here ? "not timed: the method itself failed"
                                  : "skipped: compulsory bytes above the L2 size");
      double best_cusparse = 0;
      for (const auto& r : group)
        if (!r["is_jitsparse"].get<bool>() && r["status"] == "ok")
          best_cusparse = best_cusparse == 0 ? r["median_us"].get<double>() : std::min(best_cusparse, r["median_us"].get<double>());
      bool ours_ok = false;  // (several rows of ours with --variant)
      for (auto& ours : group) {
        if (!ours["is_jitsparse"].get<bool>()) continue;
        ours["op"] = to_string(op);
        if (ours["status"] != "ok") continue;
        ours_ok = true;
        if (best_cusparse > 0) ours["speedup_vs_best_cusparse"] = best_cusparse / ours["median_us"].get<double>();
        for (const auto& r : group)  // op t/h: cuSPARSE's own transposed product, beside the best of all
          if (r["method"] == "cusparse-csr-alg1-implicit" && r["status"] == "ok")
            ours["speedup_vs_implicit_transpose"] = r["median_us"].get<double>() / ours["median_us"].get<double>();
      }
      for (auto& r : group) {
        r["domain"] = m->domain;  // irregular-<family>, builtin-<family>, train-<family> or a folder's name
        if (!r["is_jitsparse"].get<bool>() && r["status"] == "ok" && ours_ok)
          r["speedup_vs_best_cusparse"] = nullptr;
        jsonl << r.dump() << "\n";
        rows.push_back(r);
        print_row(r, graph);
      }
      std::fflush(stdout);
    }
  }
  const DeviceInfo& d = ctx.device();
  nlohmann::json doc = {{"tool", "jitsparse " JITSPARSE_VERSION},
                        {"started", started},
                        {"gpu", {{"name", d.name}, {"arch", d.arch()}, {"sm_count", d.sm_count}, {"driver_version", d.driver_version}}},
                        {"cusparse_version", cusparse_version_string()},
                        {"stream", {{"copy_gbps", stream.copy_gbps}, {"read_gbps", stream.read_gbps}, {"bytes", stream.bytes}}},
                        {"timing", {{"l2", l2_mode}, {"samples", timing.samples},
                                    {"flush_bytes", flush ? flush->bytes() : 0},
                                    {"launches_per_sample", cold ? "1" : "as many as fill 3 ms"}}},
                        {"rows", rows}};
  if (graph) {
    doc["timing"]["graph"] = {{"calls_per_graph", kGraphCalls},
                              {"below_bytes", d.l2_bytes},
                              {"applies_to", "matrices whose compulsory bytes fit in the L2"},
                              {"l2", "warm (back-to-back calls in the graph, no flush)"}};
    doc["empty_kernel"] = floor_json(launch_floor);
  }
  write_file_atomically(out + "/bench.json", doc.dump(1));
  write_bench_report_html(doc, out + "/bench.html");
  std::cout << "\nresults: " << out << "/bench.html, bench.json, bench.jsonl (one JSON line per row)\n";
  std::printf("\n%-22s %-4s %10s %8s %7s %10s %8s %s\n", "matrix", "prec", "ours us", "GB/s", "stream", "cuSPARSE", "GB/s", "speedup (best cuSPARSE method)");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (!r["is_jitsparse"].get<bool>()) continue;
    const nlohmann::json* best = nullptr;
    size_t first = i + 1;  // this group's cuSPARSE rows follow its rows of ours
    while (first < rows.size() && rows[first]["is_jitsparse"].get<bool>()) ++first;
    for (size_t k = first; k < rows.size() && !rows[k]["is_jitsparse"].get<bool>(); ++k)
      if (rows[k]["status"] == "ok" && (!best || rows[k]["median_us"].get<double>() < (*best)["median_us"].get<double>())) best = &rows[k];
    std::printf("%-22s %-4s %10.2f %8.0f %6.0f%% %10.2f %8.0f %s\n", r["matrix"].get<std::string>().c_str(),
                r["precision"].get<std::string>().c_str(), r["median_us"].is_null() ? 0.0 : r["median_us"].get<double>(),
                r["gbps"].is_null() ? 0.0 : r["gbps"].get<double>(),
                r["fraction_of_stream"].is_null() ? 0.0 : 100 * r["fraction_of_stream"].get<double>(),
                best ? (*best)["median_us"].get<double>() : 0.0, best ? (*best)["gbps"].get<double>() : 0.0,
                r["speedup_vs_best_cusparse"].is_null() ? "n/a" : (std::to_string(r["speedup_vs_best_cusparse"].get<double>()).substr(0, 5) + "x (" + (best ? (*best)["method"].get<std::string>() : "") + ")").c_str());
  }
  return 0;
}

}  // namespace jitsparse::cli
