// jitsparse tune: the main job. Searches layouts and schedules on the user's matrices (or the built-in
// set), records everything in this GPU's tuning database and writes an HTML + JSON report.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>

#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "runtime/context.hpp"
#include "tuner/report.hpp"
#include "tuner/tuner.hpp"


namespace jitsparse::cli {

int run_tune(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse tune [matrices or folders...] [options]\n\n"
      "Searches layout and schedule jointly for each matrix on this GPU, verifies every variant against the\n"
      "CPU reference, stores the results in the tuning database and writes a report. With no matrices it\n"
      "tunes the built-in domain set (Dirac operator, elasticity, Helmholtz, Laplacian: a small and a large\n"
      "regular mesh and an irregular matrix each, and an R-MAT graph).\n"
      "A matrix that fits in the L2 stays there between products: its layouts are first compared with cached\n"
      "loads (and 16-bit column offsets where they fit), a larger one's with evict-first loads; the last\n"
      "stage tries the other load policy, narrowness and unrolling on the fastest. A first-stage kernel\n"
      "that spills registers (2048 threads per SM leave 32 each) is also timed with half the blocks per SM;\n"
      "quaternion f64 (vector elements of 32 bytes or more), which always spilled there, starts at 1024.\n"
      "A folder is a domain set: its .mtx files share the entry type. A square matrix whose entries lie far\n"
      "from the diagonal on average is also timed renumbered: by reverse Cuthill-McKee (variants ending in\n"
      "@rcm), or, where its rows are skewed (a graph), most connected vertices first (@degree); x and y move\n"
      "through the permutation in every product, so callers keep their numbering. Last, the three fastest\n"
      "static row variants are timed with the grid cut to the same number of row chunks per block ('-even').\n"
      "--reorder rcm|degree instead tunes a renumbered copy as a matrix of its own ('<name>@rcm'), for\n"
      "solvers that stay in that numbering.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the matrix files (real, complex, quaternion, block3, ... or a JSON-defined one)")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("precision,p", po::value<std::string>()->default_value("both"), "f32, f64 or both")
      ("mode", po::value<std::string>()->default_value("joint"), "joint (layout and schedule) or schedule (csr-aos-aos only)")
      ("op", po::value<std::string>()->default_value("n"), "the product: n (A x), t (A^T x) or h (A^H x); tuned and recorded apart")
      ("deterministic", "only variants whose result bits never change (no floating-point atomics: op t/h by a transposed copy, no hola)")
      ("builtin", po::value<std::string>()->default_value("all"), "without matrices: small, tiny, large or all built-in matrices (all: the 18 of the main job), train (the selection model's training set) or "
       "irregular (one large irregular matrix per family, 4x an H100's L2), or one built-in matrix by name")
      ("quick", "a matrix not in the database gets only the selection model's candidates measured, in rounds (--quick-plan; see jitsparse predict)")
      ("quick-k", po::value<int>()->default_value(0), "with --quick: groups (or layout pairs) of the first round (0: the plan's default, 5 groups or 16 pairs)")
      ("quick-plan", po::value<std::string>()->default_value("groups"), "with --quick: groups (the model's first (layout, threads per row) groups, then the fastest improved one coordinate at a time: layouts, load policy, threads per row, schedule grid) or pairs (the older plan: 16 layout pairs, their schedules, the grid, policy twins)")
      ("budget", po::value<std::string>(), "stop cleanly after this long with the best found so far (e.g. 10m)")
      ("remeasure", "measure again even what the database already holds")
      ("timing", po::value<std::string>()->default_value("auto"), "auto: a matrix whose compulsory bytes fit in the L2 is timed in CUDA graphs (its kernels are shorter "
       "than the host's cost of a launch, which back-to-back launches would time), a larger one with launches back to back; stream: every matrix back to back")
      ("memory-cap", po::value<std::string>(), "skip layouts whose packed matrix exceeds this (e.g. 4G; default a quarter of GPU memory)")
      ("reorder", po::value<std::string>()->default_value("none"), kReorderHelp)
      ("top-layouts", po::value<int>()->default_value(2), "(layout, threads-per-row) pairs whose schedule grid is measured (coarse, then refined around the best)")
      ("hisparse", po::value<std::string>(), "HiSparse layouts of stage one, comma separated (e.g. hisparse16c1-aos-aos,hisparse64c2-aos-soa), or none; default hisparse64c2-aos-aos,hisparse256c2-aos-aos,hisparse64c4-aos-aos,hisparse64c2r-aos-aos (r: CSR leaves)")
      ("output,o", po::value<std::string>()->default_value("jitsparse-report"), "folder for tune.html and tune.json")
      ("device", po::value<int>()->default_value(0), "GPU ordinal")
      ("quiet,q", "no progress line");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::string entry = vm["entry"].as<std::string>();
  EntryRegistry::instance().get(entry);  // unknown entry types fail before any work

  TuneOptions options;
  options.precisions = parse_precisions(vm["precision"].as<std::string>());
  options.mode = vm["mode"].as<std::string>();
  options.op = parse_op(vm["op"].as<std::string>());
  options.deterministic = vm.count("deterministic") > 0;
  if (options.op == Op::h && !EntryRegistry::instance().get(entry).has_adjoint)
    throw InvalidArgument("entry type '" + entry + "' has no adjoint (\"adjoint\": false in its definition): cannot tune --op h");
  if (vm.count("budget")) options.budget_seconds = parse_duration(vm["budget"].as<std::string>());
  options.remeasure = vm.count("remeasure") > 0;
  const std::string timing = vm["timing"].as<std::string>();
  if (timing != "auto" && timing != "stream") throw InvalidArgument("--timing '" + timing + "' (expected auto or stream)");
  options.graph_timing = timing == "auto";
  if (vm.count("hisparse")) {
    options.hisparse_layouts.clear();
    std::string list = vm["hisparse"].as<std::string>();
    if (list != "none")
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        const Layout l = Layout::parse(name);  // names the expected form when wrong
        if (l.outer != OuterLayout::hisparse) throw InvalidArgument("--hisparse: '" + name + "' is not a hisparse layout");
        options.hisparse_layouts.push_back(l.name());
        start = comma + 1;
      }
  }
  if (vm.count("memory-cap")) options.memory_cap_bytes = parse_bytes(vm["memory-cap"].as<std::string>());
  options.top_layouts = vm["top-layouts"].as<int>();
  options.quick = vm.count("quick") > 0;
  options.quick_k = vm["quick-k"].as<int>();
  options.quick_plan = parse_quick_plan_kind(vm["quick-plan"].as<std::string>());
  if (options.quick_k < 0) throw InvalidArgument("--quick-k must be 0 (the default) or more");
  options.progress = !vm.count("quiet");
  options.verbose = !vm.count("quiet");

  const Ordering ordering = parse_reorder_option(vm["reorder"].as<std::string>());
  MatrixQueue matrices(matrix_sources(positional_values(vm, "matrix"), entry, vm["builtin"].as<std::string>()),
                       ordering);

  Context ctx(vm["device"].as<int>());
  TuningDatabase db(ctx.device(), ctx.cache_root());
  if (!db.warning().empty()) std::cerr << "jitsparse tune: " << db.warning() << "\n";
  std::cerr << "tuning " << (options.op == Op::n ? "" : "op " + to_string(options.op) + " of ") << matrices.planned() << " matrices on " << ctx.device().name << " (" << ctx.device().arch()
            << ", " << ctx.device().sm_count << " SMs); database " << db.path() << "\n";

  Tuner tuner(ctx, db, options);
  tuner.set_planned_matrices(matrices.planned());
  tuner.compile_ahead(matrices.entries());
  bool finished = true;
  while (const LoadedMatrix* m = matrices.next()) {
    if (!tuner.tune(m->matrix, m->domain, [&matrices] { return matrices.loaded_next(); })) {
      finished = false;
      std::cerr << "budget reached: stopping with the best found so far (run again to continue)\n";
      break;
    }
  }
  tuner.finish();

  const std::string out = vm["output"].as<std::string>();
  std::filesystem::create_directories(out);
  const auto doc = tuner.report();
  write_file_atomically(out + "/tune.json", doc.dump(1));
  write_tune_report_html(doc, out + "/tune.html");
  const auto& secs = doc["seconds"];
  std::cout << "\n" << (finished ? "tuned" : "partly tuned") << " in " << doc["wall_seconds"].get<double>()
            << " s (packing " << secs["packing"].get<double>() << " s, waiting for NVRTC "
            << secs["compiling"].get<double>() << " s, checking and timing " << secs["measuring"].get<double>()
            << " s); report " << out << "/tune.html (data in tune.json); database " << db.path() << "\n";
  std::printf("%-28s %-5s %-46s %10s %9s %9s\n", "matrix", "prec", "winner", "median us", "GB/s", "vs sched");
  for (const auto& m : doc["matrices"]) {
    if (m["winner"].is_null()) {
      std::printf("%-28s %-5s %-46s\n", m["name"].get<std::string>().c_str(), m["precision"].get<std::string>().c_str(), "(none)");
      continue;
    }
    // Quick tuning times a schedule-only variant (csr-aos-aos) only where the model proposed one: "-".
    char vs[32] = "-";
    if (!m["speedup_over_schedule_only"].is_null() && m["speedup_over_schedule_only"].get<double>() > 0)
      std::snprintf(vs, sizeof vs, "%.2fx", m["speedup_over_schedule_only"].get<double>());
    std::printf("%-28s %-5s %-46s %10.2f %9.0f %9s\n", m["name"].get<std::string>().c_str(),
                m["precision"].get<std::string>().c_str(), m["winner"]["variant"].get<std::string>().c_str(),
                m["winner"]["median_us"].get<double>(), m["winner"]["gbps"].get<double>(), vs);
  }
  for (const auto& d : doc["domains"])
    std::printf("domain %s (%s %s): %s, geometric-mean speedup over schedule-only %.2fx\n",
                d["domain"].get<std::string>().c_str(), d["entry"].get<std::string>().c_str(),
                d["precision"].get<std::string>().c_str(), d["winner"].get<std::string>().c_str(),
                d["geomean_speedup_over_schedule_only"].get<double>());
  // Renumbering (the tuner's own stage on square matrices whose order scatters their columns, or
  // --reorder rcm for a copy a solver keeps): say where it won, and which matrices the narrow (-d16)
  // layouts could not hold without it.
  std::set<std::string> renumbered, far;
  for (const auto& m : doc["matrices"]) {
    const auto& f = m["features"];
    const std::string name = m["name"].get<std::string>();
    if (!m["winner"].is_null() && Variant::parse(m["winner"]["variant"].get<std::string>()).ordering != Ordering::none)
      renumbered.insert(name + " " + m["precision"].get<std::string>());
    MatrixFeatures features;
    features.rows = f.value("rows", 0);
    features.cols = f.value("cols", 0);
    features.mean_distance_from_diagonal = f.value("mean_distance_from_diagonal", 0.0);
    if (f.value("narrow_fits", -1) == 0 && features.rows == features.cols && !renumbering_may_pay(features) &&
        name.find('@') == std::string::npos)
      far.insert(name);
  }
  auto joined = [](const std::set<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (!renumbered.empty())
    std::printf("\nrenumbered by reverse Cuthill-McKee (@rcm) or by degree (@degree; x and the result move through "
                "the permutation in every product, included in the times above): %s\n", joined(renumbered).c_str());
  if (!far.empty() && ordering == Ordering::none)
    std::printf("\nnarrow layouts (16-bit column offsets) could not hold %s: a column lies more than 32767 from "
                "its row, though most lie near it (the tuner renumbers only matrices whose entries lie far from "
                "the diagonal on average). A solver that can stay in a renumbered space can tune one with "
                "--reorder rcm.\n", joined(far).c_str());
  return 0;  // a budget stop is a clean stop: the report says what was covered
}

}  // namespace jitsparse::cli
