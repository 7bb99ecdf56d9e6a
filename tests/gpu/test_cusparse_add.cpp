// The cuSPARSE addition baseline (csrgeam2) on a real GPU (skipped without one).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "bench/cusparse_add.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/host_matrix.hpp"
#include "core/matrix_add.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"

using namespace jitsparse;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

// Empty rows, one long row, larger than a warp, not square; B overlaps A's pattern without equalling it.
HostMatrix operand_a(const EntryType& e, int32_t rows, int32_t cols, uint64_t seed) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = 6;
  o.empty_fraction = 0.15;
  o.long_row = cols / 2;
  o.seed = seed;
  return random_matrix(e, o);
}

}  // namespace

TEST_CASE("cusparse add: csrgeam2 matches add_matrices (real, complex, quaternion, block3; op n, t)") {
  AddBaselineOptions opt;
  opt.time = false;
  for (const char* name : {"real", "complex", "quaternion", "block3"}) {
    const EntryType& e = entry(name);
    for (auto [rows, cols] : std::vector<std::pair<int32_t, int32_t>>{{157, 157}, {90, 211}}) {
      const HostMatrix a = operand_a(e, rows, cols, 3);
      const HostMatrix b = perturb_pattern(a, 4);
      for (Precision p : {Precision::f32, Precision::f64}) {
        for (Op op : {Op::n, Op::t}) {
          for (auto [alpha, beta] : std::vector<std::pair<double, double>>{{1, 1}, {2, -0.5}}) {
            opt.op = op;
            const AddBaselineResult r = run_cusparse_add(a, b, alpha, beta, p, opt);
            INFO(name << " " << rows << " x " << cols << " " << to_string(p) << " op " << to_string(op)
                      << " alpha " << alpha << " beta " << beta << ": " << r.method << " " << r.status << " "
                      << r.detail);
            CHECK(r.method == cusparse_add_method(e, op));
            CHECK(r.status == "ok");
            CHECK(r.max_rel_error < default_tolerance(p));
            const int64_t v = std::string(name) == "complex" ? 1 : a.vector_components();
            CHECK(r.nnz_c == add_matrices(a, b, 1, 1).nnz() * v * v);
            CHECK(r.device_bytes > 0);
            CHECK(r.allocated_bytes >= r.device_bytes);
            CHECK(r.samples_us.empty());
          }
        }
      }
    }
  }
}

TEST_CASE("cusparse add: explicit zeros, beta 0, an operand without entries, op h") {
  AddBaselineOptions opt;
  opt.time = false;
  const HostMatrix a = operand_a(entry("complex"), 120, 120, 7);
  // A + (-A): csrgeam2 keeps the union pattern with zeros, as add_matrices does (checked inside)
  auto r = run_cusparse_add(a, a, 1, -1, Precision::f64, opt);
  CHECK_MESSAGE(r.status == "ok", r.status << " " << r.detail);
  CHECK(r.nnz_c == a.nnz());
  // beta 0: B's positions are still in C
  const HostMatrix b = perturb_pattern(a, 8);
  r = run_cusparse_add(a, b, 1.5, 0, Precision::f64, opt);
  CHECK_MESSAGE(r.status == "ok", r.status << " " << r.detail);
  CHECK(r.nnz_c == add_matrices(a, b, 1, 1).nnz());
  // B without entries
  RandomMatrixOptions none;
  none.rows = 120;
  none.cols = 120;
  none.empty_fraction = 1;
  const HostMatrix z = random_matrix(entry("complex"), none);
  for (Op op : {Op::n, Op::t}) {
    opt.op = op;
    r = run_cusparse_add(a, z, 1, 1, Precision::f32, opt);
    CHECK_MESSAGE(r.status == "ok", "op " << to_string(op) << ": " << r.status << " " << r.detail);
  }
  // op h: real (A^T) and expanded types (csr2csc of the expansion is A^H) run; complex does not
  opt.op = Op::h;
  CHECK(run_cusparse_add(a, b, 1, 1, Precision::f64, opt).status.rfind("unsupported", 0) == 0);
  for (const char* name : {"real", "quaternion", "block3"}) {
    const HostMatrix q = operand_a(entry(name), 70, 95, 9);
    r = run_cusparse_add(q, perturb_pattern(q, 10), 1, -2, Precision::f64, opt);
    CHECK_MESSAGE(r.status == "ok", name << " op h: " << r.method << " " << r.status << " " << r.detail);
  }
}

TEST_CASE("cusparse add: mismatched operands are refused before any GPU work; empty is unsupported") {
  const HostMatrix a = operand_a(entry("real"), 50, 60, 1);
  const HostMatrix b = operand_a(entry("real"), 60, 50, 2);
  const HostMatrix c = operand_a(entry("complex"), 50, 60, 3);
  CHECK_THROWS_AS(run_cusparse_add(a, b, 1, 1, Precision::f64), InvalidArgument);
  CHECK_THROWS_AS(run_cusparse_add(a, c, 1, 1, Precision::f64), InvalidArgument);
  HostMatrix e;
  e.entry = entry("real");
  CHECK(run_cusparse_add(e, e, 1, 1, Precision::f64).status.rfind("unsupported: empty", 0) == 0);
}

TEST_CASE("cusparse add: timed, warm and op t with its conversion") {
  const HostMatrix a = operand_a(entry("quaternion"), 3000, 3000, 5);
  const HostMatrix b = perturb_pattern(a, 6);
  AddBaselineOptions opt;
  opt.timing.samples = 5;
  opt.timing.min_sample_ms = 1.0;
  for (Op op : {Op::n, Op::t}) {
    opt.op = op;
    const AddBaselineResult r = run_cusparse_add(a, b, 1, 1, Precision::f32, opt);
    INFO(r.method << " " << r.status << " " << r.detail << ": " << r.median_us << " us, convert "
                  << r.convert_us);
    REQUIRE(r.status == "ok");
    CHECK(r.samples_us.size() == 5);
    CHECK(r.median_us > 0);
    CHECK(r.q1_us <= r.median_us);
    CHECK(r.q3_us >= r.median_us);
    CHECK(r.reps_per_sample >= 1);
    CHECK((op == Op::t) == (r.convert_us > 0));
    CHECK(r.convert_us < r.median_us);
    MESSAGE(r.method << ": " << r.median_us << " us per addition (q1 " << r.q1_us << ", q3 " << r.q3_us
                     << ", convert " << r.convert_us << " us), C " << r.nnz_c << " scalars");
  }
}
