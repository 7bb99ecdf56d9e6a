// jitsparse predict: what the selection model would run for matrices never tuned, with its expected time
// relative to the best, its confidence and the tuned matrices it learnt from. Needs no GPU with --database.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include <boost/program_options.hpp>

#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/yardstick.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/nvrtc_compiler.hpp"
#include "runtime/device_info.hpp"
#include "selection/database.hpp"
#include "selection/model.hpp"
#include "selection/quick_plan.hpp"
#include "selection/select.hpp"
#include "tuner/builtin_matrices.hpp"

namespace jitsparse::cli {

int run_predict(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse predict [matrices or folders...] [options]\n\n"
      "Prints the variants the selection model ranks first for each matrix (learnt from everything this GPU's\n"
      "tuning database measured), with the expected time relative to the matrix's best variant, the\n"
      "confidence, how many candidates `tune --quick` would measure, and the rule of thumb beside it. With\n"
      "no matrices: the built-in set (--builtin). Uses this GPU's database, or --database without a GPU.\n"
      "Also prints the host time of run-time selection as load_tuned pays it: reading the database and\n"
      "preparing the model once, then per matrix its features, the model and the exact lookup.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the matrix files")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("precision,p", po::value<std::string>()->default_value("both"), "f32, f64 or both")
      ("op", po::value<std::string>()->default_value("n"), "the product: n (A x), t (A^T x) or h (A^H x)")
      ("deterministic", "only variants whose result bits never change")
      ("builtin", po::value<std::string>()->default_value("all"), (std::string("without matrices: a built-in set (") + kBuiltinSetNames + ") or one built-in matrix by name").c_str())
      ("top", po::value<int>()->default_value(5), "candidates to print")
      ("database", po::value<std::string>(), "a tuning database file (default: this GPU's, which needs the GPU)")
      ("device", po::value<int>()->default_value(0), "GPU ordinal (for its database)");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::string entry = vm["entry"].as<std::string>();
  EntryRegistry::instance().get(entry);
  const auto precisions = parse_precisions(vm["precision"].as<std::string>());
  const Op op = parse_op(vm["op"].as<std::string>());
  const bool deterministic = vm.count("deterministic") > 0;
  const int top = vm["top"].as<int>();
  if (top < 1) throw InvalidArgument("--top must be at least 1");

  DeviceInfo gpu;
  std::string path;
  if (vm.count("database")) {
    path = vm["database"].as<std::string>();
    if (!std::filesystem::exists(path)) throw InvalidArgument("no tuning database at " + path);
  } else {
    gpu = query_device(vm["device"].as<int>());
    path = TuningDatabase::path_for(gpu, cache_root());
  }
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  auto t0 = std::chrono::steady_clock::now();
  const TuningDatabase db(path);
  const double read_ms = since(t0);
  if (!db.warning().empty()) std::cerr << "jitsparse predict: " << db.warning() << "\n";
  // With a GPU, the default (nothing tuned) is the one load_tuned runs: compiled for it, without spills.
  // Read offline, the architecture is unknown and the plain default is shown.
  std::unique_ptr<KernelBuilder> builder;
  if (gpu.max_threads_per_sm > 0) builder = std::make_unique<KernelBuilder>(clamp_arch(gpu.major, gpu.minor), cache_root());
  if (gpu.max_threads_per_sm == 0) gpu = described_device(db.l2_bytes());  // read offline
  // One model for every matrix, prepared as load_tuned prepares it when it reads the database.
  t0 = std::chrono::steady_clock::now();
  const SelectionModel model(db, gpu.l2_bytes);
  model.prepare(deterministic);
  const double prepare_ms = since(t0);
  std::printf("database %s (%zu records; L2 %s): read in %.1f ms, the model prepared in %.1f ms (once per database, "
              "as load_tuned does)\n",
              path.c_str(), db.records().size(),
              gpu.l2_bytes > 0 ? (std::to_string(gpu.l2_bytes >> 20) + " MiB").c_str() : "unknown, taken as 50 MiB",
              read_ms, prepare_ms);

  for (const auto& src : matrix_sources(positional_values(vm, "matrix"), entry, vm["builtin"].as<std::string>())) {
    const HostMatrix a = src.load();
    for (Precision p : precisions) {
      if (!a.entry.supports(to_string(p))) continue;
      // Host time of run-time selection with the prepared model; its features and model are timed again
      // apart, the rest is hashing the matrix for the exact lookup (only where a record of the same shape
      // exists) and, for a narrow (-d16) pick, the pass over the columns that checks they fit (with RCM
      // for @rcm).
      t0 = std::chrono::steady_clock::now();
      const Selection s = select_variant(db, a, p, gpu, op, deterministic, builder.get(), &model);
      const double ms = since(t0);
      t0 = std::chrono::steady_clock::now();
      const MatrixFeatures features = compute_features(a);
      const double features_ms = since(t0);
      t0 = std::chrono::steady_clock::now();
      (void)model.predict({features, compulsory_bytes(a, p), a.entry.name, p, op, deterministic, a.entry.num_components()});
      const double model_ms = since(t0);
      std::printf("\n%s %s op %s (%lld x %lld, %lld entries, %.1f MB): %s, level %s (%s)\n  selection took %.2f ms of "
                  "host time: its features %.2f ms, the model %.2f ms, the rest the exact lookup (a hash of the matrix when a "
                  "record of its shape exists) and, for a narrow pick, the check that its columns fit\n",
                  a.name.c_str(), to_string(p).c_str(), to_string(op).c_str(), static_cast<long long>(a.rows),
                  static_cast<long long>(a.cols), static_cast<long long>(a.nnz()), compulsory_bytes(a, p) / 1e6,
                  s.variant.name().c_str(), s.level.c_str(), s.detail.c_str(), ms, features_ms, model_ms);
      const Variant rule = rule_of_thumb(features, a.entry.name, p, op, deterministic, schedule_limits(gpu));
      if (s.level == "model") {
        const Prediction& pred = s.prediction;
        std::printf("  %-4s %-58s %9s %7s %s\n", "rank", "variant", "expected", "spread", "timed on");
        for (int i = 0; i < top && i < static_cast<int>(pred.ranked.size()); ++i) {
          const Candidate& c = pred.ranked[i];
          std::printf("  %-4d %-58s %8.3fx %7.3f %d of %zu neighbours\n", i + 1, c.variant.c_str(), c.expected_relative,
                      c.spread, c.measured_on, pred.neighbours.size());
        }
        const QuickPlan plan = quick_plan(0);
        std::printf("  confidence %.2f; tune --quick would measure %zu candidates first (%d groups), then up to %d more "
                    "of its %d fastest groups, then improve the fastest\n  neighbours:",
                    pred.confidence, quick_round_one(pred, plan).size(), plan.groups, plan.per_group, plan.best_groups);
        for (const auto& n : pred.neighbours) std::printf(" %s (distance %.2f, weight %.2f)", n.name.c_str(), n.distance, n.weight);
        std::printf("\n");
        if (pred.renumbering_gain > 0)
          std::printf("  renumbered twins expected %.2fx faster: what renumbering gained on the nearest scattered matrices "
                      "with entries of the nearest size (no neighbour was renumbered)\n",
                      pred.renumbering_gain);
      }
      std::printf("  rule of thumb (cuSPARSE characterisation): %s\n", rule.name().c_str());
    }
  }
  return 0;
}

}  // namespace jitsparse::cli
