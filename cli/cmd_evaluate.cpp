// jitsparse evaluate: leave-one-out (and leave-one-family-out) over this GPU's tuning database, for the
// selection model, quick tuning, the rule of thumb and the old nearest-winner selection. On the GPU it
// first times what the predictors chose but the staged search never timed, and cuSPARSE's best form.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <boost/program_options.hpp>

#include "bench/cusparse_baseline.hpp"
#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "core/random_matrix.hpp"
#include "runtime/context.hpp"
#include "runtime/device_info.hpp"
#include "selection/database.hpp"
#include "tuner/builtin_matrices.hpp"
#include "tuner/evaluate.hpp"
#include "tuner/quick_tune.hpp"
#include "tuner/report.hpp"
#include "tuner/tuner.hpp"

namespace jitsparse::cli {
namespace {

// Where the records' matrices come from: the built-in sets by name, and the given files and folders.
std::map<std::string, MatrixSource> sources_by_name(const std::vector<std::string>& paths, const std::string& entry) {
  std::map<std::string, MatrixSource> out;
  for (const char* which : {"all", "train", "irregular"}) {
    std::vector<MatrixSource> set;
    try {
      set = matrix_sources({}, entry, which);
    } catch (const InvalidArgument&) {
      continue;  // a set this build does not have
    }
    for (auto& s : set) out.emplace(s.name, s);
  }
  if (!paths.empty())
    for (auto& s : matrix_sources(paths, entry, "all")) out[s.name] = s;
  return out;
}

// What the evaluation times on the GPU before it scores: the variants each matrix's records lack (per
// precision), asked again after each measurement, since quick tuning's next round is known only once the
// one before is timed; and cuSPARSE's best form of every evaluated matrix.
using MissingFor = std::function<std::map<Precision, std::vector<Variant>>(const std::string& hash)>;
struct GpuWork {
  std::set<std::string> hashes;  // the matrices with variants to time
  MissingFor missing;
  bool cusparse = true;
  // --budget: no matrix is started after this (what was timed stays in the database; a rerun goes on)
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

bool past(const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  return deadline && std::chrono::steady_clock::now() >= *deadline;
}

// Rebuilds or reads each matrix once, checks it is the one tuned, times what `work` asks, round after
// round while the matrix is at hand (a pass per round over every matrix built each one again), and
// returns the best cuSPARSE time per (hash, precision).
std::map<std::pair<std::string, std::string>, double> time_on_gpu(Context& ctx, TuningDatabase& db,
                                                                  const EvaluationOptions& o, const GpuWork& work,
                                                                  const std::map<std::string, MatrixSource>& sources) {
  std::map<std::string, std::string> names;  // hash -> name of the matrices with work
  for (const MatrixRecord* r : db.records())
    if (r->complete && r->search == "full" && r->op == to_string(o.op) && (work.cusparse || work.hashes.count(r->hash)))
      names[r->hash] = r->name;
  TuneOptions to;
  to.op = o.op;
  to.deterministic = o.deterministic;
  to.progress = false;
  Tuner tuner(ctx, db, to);
  std::map<std::pair<std::string, std::string>, double> cusparse_us;
  size_t done = 0;
  for (const auto& [hash, name] : names) {
    if (past(work.deadline)) {
      std::cerr << "budget reached: " << names.size() - done << " of " << names.size()
                << " matrices not timed in this pass (what was timed is in the database: run again to go on)\n";
      break;
    }
    ++done;
    const auto src = sources.find(name);
    if (src == sources.end()) {
      std::cerr << "  " << name << ": not a built-in matrix and not among the given files: nothing timed\n";
      continue;
    }
    const HostMatrix a = src->second.load();
    if (!is_key_of(a, hash)) {  // a record under the legacy key (tune moves it) is checked with the legacy hash
      std::cerr << "  " << name << ": the matrix of that name differs from the one tuned: nothing timed\n";
      continue;
    }
    std::cerr << "[" << done << "/" << names.size() << "] " << name << "\n";
    // Each round of quick tuning, then the next it asks for: kQuickSteps of them at most, and one more for
    // the other predictors' variants.
    for (int round = 0; round <= kQuickSteps && work.hashes.count(hash); ++round) {
      const auto missing = work.missing(hash);
      if (missing.empty()) break;
      tuner.measure_variants(a, src->second.domain, missing);
    }
    if (!work.cusparse) continue;
    BaselineOptions bo;
    bo.op = o.op;
    bo.device = ctx.device().ordinal;
    const auto x = random_vector(is_transposed(o.op) ? a.rows : a.cols, a.vector_components(), 12345);
    for (Precision p : {Precision::f32, Precision::f64}) {
      const MatrixRecord* record = db.find(hash, to_string(p), to_string(o.op));
      if (!record) continue;
      // Timed as the record's variants were: in CUDA graphs there (MatrixRecord::timing), else back to back.
      const bool graph = record->timing == "graph";
      bo.graph_calls = graph ? to.graph_calls : 0;
      for (const auto& b : run_cusparse_baselines(a, p, x, bo)) {
        if (!b.ok() || (graph && b.graph_status != "ok")) continue;
        const double us = graph ? b.graph_median_us : b.median_us;
        auto [it, fresh] = cusparse_us.emplace(std::make_pair(hash, to_string(p)), us);
        if (!fresh) it->second = std::min(it->second, us);
      }
    }
  }
  return cusparse_us;
}

void print_rows(const std::string& holdout, const std::vector<EvaluationRow>& rows) {
  auto rel = [](const PredictorResult& p) {
    return p.relative ? std::to_string(*p.relative).substr(0, 5) + "x" : p.status.substr(0, 9);
  };
  std::printf("\n%s\n%-34s %-4s %9s %8s %6s %10s %8s %8s %10s\n", holdout_title(holdout).c_str(), "matrix", "prec",
              "best us", "model", "conf", "quick (k)", "rule", "nearest", "cuSPARSE");
  for (const auto& r : rows)
    std::printf("%-34s %-4s %9.2f %8s %6.2f %7s(%2d) %8s %8s %10s\n", r.matrix.substr(0, 34).c_str(),
                r.precision.c_str(), r.best_us, rel(r.model).c_str(), r.confidence, rel(r.quick).c_str(), r.quick_k,
                rel(r.rule).c_str(), rel(r.nearest_winner).c_str(),
                r.cusparse_us ? (std::to_string(*r.cusparse_us).substr(0, 8) + "us").c_str() : "-");
  const auto s = evaluation_summary(rows);
  std::printf("%-16s %7s %11s %10s %10s %8s\n", "predictor", "timed", "within 10%", "within 3%", "geomean", "worst");
  for (const char* p : {"model", "quick", "rule_of_thumb", "nearest_winner"}) {
    const auto& j = s[p];
    if (j.value("timed", 0) == 0) {
      std::printf("%-16s %7d %11s\n", p, 0, "-");
      continue;
    }
    std::printf("%-16s %7d %10.0f%% %9.0f%% %9.3fx %7.3fx\n", p, j["timed"].get<int>(),
                100 * j["share_within_10_percent"].get<double>(), 100 * j["share_within_3_percent"].get<double>(),
                j["geomean_relative"].get<double>(), j["worst_relative"].get<double>());
  }
  if (s.contains("quick_share_of_full_gpu_time"))
    std::printf("quick tuning measured for %.1f s of the full searches' %.1f s of GPU timing (%.1f%%)\n",
                s["quick_seconds"].get<double>(), s["full_seconds"].get<double>(),
                100 * s["quick_share_of_full_gpu_time"].get<double>());
  if (s["cusparse_compared"].get<int>() > 0)
    std::printf("model's choice slower than cuSPARSE's best where a tuned variant is faster: %d of %d\n",
                s["model_slower_than_cusparse_where_tuned_is_faster"].get<int>(), s["cusparse_compared"].get<int>());
}

}  // namespace

int run_evaluate(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse evaluate [matrices or folders...] [options]\n\n"
      "Leave-one-out over this GPU's tuning database: each fully tuned matrix is hidden in turn and the\n"
      "selection model predicts for it from the others (--holdout family hides its whole domain). Prints,\n"
      "per matrix, the time of the model's choice (made as run-time selection makes it), of quick tuning\n"
      "(its rounds, --quick-plan; the k column counts what it measured) and of the rule of thumb over\n"
      "the exhaustive best, and the shares within 10% and 3%. On the GPU, variants\n"
      "a predictor chose that the staged search never timed are measured first (the matrices are rebuilt\n"
      "from the built-in sets by name, or read from the given files), and so is cuSPARSE's best form.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the given matrix files")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("holdout", po::value<std::string>()->default_value("both"),
       "matrix, family, both (the two), or main: learn from the main job's built-in set only, predict for "
       "every other matrix")
      ("op", po::value<std::string>()->default_value("n"), "the product evaluated: n, t or h")
      ("deterministic", "only variants whose result bits never change")
      ("neighbours", po::value<int>()->default_value(5), "tuned matrices the model consults")
      ("quick-k", po::value<int>()->default_value(0), "groups (or layout pairs) of quick tuning's first round (0: the plan's default, 5 or 16)")
      ("quick-plan", po::value<std::string>()->default_value("groups"), "quick tuning's plan: groups or pairs (tune --help says what each does)")
      ("no-quick-grid", "quick tuning without its schedule grid rounds around the fastest")
      ("no-quick-timing", "on the GPU, time the first choices (model, rule of thumb, nearest winner) only, not what quick tuning's rounds lack (they take most of the time on many matrices)")
      ("no-measure", "time nothing: predictions the search never timed are reported as not timed")
      ("no-cusparse", "do not time cuSPARSE")
      ("budget", po::value<std::string>(), "stop timing after this long (e.g. 7m) and score what is timed; a rerun goes on from the database")
      ("database", po::value<std::string>(), "a tuning database file, read only (implies --no-measure)")
      ("output,o", po::value<std::string>()->default_value("jitsparse-report"), "folder for evaluate.html and evaluate.json")
      ("device", po::value<int>()->default_value(0), "GPU ordinal");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::string holdout = vm["holdout"].as<std::string>();
  if (holdout != "matrix" && holdout != "family" && holdout != "both" && holdout != "main")
    throw InvalidArgument("--holdout '" + holdout + "' (expected matrix, family, both or main)");
  EvaluationOptions base;
  base.op = parse_op(vm["op"].as<std::string>());
  base.deterministic = vm.count("deterministic") > 0;
  base.neighbours = vm["neighbours"].as<int>();
  if (base.neighbours < 1) throw InvalidArgument("--neighbours must be at least 1");
  base.quick_pairs = vm["quick-k"].as<int>();
  base.quick_plan = parse_quick_plan_kind(vm["quick-plan"].as<std::string>());
  base.quick_grid = !vm.count("no-quick-grid");
  base.time_quick = !vm.count("no-quick-timing");
  if (base.quick_pairs < 0) throw InvalidArgument("--quick-k must be 0 (the default) or more");
  const bool offline = vm.count("database") > 0;
  const bool measure = !offline && !vm.count("no-measure");
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (vm.count("budget"))
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(parse_duration(vm["budget"].as<std::string>())));

  std::unique_ptr<Context> ctx;
  std::unique_ptr<TuningDatabase> db;
  DeviceInfo gpu;
  if (offline) {
    const std::string path = vm["database"].as<std::string>();
    if (!std::filesystem::exists(path)) throw InvalidArgument("no tuning database at " + path);
    db = std::make_unique<TuningDatabase>(path);
    gpu = described_device(db->l2_bytes());  // read offline
  } else {
    ctx = std::make_unique<Context>(vm["device"].as<int>());
    gpu = ctx->device();
    db = std::make_unique<TuningDatabase>(gpu, ctx->cache_root());
  }
  if (!db->warning().empty()) std::cerr << "jitsparse evaluate: " << db->warning() << "\n";
  base.l2_bytes = gpu.l2_bytes;
  base.limits = schedule_limits(gpu);

  // Every prediction is made from the database as it is now, before anything is measured.
  std::vector<std::pair<std::string, Evaluation>> runs;
  for (const std::string h : {"matrix", "family", "main"})
    if (holdout == h || holdout == "both") {
      EvaluationOptions o = base;
      o.holdout = h;
      runs.emplace_back(h, Evaluation(*db, o));
    }

  std::map<std::pair<std::string, std::string>, double> cusparse_us;  // (hash, precision) -> best
  if (ctx) {
    const auto sources = sources_by_name(positional_values(vm, "matrix"), vm["entry"].as<std::string>());
    GpuWork work;
    // What the evaluations lack on one matrix, from the database as measured so far.
    work.missing = [&](const std::string& hash) {
      std::map<Precision, std::vector<Variant>> out;
      for (const auto& [h, ev] : runs)
        for (const auto& m : ev.missing(*db, hash))
          for (const auto& v : m.variants) {
            auto& list = out[parse_precision(m.precision)];
            const Variant parsed_v = Variant::parse(v);
            if (std::find(list.begin(), list.end(), parsed_v) == list.end()) list.push_back(parsed_v);
          }
      return out;
    };
    if (measure)
      for (const auto& [h, ev] : runs)
        for (const auto& m : ev.missing(*db)) work.hashes.insert(m.hash);
    work.cusparse = !vm.count("no-cusparse");
    work.deadline = deadline;
    std::cerr << "timing the predictions the search never timed, quick tuning round by round ("
              << work.hashes.size() << " matrices)" << (work.cusparse ? " and cuSPARSE" : "") << "\n";
    cusparse_us = time_on_gpu(*ctx, *db, base, work, sources);
  }

  nlohmann::json holdouts = nlohmann::json::array();
  for (const auto& [h, ev] : runs) {
    std::vector<EvaluationRow> rows = ev.rows(*db);
    for (auto& r : rows)
      if (auto it = cusparse_us.find({r.hash, r.precision}); it != cusparse_us.end()) r.cusparse_us = it->second;
    print_rows(h, rows);
    EvaluationOptions o = base;
    o.holdout = h;
    holdouts.push_back(evaluation_document(rows, o));
  }
  const std::string out = vm["output"].as<std::string>();
  std::filesystem::create_directories(out);
  nlohmann::json doc = {{"tool", "jitsparse " JITSPARSE_VERSION},
                        {"gpu", {{"name", gpu.name}, {"arch", gpu.arch()}, {"l2_bytes", gpu.l2_bytes}}},
                        {"database", db->path()},
                        {"op", to_string(base.op)},
                        {"neighbours", base.neighbours},
                        {"measured", measure},
                        {"holdouts", holdouts}};
  write_file_atomically(out + "/evaluate.json", doc.dump(1));
  write_evaluate_report_html(doc, out + "/evaluate.html");
  std::cout << "\nresults: " << out << "/evaluate.html, evaluate.json\n";
  return 0;
}

}  // namespace jitsparse::cli
