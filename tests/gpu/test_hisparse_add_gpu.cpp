// HiSparse A + B on the GPU (runtime/hisparse_add.hpp): C = alpha op(A) + beta op(B), HiSparse in and out,
// checked against the CPU's op(A) and op(B) added as CSR, for every built-in entry type.
#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/hisparse.hpp"
#include "core/matrix_add.hpp"
#include "core/matrix_compare.hpp"
#include "core/random_matrix.hpp"
#include "gpu_test_util.hpp"
#include "runtime/hisparse_add.hpp"

using namespace jitsparse;
using jitsparse::test::gpu_context;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

HostMatrix random(const EntryType& e, int32_t rows, int32_t cols, double mean_row, int32_t band, uint64_t seed) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = mean_row;
  o.empty_fraction = 0.1;
  o.band = band;
  o.seed = seed;
  return random_matrix(e, o);
}

// C (from the GPU, read back through a checked walk) against alpha op_a(A) + beta op_b(B) in double.
// Where the reference is (near) zero, a dense leaf may leave the entry out (core/hisparse.hpp, limits).
void check_sum(const HiSparseMatrix& c, const HostMatrix& a, Op op_a, const HostMatrix& b, Op op_b, double alpha,
               double beta, Precision p) {
  const std::string wrong = compare_sum(c.to_host(), a, op_a, b, op_b, alpha, beta, p);
  CHECK_MESSAGE(wrong.empty(), wrong);
}

void add_and_check(const HostMatrix& a, Op op_a, const HostMatrix& b, Op op_b, double alpha, double beta, Precision p,
                   const HiSparseOptions& o) {
  Context& ctx = gpu_context();
  INFO(a.entry.name, " ", to_string(p), " d", o.d, " X", o.coo_width, " op ", to_string(op_a), ",", to_string(op_b),
       " ", a.rows, "x", a.cols, " alpha ", alpha, " beta ", beta);
  const DeviceHiSparse da(HiSparseMatrix::build(a, p, o), ctx.stream());
  const DeviceHiSparse db(HiSparseMatrix::build(b, p, o), ctx.stream());
  // Both ways of sharing out an inner level's items (by_level_size picks one of them a level).
  for (auto schedule : {HiSparseAdd::InnerSchedule::warp_per_item, HiSparseAdd::InnerSchedule::block_per_item}) {
    INFO("inner items a ", schedule == HiSparseAdd::InnerSchedule::warp_per_item ? "warp" : "block");
    HiSparseAdd plan(ctx, da, op_a, db, op_b, schedule);
    plan.enqueue(alpha, beta);
    const DeviceHiSparse dc = plan.take_result();
    const HiSparseMatrix c = dc.download(ctx.stream());
    check_sum(c, a, op_a, b, op_b, alpha, beta, p);
    // C's nodes are the ones the host build picks for C's entries (random values: no sum cancels to zero).
    CHECK_MESSAGE(dc.pool_bytes() == HiSparseMatrix::build(c.to_host(), p, o).pool().size(),
                  "C's node types are not the build's");
  }
}

}  // namespace

TEST_CASE("gpu hisparse add: every entry type, both precisions, op n, t and h") {
  for (const char* name : {"real", "complex", "quaternion", "block3", "dual_quaternion"}) {
    const EntryType& e = entry(name);
    const HostMatrix a = random(e, 700, 700, 6, 0, 11), b = random(e, 700, 700, 4, 0, 12);
    for (Precision p : {Precision::f32, Precision::f64})
      for (auto [op_a, op_b] : {std::pair{Op::n, Op::n}, {Op::t, Op::t}, {Op::n, Op::t}, {Op::h, Op::h}, {Op::h, Op::n}}) {
        if ((op_a == Op::h || op_b == Op::h) && std::string(name) == "dual_quaternion") {
          const DeviceHiSparse da(HiSparseMatrix::build(a, p), gpu_context().stream());
          CHECK_THROWS_WITH_AS(HiSparseAdd(gpu_context(), da, op_a, da, op_b), doctest::Contains("dual_quaternion"),
                               InvalidArgument);
          continue;
        }
        HiSparseOptions o;
        o.d = 16;  // three levels: inner nodes of both kinds
        add_and_check(a, op_a, b, op_b, 2.0, -0.5, p, o);
      }
  }
}

TEST_CASE("gpu hisparse add: node widths, COO widths, dense leaves, shapes") {
  const EntryType& c = entry("complex");
  const HostMatrix banded = random(c, 1500, 1500, 40, 24, 3), other = random(c, 1500, 1500, 5, 0, 4);
  for (int d : {16, 32, 64, 128, 256})
    for (int x : {1, 2, 4}) {
      HiSparseOptions o;
      o.d = d;
      o.coo_width = x;
      add_and_check(banded, Op::n, other, Op::n, 1.0, 1.0, Precision::f64, o);
      add_and_check(other, Op::t, banded, Op::n, 0.5, 3.0, Precision::f32, o);
    }
  HiSparseOptions o;
  o.dense_leaves = false;
  add_and_check(banded, Op::n, other, Op::h, 1.0, -1.0, Precision::f64, o);
  // Non-square: A is 400 x 130, B 130 x 400 read transposed.
  const HostMatrix wide = random(c, 130, 400, 5, 0, 5), tall = random(c, 400, 130, 3, 0, 6);
  add_and_check(tall, Op::n, wide, Op::t, 1.0, 2.0, Precision::f64, o);
  add_and_check(wide, Op::h, tall, Op::n, 1.0, 2.0, Precision::f64, HiSparseOptions{});
  // One operand empty, both empty, 1 x 1, 0 x 0.
  TripletList none(c, 400, 130);
  add_and_check(tall, Op::n, none.build(), Op::n, 1.0, 1.0, Precision::f64, o);
  add_and_check(none.build(), Op::n, none.build(), Op::n, 1.0, 1.0, Precision::f64, o);
  TripletList one(c, 1, 1);
  const double v[2] = {1.5, -2};
  one.add(0, 0, v);
  add_and_check(one.build(), Op::n, one.build(), Op::t, 1.0, 1.0, Precision::f32, o);
  add_and_check(TripletList(c, 0, 0).build(), Op::n, TripletList(c, 0, 0).build(), Op::n, 1.0, 1.0, Precision::f64, o);
}

TEST_CASE("gpu hisparse add: leaves of one entry (a scattered pattern): one lane a pair, every COO width") {
  // About 0.3 entries a 64 x 64 leaf: nearly every pair of leaves holds one entry or none in each tree
  // (hisparse_add_leaf_small), B shares most of A's cells (a merged entry), a few leaves hold more.
  for (const char* name : {"complex", "block3"}) {
    const HostMatrix a = random(entry(name), 20000, 20000, 1.5, 0, 41), b = perturb_pattern(a, 42);
    for (int x : {1, 2, 4})
      for (bool csr : {true, false}) {
        HiSparseOptions o;
        o.coo_width = x;
        o.csr_leaves = csr;
        for (auto [op_a, op_b] : {std::pair{Op::n, Op::n}, {Op::t, Op::t}, {Op::n, Op::t}, {Op::h, Op::n}})
          add_and_check(a, op_a, b, op_b, 1.5, -0.5, std::string(name) == "complex" ? Precision::f32 : Precision::f64, o);
      }
  }
}

TEST_CASE("gpu hisparse add: CSR leaves in, CSR leaves out, and COO out of CSR in") {
  Context& ctx = gpu_context();
  const EntryType& c = entry("complex");
  const HostMatrix banded = random(c, 1500, 1500, 40, 24, 3), other = random(c, 1500, 1500, 5, 0, 4);
  HiSparseOptions csr;
  csr.d = 64;
  csr.dense_leaves = false;  // the band's leaves are CSR
  HiSparseOptions coo = csr;
  coo.csr_leaves = false;
  const HiSparseMatrix a_csr = HiSparseMatrix::build(banded, Precision::f64, csr);
  REQUIRE(hisparse_statistics(a_csr).node_count(HiNodeType::csr_leaf) > 0);
  const DeviceHiSparse da(a_csr, ctx.stream());
  const DeviceHiSparse db(HiSparseMatrix::build(other, Precision::f64, csr), ctx.stream());
  const HiSparseMatrix sum = hisparse_add(ctx, da, Op::n, db, Op::t, 1.0, 2.0).download(ctx.stream());
  check_sum(sum, banded, Op::n, other, Op::t, 1.0, 2.0, Precision::f64);
  CHECK(hisparse_statistics(sum).node_count(HiNodeType::csr_leaf) > 0);
  // C takes A's options: no CSR leaves, so the band's entries take two bytes of coordinates where they
  // took one in B (the pool's bound must hold them)
  const DeviceHiSparse dcoo(HiSparseMatrix::build(other, Precision::f64, coo), ctx.stream());
  const HiSparseMatrix as_coo = hisparse_add(ctx, dcoo, Op::n, da, Op::n, 1.0, 1.0).download(ctx.stream());
  check_sum(as_coo, other, Op::n, banded, Op::n, 1.0, 1.0, Precision::f64);
  CHECK(hisparse_statistics(as_coo).node_count(HiNodeType::csr_leaf) == 0);
}

TEST_CASE("gpu hisparse add: the state of an operand (transpose flag, scale) is applied; A - A keeps zeros") {
  Context& ctx = gpu_context();
  const EntryType& q = entry("quaternion");
  const HostMatrix a = random(q, 900, 600, 5, 0, 21), b = random(q, 600, 900, 5, 0, 22);
  HiSparseOptions o;
  o.d = 32;
  DeviceHiSparse da(HiSparseMatrix::build(a, Precision::f64, o), ctx.stream());
  const DeviceHiSparse db(HiSparseMatrix::build(b, Precision::f64, o), ctx.stream());
  da.transpose();
  da.set_scale(3.0);
  // (3 A^T) + B, then its transpose-as-operand: op t of the sum is 3 A + B^T.
  DeviceHiSparse c = hisparse_add(ctx, da, Op::n, db, Op::n, 1.0, 1.0);
  check_sum(c.download(ctx.stream()), a, Op::t, b, Op::n, 3.0, 1.0, Precision::f64);
  const DeviceHiSparse bt(HiSparseMatrix::build(transpose_pattern(b), Precision::f64, o), ctx.stream());
  const DeviceHiSparse again = hisparse_add(ctx, c, Op::t, bt, Op::n, 1.0, 1.0);  // (3A^T + B)^T + B^T = 3A + 2B^T
  check_sum(again.download(ctx.stream()), a, Op::n, b, Op::t, 3.0, 2.0, Precision::f64);
  // A - A: every position stays, as an explicit zero in COO leaves.
  da.transpose();
  da.set_scale(1.0);
  const HiSparseMatrix z = hisparse_add(ctx, da, Op::n, da, Op::n, 1.0, -1.0).download(ctx.stream());
  CHECK(z.nnz() == a.nnz());
  for (double x : z.to_host().values) CHECK(x == 0.0);
}

TEST_CASE("gpu hisparse add: a large tree (many nodes per level), and a plan run twice") {
  Context& ctx = gpu_context();
  const EntryType& r = entry("real");
  const HostMatrix a = random(r, 60000, 60000, 12, 3000, 31), b = random(r, 60000, 60000, 8, 0, 32);
  HiSparseOptions o;
  o.d = 16;  // four levels
  const DeviceHiSparse da(HiSparseMatrix::build(a, Precision::f64, o), ctx.stream());
  const DeviceHiSparse db(HiSparseMatrix::build(b, Precision::f64, o), ctx.stream());
  for (auto schedule : {HiSparseAdd::InnerSchedule::by_level_size, HiSparseAdd::InnerSchedule::warp_per_item,
                        HiSparseAdd::InnerSchedule::block_per_item}) {
    HiSparseAdd plan(ctx, da, Op::n, db, Op::t, schedule);
    plan.enqueue(1.0, 1.0);
    plan.enqueue(2.0, -1.0);  // the second run overwrites the first
    const DeviceHiSparse c = plan.take_result();
    CHECK(c.pool_bytes() <= c.span_bytes());
    CHECK(c.span_bytes() <= plan.capacity_bytes());
    check_sum(c.download(ctx.stream()), a, Op::n, b, Op::t, 2.0, -1.0, Precision::f64);
    CHECK_THROWS_AS(plan.take_result(), InvalidArgument);
  }
}

TEST_CASE("gpu hisparse add: operands that do not match are refused before any work") {
  Context& ctx = gpu_context();
  const HostMatrix a = random(entry("complex"), 50, 40, 3, 0, 1);
  HiSparseOptions o16, o32;
  o16.d = 16;
  o32.d = 32;
  const DeviceHiSparse d16(HiSparseMatrix::build(a, Precision::f64, o16), ctx.stream());
  const DeviceHiSparse d32(HiSparseMatrix::build(a, Precision::f64, o32), ctx.stream());
  const DeviceHiSparse f32(HiSparseMatrix::build(a, Precision::f32, o16), ctx.stream());
  const DeviceHiSparse real(HiSparseMatrix::build(random(entry("real"), 50, 40, 3, 0, 1), Precision::f64, o16), ctx.stream());
  CHECK_THROWS_WITH_AS(HiSparseAdd(ctx, d16, Op::n, d32, Op::n), doctest::Contains("width"), InvalidArgument);
  CHECK_THROWS_WITH_AS(HiSparseAdd(ctx, d16, Op::n, f32, Op::n), doctest::Contains("f32"), InvalidArgument);
  CHECK_THROWS_WITH_AS(HiSparseAdd(ctx, d16, Op::n, real, Op::n), doctest::Contains("'real'"), InvalidArgument);
  CHECK_THROWS_WITH_AS(HiSparseAdd(ctx, d16, Op::n, d16, Op::t), doctest::Contains("50 x 40"), InvalidArgument);
}
