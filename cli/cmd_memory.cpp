// jitsparse memory: the bytes of HiSparse against CSR with 32-bit indices over a set of matrices, for every
// node width, in both precisions (issue 9's memory table). Needs no GPU.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/matrix_sources.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/features.hpp"
#include "core/file_util.hpp"
#include "core/hisparse.hpp"
#include "core/permutation.hpp"
#include "core/yardstick.hpp"
#include "tuner/builtin_matrices.hpp"

namespace jitsparse::cli {
namespace {

constexpr int kWidths[] = {16, 32, 64, 128, 256};

int64_t csr32_of(const HostMatrix& a, Precision p) { return csr32_bytes(a.rows, a.nnz(), a.components() * scalar_bytes(p)); }

// The smallest HiSparse pool over the node widths, and each width's (by d).
struct PoolBytes {
  uint64_t best = 0;
  std::map<int, uint64_t> by_width;
};
PoolBytes hisparse_pools(const HostMatrix& a, Precision p, int coo_width, bool csr_leaves) {
  PoolBytes out;
  for (int d : kWidths) {
    HiSparseOptions o;
    o.d = d;
    o.coo_width = coo_width;
    o.csr_leaves = csr_leaves;
    const uint64_t bytes = HiSparseMatrix::build(a, p, o).pool().size();
    out.by_width[d] = bytes;
    if (out.best == 0 || bytes < out.best) out.best = bytes;
  }
  return out;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

int run_memory(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse memory [matrices or folders...] [options]\n\n"
      "For each matrix and precision: the bytes of CSR with 32-bit indices (row pointers, column indices,\n"
      "values) and of the HiSparse pool for node widths 16 to 256 (COO leaves of the given width, CSR leaves\n"
      "where smaller, as the layouts hisparse<d>c<X>r hold them, dense leaves where smaller still), their ratio,\n"
      "and the mean ratio per entry type and precision at the end. Work lists of the HiSparse products (about\n"
      "12 B per leaf) are not counted: the pool is the format. Where the tuner\n"
      "renumbers a matrix (square, entries far from the diagonal on average: its @rcm or @degree variants),\n"
      "also the best pool of the renumbered matrix plus its two permutations (8 B per row, kept on the GPU),\n"
      "and the smaller of the two. Needs no GPU.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type of the matrix files")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)")
      ("precision,p", po::value<std::string>()->default_value("both"), "f32, f64 or both")
      ("builtin", po::value<std::string>()->default_value("small"), (std::string("without matrices: a built-in set (") + kBuiltinSetNames + ") or one built-in matrix by name").c_str())
      ("coo-width", po::value<int>()->default_value(2), "COO leaf width X: 1, 2 or 4")
      ("no-csr-leaves", "COO and dense leaves only (the layouts hisparse<d>c<X> without r)")
      ("output,o", po::value<std::string>(), "also write the rows as JSON to this file");
  const auto parsed = parse_command_line(args, opts, "matrix");
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  add_entry_configs(vm);
  const std::vector<Precision> precisions = parse_precisions(vm["precision"].as<std::string>());
  const int width = vm["coo-width"].as<int>();
  const bool csr_leaves = vm.count("no-csr-leaves") == 0;
  HiSparseOptions checked;
  checked.coo_width = width;
  checked.validate();  // a bad width is refused before any matrix is read
  MatrixQueue matrices(matrix_sources(positional_values(vm, "matrix"), vm["entry"].as<std::string>(),
                                      vm["builtin"].as<std::string>()),
                       Ordering::none);
  std::printf("%-30s %-15s %-4s %10s %12s", "matrix", "entry", "prec", "nnz", "CSR32 MB");
  for (int d : kWidths) std::printf(" %7s%-3d", "d", d);
  std::printf(" %8s %14s %8s\n", "best", "renumbered", "either");
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::vector<double>> ratios;  // "entry prec" -> best ratio per matrix
  std::map<std::string, std::vector<double>> either;  // the same, renumbered where the tuner renumbers
  std::map<std::string, std::map<int, std::vector<double>>> by_width;
  while (const LoadedMatrix* m = matrices.next()) {
    const HostMatrix& a = m->matrix;
    const MatrixFeatures features = compute_features(a);
    const bool renumber = renumbering_may_pay(features);
    const Ordering ordering = renumber ? preferred_ordering(features) : Ordering::none;
    const HostMatrix renumbered = renumber ? permute_symmetric(a, ordering_permutation(a, ordering)) : HostMatrix{};
    for (Precision p : precisions) {
      if (!a.entry.supports(to_string(p))) continue;
      const int64_t csr = csr32_of(a, p);
      const std::string key = a.entry.name + " " + to_string(p);
      nlohmann::json r = {{"matrix", a.name}, {"domain", m->domain}, {"entry", a.entry.name}, {"precision", to_string(p)},
                          {"rows", a.rows}, {"cols", a.cols}, {"nnz", a.nnz()}, {"csr32_bytes", csr}, {"coo_width", width},
                          {"csr_leaves", csr_leaves}};
      std::printf("%-30s %-15s %-4s %10lld %12.3f", a.name.substr(0, 30).c_str(), a.entry.name.c_str(),
                  to_string(p).c_str(), static_cast<long long>(a.nnz()), csr / 1e6);
      auto ratio_of = [csr](uint64_t bytes) { return csr > 0 ? static_cast<double>(bytes) / static_cast<double>(csr) : 0; };
      const PoolBytes pools = hisparse_pools(a, p, width, csr_leaves);
      for (const auto& [d, bytes] : pools.by_width) {
        r["hisparse_bytes"][std::to_string(d)] = bytes;
        std::printf(" %9.3fx", ratio_of(bytes));
        by_width[key][d].push_back(ratio_of(bytes));
      }
      const double best = ratio_of(pools.best);
      r["best_ratio"] = best;
      std::printf(" %7.3fx", best);
      double smaller = best;
      if (renumber) {
        const uint64_t bytes = hisparse_pools(renumbered, p, width, csr_leaves).best + 8 * static_cast<uint64_t>(a.rows);
        const double ratio = ratio_of(bytes);
        r["renumbered"] = {{"ordering", to_string(ordering)}, {"hisparse_bytes_with_permutations", bytes}, {"best_ratio", ratio}};
        char cell[32];
        std::snprintf(cell, sizeof cell, "%.3fx%s", ratio, ordering_suffix(ordering).c_str());
        std::printf(" %14s", cell);
        smaller = std::min(best, ratio);
      } else {
        std::printf(" %14s", "-");
      }
      std::printf(" %7.3fx\n", smaller);
      std::fflush(stdout);
      ratios[key].push_back(best);
      either[key].push_back(smaller);
      rows.push_back(r);
    }
  }
  std::printf("\nmean of HiSparse bytes / CSR32 bytes over the matrices (best d per matrix; renumbered where the "
              "tuner renumbers, if smaller; then each fixed d)\n");
  for (const auto& [key, v] : ratios) {
    std::printf("%-24s %3zu matrices: best %.3fx, either %.3fx", key.c_str(), v.size(), mean(v), mean(either[key]));
    for (int d : kWidths) std::printf(", d%d %.3fx", d, mean(by_width[key][d]));
    std::printf("\n");
  }
  if (vm.count("output")) write_file_atomically(vm["output"].as<std::string>(), nlohmann::json{{"rows", rows}}.dump(1));
  return 0;
}

}  // namespace jitsparse::cli
