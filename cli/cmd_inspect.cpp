// jitsparse inspect: read a matrix file (no GPU needed) and show its features and the bytes of every
// layout, so a user can check a file and choose a memory cap before tuning.
#include <chrono>
#include <cstdio>
#include <iostream>

#include <boost/program_options.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/entry_type.hpp"
#include "core/features.hpp"
#include "core/hisparse.hpp"
#include "core/layout.hpp"
#include "core/permutation.hpp"
#include "core/yardstick.hpp"
#include "io/matrix_market.hpp"
#include "tuner/tuner.hpp"


namespace jitsparse::cli {

namespace {

// HiSparse bytes per node width (COO2, CSR and dense leaves where smaller: the r layouts), then the node
// census for d = 64.
void print_hisparse(const HostMatrix& a) {
  std::printf("\nHiSparse (COO2 leaves; CSR and dense leaves where smaller, as layouts hisparse<d>c2r hold them)\n%-6s %7s %14s %14s %12s %12s\n", "d", "levels",
              "MB (f32)", "MB (f64)", "B/entry f32", "B/entry f64");
  for (int d : {16, 32, 64, 128, 256}) {
    HiSparseOptions o;
    o.d = d;
    const HiSparseStats s32 = hisparse_statistics(HiSparseMatrix::build(a, Precision::f32, o));
    const HiSparseStats s64 = hisparse_statistics(HiSparseMatrix::build(a, Precision::f64, o));
    std::printf("%-6d %7d %14.3f %14.3f %12.2f %12.2f\n", d, hi_levels(a.rows, a.cols, d), s32.pool_bytes / 1e6,
                s64.pool_bytes / 1e6, s32.bytes_per_entry, s64.bytes_per_entry);
  }
  const HiSparseStats s = hisparse_statistics(HiSparseMatrix::build(a, Precision::f64, HiSparseOptions{}));
  std::printf("\nHiSparse nodes, d = 64, f64\n%-6s", "level");
  for (int t = 1; t < kHiNodeTypes; ++t) std::printf(" %13s", to_string(static_cast<HiNodeType>(t)).c_str());
  std::printf("\n");
  for (size_t level = s.nodes.size(); level-- > 0;) {
    std::printf("%-6zu", level);
    for (int t = 1; t < kHiNodeTypes; ++t) std::printf(" %13lld", static_cast<long long>(s.nodes[level][t]));
    std::printf("\n");
  }
}

}  // namespace

int run_inspect(const std::vector<std::string>& args) {
  po::options_description opts(
      "jitsparse inspect FILE [options]\n\n"
      "Reads a Matrix Market file as the given entry type and prints its size, row statistics and the bytes\n"
      "each layout would take on the GPU. Needs no GPU.\n\nOptions");
  opts.add_options()("help,h", "show this help")
      ("entry,e", po::value<std::string>()->default_value("real"), "entry type (real, complex, quaternion, block3, ...)")
      ("entry-config", po::value<std::vector<std::string>>(), "JSON file defining an entry type (repeatable)");
  const auto parsed = parse_command_line(args, opts, "file", 1);
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  const auto files = positional_values(vm, "file");
  if (files.empty()) {
    std::cerr << "jitsparse inspect: name a matrix file (see --help)\n";
    return 2;
  }
  add_entry_configs(vm);
  ReadOptions o;
  o.entry = vm["entry"].as<std::string>();
  const HostMatrix a = read_matrix_market(files[0], o);
  const MatrixFeatures f = compute_features(a);
  std::printf("%s: %d x %d %s entries, %lld stored\n", a.name.c_str(), a.rows, a.cols, a.entry.name.c_str(),
              static_cast<long long>(a.nnz()));
  std::printf("entries per row: mean %.2f, std %.2f, max %lld; empty rows %lld; mean |col - row| %.1f\n", f.mean_row,
              f.std_row, static_cast<long long>(f.max_row), static_cast<long long>(f.empty_rows),
              f.mean_distance_from_diagonal);
  std::printf("compulsory bytes of y = Ax: %.1f MB (f32), %.1f MB (f64)\n\n%-22s %8s %14s\n",
              compulsory_bytes(a, Precision::f32) / 1e6, compulsory_bytes(a, Precision::f64) / 1e6, "layout",
              "MB (f32)", "MB (f64)");
  for (const Layout& l : all_layouts())
    std::printf("%-22s %8.1f %14.1f\n", l.name().c_str(), packed_bytes(a, l, Precision::f32) / 1e6,
                packed_bytes(a, l, Precision::f64) / 1e6);
  // The narrow forms (16-bit column offsets) hold this matrix only when every |column - row| fits.
  if (narrow_columns_fit(a)) {
    for (Layout l : row_layouts()) {
      l.narrow = true;
      std::printf("%-22s %8.1f %14.1f\n", l.name().c_str(), packed_bytes(a, l, Precision::f32) / 1e6,
                  packed_bytes(a, l, Precision::f64) / 1e6);
    }
  } else {
    std::printf("narrow layouts (-d16): no, a column is more than %lld away from its row (renumbering, e.g. RCM, "
                "may bring it within)\n", static_cast<long long>(kNarrowOffsetLimit));
  }
  // What the tuner's renumbering stage would see (tuner/tuner.hpp renumbering_may_pay).
  if (renumbering_may_pay(f)) {
    const auto t0 = std::chrono::steady_clock::now();
    const Ordering ordering = preferred_ordering(f);
    const std::vector<int32_t> perm = ordering_permutation(a, ordering);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const HostMatrix r = permute_symmetric(a, perm);
    std::printf("renumbering: the tuner also times %s variants of this matrix (its entries lie far from the "
                "diagonal%s); %s (%.2f s here): mean |col - row| %.1f -> %.1f, bandwidth %lld -> %lld, narrow layouts "
                "%s\n",
                ordering_suffix(ordering).c_str(), ordering == Ordering::degree ? ", its rows are skewed" : "",
                ordering == Ordering::degree ? "most connected vertices first" : "reverse Cuthill-McKee", took,
                f.mean_distance_from_diagonal, compute_features(r).mean_distance_from_diagonal,
                static_cast<long long>(bandwidth(a)), static_cast<long long>(bandwidth(r)),
                narrow_columns_fit(r) ? "fit then" : "still do not fit");
  } else {
    std::printf("renumbering: not tried by the tuner (%s)\n",
                a.rows != a.cols ? "not square"
                : a.rows < kRenumberingMinRows ? "too few rows to pay for moving x and y"
                                 : "its entries lie near the diagonal on average");
  }
  print_hisparse(a);
  return 0;
}

}  // namespace jitsparse::cli
