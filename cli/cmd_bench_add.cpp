// jitsparse bench-add: sparse addition C = alpha op(A) + beta op(B), HiSparse on the GPU against cuSPARSE
// csrgeam2 (with csr2csc first for op t and h), timed the same way in the same process, both checked
// against the CPU. B is a perturbed copy of A's pattern (core/matrix_add.hpp), so rows really merge, or
// (--b-pattern same) A's pattern with other values.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "bench/cusparse_add.hpp"
#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/file_util.hpp"
#include "core/hisparse.hpp"
#include "core/matrix_add.hpp"
#include "core/matrix_compare.hpp"
#include "core/yardstick.hpp"
#include "runtime/context.hpp"
#include "runtime/hisparse_add.hpp"
#include "runtime/l2_flush.hpp"
#include "tuner/builtin_matrices.hpp"

namespace jitsparse::cli {
namespace {

constexpr double kAlpha = 1.5, kBeta = -0.5;  // general coefficients: neither 1 nor a sign flip only

nlohmann::json timing_json(const TimingResult& t) {
  return {{"median_us", t.median_us}, {"q1_us", t.q1_us}, {"q3_us", t.q3_us}, {"samples_us", t.samples_us}};
}

// HiSparse: build both trees on the host, upload, one checked addition, then the timed ones.
nlohmann::json run_hisparse(Context& ctx, const HostMatrix& a, const HostMatrix& b, Op op, Precision p,
                            const HiSparseOptions& o, HiSparseAdd::InnerSchedule inner, const TimingOptions& timing) {
  nlohmann::json r;
  const auto t0 = std::chrono::steady_clock::now();
  const HiSparseMatrix ha = HiSparseMatrix::build(a, p, o), hb = HiSparseMatrix::build(b, p, o);
  r["host_build_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const DeviceHiSparse da(ha, ctx.stream()), db(hb, ctx.stream());
  r["a_bytes"] = da.pool_bytes();
  r["b_bytes"] = db.pool_bytes();
  DeviceHiSparse c;
  {
    HiSparseAdd plan(ctx, da, op, db, op, inner);
    plan.enqueue(kAlpha, kBeta);
    c = plan.take_result();
  }
  const HiSparseMatrix hc = c.download(ctx.stream());
  const std::string wrong = compare_sum(hc.to_host(), a, op, b, op, kAlpha, kBeta, p);
  r["c_bytes"] = c.pool_bytes();
  r["c_span_bytes"] = c.span_bytes();  // with the unused tails of the blocks' chunks
  r["c_nodes"] = c.nodes();
  r["nnz_c"] = hc.nnz();
  if (!wrong.empty()) {
    r["status"] = "wrong: " + wrong;
    return r;
  }
  HiSparseAdd plan(ctx, da, op, db, op, inner);
  const TimingResult t = time_on_stream(ctx.stream(), [&] { plan.enqueue(kAlpha, kBeta); }, timing);
  r["status"] = "ok";
  r["method"] = "jitsparse hisparse" + std::to_string(o.d) + "c" + std::to_string(o.coo_width) + (o.csr_leaves ? "r" : "") + " add";
  r.update(timing_json(t));
  return r;
}

std::string us_text(const nlohmann::json& r) {
  return r.value("status", "") == "ok" ? std::to_string(r["median_us"].get<double>()).substr(0, 9) : "-";
}

}  // namespace

int run_bench_add(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse bench-add [matrices or folders...] [options]\n\n"
      "Sparse addition C = 1.5 op(A) - 0.5 op(B), HiSparse in and out on the GPU (a launch per inner tree\n"
      "level, two for the leaves), against cuSPARSE csrgeam2 (op t, h: csr2csc of A and B first, as a cuSPARSE\n"
      "user must), timed the same way (CUDA events, median), each result checked against the CPU. B is A's\n"
      "pattern perturbed (--b-pattern perturbed: 75% of A's entries kept with new values, one new entry a row)\n"
      "or A's pattern itself with new values (--b-pattern same, as K - s M on one mesh). Also prints the\n"
      "bytes of A, B and C in HiSparse and in CSR with 32-bit indices, and at the end the speedups' geometric\n"
      "mean and how many cases reach 3x (issue 9's target) or fall below 1x.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the matrix files")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("precision,p", po::value<std::string>()->default_value("both"), "f32, f64 or both")
      ("builtin", po::value<std::string>()->default_value("all"), (std::string("without matrices: a built-in set (") + kBuiltinSetNames + ") or one built-in matrix by name").c_str())
      ("op", po::value<std::string>()->default_value("n"), "n: A + B; t: A^T + B^T; h: A^H + B^H")
      ("d", po::value<int>()->default_value(64), "HiSparse node width: 16, 32, 64, 128 or 256")
      ("coo-width", po::value<int>()->default_value(2), "HiSparse COO leaf width X: 1, 2 or 4")
      ("no-csr-leaves", "HiSparse COO and dense leaves only (by default CSR leaves where they are smaller)")
      ("b-pattern", po::value<std::string>()->default_value("perturbed"),
       "B: perturbed (A's pattern with 25% of its entries dropped and one new a row) or same (A's pattern)")
      ("inner-items", po::value<std::string>()->default_value("auto"),
       "inner tree levels: a warp an item, a block an item, or auto (a block where a level's items fit one wave)")
      ("samples", po::value<int>(), "timing samples per method, median reported (default 9 warm, 21 cold)")
      ("l2", po::value<std::string>()->default_value("warm"),
       "warm: back-to-back calls; cold: a buffer of twice the L2 is read before every sample, one call per sample")
      ("output,o", po::value<std::string>()->default_value("jitsparse-bench-add"),
       "folder for bench_add.json (at the end) and bench_add.jsonl (a JSON line per row as it is measured)")
      ("device", po::value<int>()->default_value(0), "GPU ordinal");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::vector<Precision> precisions = parse_precisions(vm["precision"].as<std::string>());
  const Op op = parse_op(vm["op"].as<std::string>());
  HiSparseOptions o;
  o.d = vm["d"].as<int>();
  o.coo_width = vm["coo-width"].as<int>();
  o.csr_leaves = vm.count("no-csr-leaves") == 0;
  o.validate();
  const std::string b_pattern = vm["b-pattern"].as<std::string>();
  if (b_pattern != "perturbed" && b_pattern != "same")
    throw InvalidArgument("--b-pattern must be perturbed or same, got '" + b_pattern + "'");
  const std::string inner_items = vm["inner-items"].as<std::string>();
  if (inner_items != "auto" && inner_items != "warp" && inner_items != "block")
    throw InvalidArgument("--inner-items must be auto, warp or block, got '" + inner_items + "'");
  const HiSparseAdd::InnerSchedule inner = inner_items == "warp"    ? HiSparseAdd::InnerSchedule::warp_per_item
                                           : inner_items == "block" ? HiSparseAdd::InnerSchedule::block_per_item
                                                                    : HiSparseAdd::InnerSchedule::by_level_size;
  const std::string l2_mode = vm["l2"].as<std::string>();
  if (l2_mode != "warm" && l2_mode != "cold") throw InvalidArgument("--l2 must be warm or cold, got '" + l2_mode + "'");
  const bool cold = l2_mode == "cold";
  TimingOptions timing;
  timing.samples = vm.count("samples") ? vm["samples"].as<int>() : cold ? 21 : 9;
  if (timing.samples < 1) throw InvalidArgument("--samples must be at least 1");
  MatrixQueue matrices(matrix_sources(positional_values(vm, "matrix"), vm["entry"].as<std::string>(),
                                      vm["builtin"].as<std::string>()),
                       Ordering::none);

  Context ctx(vm["device"].as<int>());
  const std::string out = vm["output"].as<std::string>();
  std::filesystem::create_directories(out);
  std::unique_ptr<L2Flush> flush;
  if (cold) {
    flush = std::make_unique<L2Flush>(ctx);
    timing.before_each = [f = flush.get()](cudaStream_t s) { (*f)(s); };
  }
  std::printf("C = %.1f op(A) %+.1f op(B), op %s, B's pattern %s, on %s; HiSparse d %d, COO%d%s; timing: L2 %s, "
              "%d samples, median\n",
              kAlpha, kBeta, to_string(op).c_str(), b_pattern == "same" ? "A's" : "perturbed", ctx.device().name.c_str(),
              o.d, o.coo_width, o.csr_leaves ? " and CSR leaves" : "", l2_mode.c_str(), timing.samples);
  std::printf("%-26s %-4s %11s %11s %11s %-34s %11s %11s %8s %9s %9s\n", "matrix", "prec", "nnz(C)", "hisparse us",
              "cuSPARSE us", "cuSPARSE method", "convert us", "speedup", "status", "C MB hi", "C MB csr");
  nlohmann::json rows = nlohmann::json::array();
  // Each row is on disk as soon as it is measured: a run stopped by a time limit keeps what it measured.
  const std::string jsonl_path = out + "/bench_add.jsonl";
  std::ofstream jsonl(jsonl_path, std::ios::trunc);
  if (!jsonl) throw Error("cannot write " + jsonl_path);
  while (const LoadedMatrix* m = matrices.next()) {
    const HostMatrix& a = m->matrix;
    const HostMatrix b = b_pattern == "same" ? rescale_values(a, 7) : perturb_pattern(a, 7);
    for (Precision p : precisions) {
      if (!a.entry.supports(to_string(p))) continue;
      nlohmann::json r = {{"matrix", a.name}, {"domain", m->domain}, {"entry", a.entry.name}, {"precision", to_string(p)},
                          {"op", to_string(op)}, {"rows", a.rows}, {"cols", a.cols}, {"nnz_a", a.nnz()}, {"nnz_b", b.nnz()},
                          {"alpha", kAlpha}, {"beta", kBeta}, {"d", o.d}, {"coo_width", o.coo_width},
                          {"csr_leaves", o.csr_leaves}, {"b_pattern", b_pattern},
                          {"inner_items", inner_items}};
      try {
        r["hisparse"] = run_hisparse(ctx, a, b, op, p, o, inner, timing);
      } catch (const Error& e) {
        r["hisparse"] = {{"status", std::string("error: ") + e.what()}};
      }
      AddBaselineOptions bo;
      bo.op = op;
      bo.timing = timing;
      bo.device = ctx.device().ordinal;
      const AddBaselineResult cs = run_cusparse_add(a, b, kAlpha, kBeta, p, bo);
      r["cusparse"] = {{"method", cs.method}, {"status", cs.status}, {"detail", cs.detail}, {"nnz_c", cs.nnz_c},
                       {"device_bytes", cs.device_bytes}, {"convert_us", cs.convert_us}};
      if (cs.ok()) {
        r["cusparse"]["median_us"] = cs.median_us;
        r["cusparse"]["q1_us"] = cs.q1_us;
        r["cusparse"]["q3_us"] = cs.q3_us;
        r["cusparse"]["samples_us"] = cs.samples_us;
      }
      const nlohmann::json& h = r["hisparse"];
      const int eb = a.components() * scalar_bytes(p);
      const int64_t out_rows = is_transposed(op) ? a.cols : a.rows;
      if (h.contains("nnz_c")) {
        r["csr32_bytes"] = {{"a", csr32_bytes(a.rows, a.nnz(), eb)}, {"b", csr32_bytes(b.rows, b.nnz(), eb)},
                            {"c", csr32_bytes(out_rows, h["nnz_c"].get<int64_t>(), eb)}};
      }
      const bool both = h.value("status", "") == "ok" && cs.ok();
      r["speedup_vs_cusparse"] = both ? nlohmann::json(cs.median_us / h["median_us"].get<double>()) : nlohmann::json(nullptr);
      const std::string status = h.value("status", "").substr(0, 60);
      std::printf("%-26s %-4s %11lld %11s %11s %-34s %11s %11s %8s %9.2f %9.2f\n", a.name.substr(0, 26).c_str(),
                  to_string(p).c_str(), static_cast<long long>(h.value("nnz_c", int64_t{0})), us_text(h).c_str(),
                  cs.ok() ? std::to_string(cs.median_us).substr(0, 9).c_str() : cs.status.substr(0, 11).c_str(),
                  cs.method.substr(0, 34).c_str(), cs.convert_us > 0 ? std::to_string(cs.convert_us).substr(0, 9).c_str() : "-",
                  both ? (std::to_string(r["speedup_vs_cusparse"].get<double>()).substr(0, 5) + "x").c_str() : "-",
                  status == "ok" ? "ok" : status.c_str(), h.value("c_bytes", uint64_t{0}) / 1e6,
                  r.contains("csr32_bytes") ? r["csr32_bytes"]["c"].get<int64_t>() / 1e6 : 0.0);
      if (status != "ok") std::fprintf(stderr, "jitsparse bench-add: %s %s: hisparse %s\n", a.name.c_str(), to_string(p).c_str(), status.c_str());
      if (!cs.ok()) std::fprintf(stderr, "jitsparse bench-add: %s %s: %s %s %s\n", a.name.c_str(), to_string(p).c_str(), cs.method.c_str(), cs.status.c_str(), cs.detail.c_str());
      rows.push_back(r);
      jsonl << r.dump() << std::endl;
      if (!jsonl) throw Error("cannot write " + jsonl_path + " (disk full?)");
      std::fflush(stdout);
    }
  }
  // Issue 9's yardstick: 3x csrgeam2 (op t, h: csr2csc and csrgeam2).
  std::vector<double> speedups;
  for (const nlohmann::json& r : rows)
    if (r["speedup_vs_cusparse"].is_number()) speedups.push_back(r["speedup_vs_cusparse"].get<double>());
  constexpr double kTarget = 3.0;
  const SpeedupSummary sum = summarize_speedups(speedups, kTarget);
  if (sum.cases > 0)
    std::printf("\nspeedup over cuSPARSE (its time / ours), %d cases: geometric mean %.2fx, %d at %.0fx or more, %d below 1x\n",
                sum.cases, sum.geomean, sum.at_target, kTarget, sum.below_one);
  nlohmann::json doc = {{"tool", "jitsparse " JITSPARSE_VERSION},
                        {"gpu", ctx.device().name},
                        {"timing", {{"l2", l2_mode}, {"samples", timing.samples}}},
                        {"summary", {{"cases", sum.cases}, {"geomean_speedup", sum.geomean}, {"target", kTarget},
                                     {"at_target", sum.at_target}, {"below_1x", sum.below_one}}},
                        {"rows", rows}};
  write_file_atomically(out + "/bench_add.json", doc.dump(1));
  std::printf("\nresults: %s/bench_add.json, bench_add.jsonl (one JSON line per row)\n", out.c_str());
  return 0;
}

}  // namespace jitsparse::cli
