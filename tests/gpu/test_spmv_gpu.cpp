// Every structural variant with several schedules, on real and constructed matrices, in both precisions,
// checked against the double CPU reference (per-row tolerance scaled by sum |a_ij||x_j|, y poisoned).
#include <doctest/doctest.h>

#include <iostream>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "core/hisparse.hpp"
#include "core/hisparse_pack.hpp"
#include "core/permutation.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "generator/search_space.hpp"
#include "gpu_test_util.hpp"
#include "io/matrix_market.hpp"
#include "runtime/spmv.hpp"

using namespace jitsparse;
using jitsparse::test::gpu_context;

namespace {

const EntryType& entry_type(const std::string& n) { return EntryRegistry::instance().get(n); }

// The test matrices of one entry type: real files (or their patterns), random ones with empty rows,
// one long row, odd and rectangular shapes, and the degenerate cases.
std::vector<HostMatrix> matrices_for(const std::string& entry) {
  const std::string data = test::test_data_dir();
  const EntryType& e = entry_type(entry);
  std::vector<HostMatrix> out;
  if (entry == "complex") {
    out.push_back(read_matrix_market(data + "/complex/mhd1280b.mtx", {"complex"}));
    out.push_back(read_matrix_market(data + "/complex/young1c.mtx", {"complex"}));
  } else if (entry == "real") {
    out.push_back(read_matrix_market(data + "/real/bcsstk13.mtx"));
    out.push_back(read_matrix_market(data + "/real/lp_afiro.mtx"));  // rectangular 27 x 51
  } else {
    out.push_back(with_entry_type(read_matrix_market(data + "/real/sherman3.mtx"), e, 7));
  }
  RandomMatrixOptions o;
  o.rows = 2053;  // not a multiple of any slice or block size
  o.cols = 1777;
  o.mean_row = 9;
  o.empty_fraction = 0.1;
  o.long_row = 1500;
  o.seed = 11;
  out.push_back(random_matrix(e, o));
  o.rows = 37;  // tall, few rows (less than a warp's worth of slices)
  o.cols = 4000;
  o.long_row = 0;
  o.empty_fraction = 0.3;
  out.push_back(random_matrix(e, o));
  o.rows = 1;
  o.cols = 1;
  o.empty_fraction = 0;
  o.mean_row = 1;
  out.push_back(random_matrix(e, o));
  o.rows = 300;
  o.cols = 200;
  o.empty_fraction = 1.0;  // all rows empty
  out.push_back(random_matrix(e, o));
  o.rows = 600;  // full rows in a band: dense hisparse leaves along the diagonal at d = 16
  o.cols = 600;
  o.empty_fraction = 0;
  o.mean_row = 40;
  o.band = 12;
  o.seed = 12;
  out.push_back(random_matrix(e, o));
  o.rows = 30000;  // runs of empty rows: hola blocks spanning more rows than 4 per thread search row_ptr
  o.cols = 700;
  o.band = 0;
  o.mean_row = 6;
  o.empty_fraction = 0.95;
  o.seed = 13;
  out.push_back(random_matrix(e, o));
  return out;
}

struct Tally {
  size_t runs = 0;
  std::map<std::string, int> variants;
};
Tally& tally() {
  static Tally t;
  return t;
}

// Runs y = alpha op(A) x + beta y0 and checks it; for dynamic and hola schedules twice, which proves the
// launch resets its own chunk counter and rebuilds its block rows.
void check_variant(Context& ctx, const Variant& v, const HostMatrix& a, const DeviceMatrix& da, double alpha,
                   double beta) {
  const int vc = a.vector_components();
  const int64_t x_len = is_transposed(v.op) ? a.rows : a.cols, y_len = is_transposed(v.op) ? a.cols : a.rows;
  const auto x = random_vector(x_len, vc, 3);
  const auto y0 = random_vector(y_len, vc, 5);
  DeviceVector dx(ctx, x_len, vc, v.layout.vector, v.precision);
  DeviceVector dy(ctx, y_len, vc, v.layout.vector, v.precision);
  dx.upload(x);
  auto ax = reference_apply(a, x, v.op);
  auto scale = reference_abs_scale(a, x, v.op);
  std::vector<double> ref(ax.size()), sc(ax.size());
  for (size_t i = 0; i < ax.size(); ++i) {
    ref[i] = alpha * ax[i] + beta * y0[i];
    sc[i] = std::abs(alpha) * scale[i] + std::abs(beta * y0[i]);
  }
  SpmvLaunch launch(ctx, v, da, dx, dy, alpha, beta);
  const int repeats = v.schedule.kind == ScheduleKind::static_ ? 1 : 2;
  for (int r = 0; r < repeats; ++r) {
    if (beta == 0)
      dy.poison();
    else
      dy.upload(y0);
    launch.launch();
    ctx.synchronize();
    const auto y = dy.download();
    const auto result = verify_result(y, ref, sc, default_tolerance(v.precision));
    INFO(v.name(), " on ", a.name, " (", a.rows, " x ", a.cols, ", nnz ", a.nnz(), "), launch ", r + 1,
         ", alpha ", alpha, ", beta ", beta);
    CHECK_MESSAGE(result.ok, result.message);
    ++tally().runs;
  }
  ++tally().variants[v.name()];
}

// Two of them read the matrix through the cached load policy and three unroll 8, 1 or 4 iterations
// (one of each is among the transposed products', which take every other schedule).
const std::vector<Schedule> kSchedules = {
    Schedule::parse("static-256x2"),            Schedule::parse("dynamic-128x4-u8"),
    Schedule::parse("static-96x3-tpr4-cached"), Schedule::parse("dynamic-1024x2-tpr32-u1"),
    Schedule::parse("static-32x1-tpr8-u4"),     Schedule::parse("dynamic-64x16-tpr2-cached"),
};

// Hola: blocks of 1024, 128, 4096 (in f32 reals) and 64 entries; the test matrices have rows longer than a
// block, empty rows, and rows ending on block and thread boundaries.
const std::vector<Schedule> kHolaSchedules = {
    Schedule{ScheduleKind::hola, 256, 8, 1, 4}, Schedule{ScheduleKind::hola, 128, 16, 1, 1},
    Schedule{ScheduleKind::hola, 512, 4, 1, 8}, Schedule{ScheduleKind::hola, 32, 32, 1, 2},
};

// HiSparse: groups of 16, 4, 32, 8 and 32 threads; big strips from 64 slots (most strips take a block),
// 4096, none, 256 and 4096; 2, 1, 8, 4 and 1 chunks of a COO leaf per thread and step (u); the third and
// fourth with small leaves worked one per lane (-s), the last two with small leaves batched (-b).
// Transposed products take the first, third and fifth.
const std::vector<Schedule> kHiSparseSchedules = {
    Schedule::parse("hisparse-128x4-g16-big4096"),    Schedule::parse("hisparse-256x2-g4-big64-u1"),
    Schedule::parse("hisparse-64x8-g32-big0-u8-s"),   Schedule::parse("hisparse-96x3-g8-big256-u4-s-b"),
    Schedule::parse("hisparse-128x4-g32-big4096-u1-b"),
};
// Node widths 16, 64 and 256 with COO1, COO2 and COO4 leaves, two with CSR leaves (r); vectors aos and soa.
const std::vector<Layout> kHiSparseLayouts = {
    Layout::parse("hisparse16c1-aos-aos"),  Layout::parse("hisparse64c2-aos-soa"), Layout::parse("hisparse256c4r-aos-aos"),
    Layout::parse("hisparse32c4-aos-aos"), Layout::parse("hisparse64c2r-aos-aos"),
};

// The variants of one (entry, precision, layout, op): every kind and schedule the entry can run (hola's
// and hisparse's shared memory depend on the entry type). Transposed products take every other schedule.
std::vector<Variant> variants_for(const EntryType& e, Precision p, const Layout& layout, Op op, TransposeKind kind) {
  std::vector<Variant> out;
  const bool hi = layout.outer == OuterLayout::hisparse;
  if (hi && op != Op::n && kind != TransposeKind::tree) return out;
  if (!hi && kind == TransposeKind::tree) return out;
  const auto& schedules = layout.outer == OuterLayout::hola ? kHolaSchedules : hi ? kHiSparseSchedules : kSchedules;
  for (size_t i = 0; i < schedules.size(); i += op == Op::n ? 1 : 2) {
    Variant v{e.name, p, layout, schedules[i], op, kind};
    if (kernel_shared_bytes(v, e.num_vector_components()) <= kMaxStaticShared) out.push_back(v);
  }
  return out;
}

std::vector<Layout> tested_layouts() {
  std::vector<Layout> out = all_layouts();
  out.push_back(Layout::parse("sell16s32-aos-soa"));  // sorted sell with windows of two slices
  return out;  // the hisparse layouts have test cases of their own (below), to be run alone after a change
}

void run_entry(const std::string& entry, const std::vector<Op>& ops = {Op::n, Op::t, Op::h},
               const std::vector<Layout>& layouts = tested_layouts()) {
  Context& ctx = gpu_context();
  const EntryType& e = entry_type(entry);
  const auto mats = matrices_for(entry);
  struct Case {
    Op op;
    TransposeKind kind;
  };
  std::vector<Case> cases;
  for (Op op : ops) {
    if (op == Op::n) {
      cases.push_back({op, TransposeKind::atomic});
    } else {
      cases.push_back({op, TransposeKind::atomic});
      cases.push_back({op, TransposeKind::copy});
      cases.push_back({op, TransposeKind::tree});  // hisparse only
    }
  }
  std::vector<Variant> variants;
  for (Precision p : {Precision::f32, Precision::f64})
    for (const Layout& layout : layouts)
      for (const Case& c : cases)
        for (const Variant& v : variants_for(e, p, layout, c.op, c.kind)) variants.push_back(v);
  const auto errors = ctx.prepare(variants);
  for (size_t i = 0; i < variants.size(); ++i) {
    INFO(variants[i].name());
    REQUIRE_MESSAGE(errors[i].empty(), errors[i]);
  }
  for (const HostMatrix& a : mats)
    for (Precision p : {Precision::f32, Precision::f64})
      for (const Layout& layout : layouts) {
        DeviceMatrix da(ctx, a, layout, p);
        std::unique_ptr<DeviceMatrix> dt;  // the transposed copy, for the copy kind
        for (const Case& c : cases) {
          const auto vs = variants_for(e, p, layout, c.op, c.kind);
          if (vs.empty()) continue;
          if (vs[0].uses_transposed_copy() && !dt)
            dt = std::make_unique<DeviceMatrix>(DeviceMatrix::transposed(ctx, a, layout, p));
          const DeviceMatrix& m = vs[0].uses_transposed_copy() ? *dt : da;
          for (const Variant& v : vs) check_variant(ctx, v, a, m, 1.0, 0.0);
          // alpha/beta with one schedule per layout and kind
          check_variant(ctx, vs.back(), a, m, -0.5, 2.0);
        }
      }
}

}  // namespace

TEST_CASE("gpu spmv: real") { run_entry("real"); }
TEST_CASE("gpu spmv: complex") { run_entry("complex"); }
TEST_CASE("gpu spmv: quaternion") { run_entry("quaternion"); }
TEST_CASE("gpu spmv: block3") { run_entry("block3"); }
TEST_CASE("gpu spmv: dual_quaternion (a JSON-only type)") { run_entry("dual_quaternion"); }
TEST_CASE("gpu spmv: the hisparse test matrices hold every leaf type the products read") {
  // So the cases below exercise the COO, dense and CSR leaf paths of A x and A^T x (a CPU check).
  std::map<HiNodeType, int64_t> leaves;
  for (const char* entry : {"real", "quaternion"})
    for (const HostMatrix& a : matrices_for(entry_type(entry).name))
      for (const Layout& layout : kHiSparseLayouts) {
        const HiSparseStats s = hisparse_statistics(HiSparseMatrix::build(a, Precision::f64, hisparse_options(layout)));
        for (HiNodeType t : {HiNodeType::dense_leaf, HiNodeType::coo1, HiNodeType::coo2, HiNodeType::coo4, HiNodeType::csr_leaf})
          leaves[t] += s.node_count(t);
      }
  for (const auto& [type, count] : leaves) {
    INFO(to_string(type));
    CHECK(count > 0);
  }
}
TEST_CASE("gpu spmv: hisparse layouts (real)") { run_entry("real", {Op::n, Op::t, Op::h}, kHiSparseLayouts); }
TEST_CASE("gpu spmv: hisparse layouts (complex)") { run_entry("complex", {Op::n, Op::t, Op::h}, kHiSparseLayouts); }
TEST_CASE("gpu spmv: hisparse layouts (quaternion)") { run_entry("quaternion", {Op::n, Op::t, Op::h}, kHiSparseLayouts); }
TEST_CASE("gpu spmv: hisparse layouts (block3)") { run_entry("block3", {Op::n, Op::t, Op::h}, kHiSparseLayouts); }
TEST_CASE("gpu spmv: hisparse layouts (dual_quaternion)") {
  run_entry("dual_quaternion", {Op::n, Op::t, Op::h}, kHiSparseLayouts);
}
// The hola layouts alone (also part of the cases above): small enough for compute-sanitizer.
TEST_CASE("gpu spmv: hola layouts (every entry type)") {
  std::vector<Layout> hola;
  for (const Layout& l : all_layouts())
    if (l.outer == OuterLayout::hola) hola.push_back(l);
  REQUIRE(hola.size() == 4);
  for (const char* entry : {"real", "complex", "quaternion", "block3"}) {
    INFO(entry);
    run_entry(entry, {Op::n, Op::t}, hola);
  }
}

// The kernels added with the sorted sell layout, the load policies, unrolling and the narrow (-d16)
// layouts, and the even grid, alone: small enough for compute-sanitizer (scripts/device_run.sh sanitize-new).
// static-32x1-tpr32-even: one row per chunk, so on any GPU of fewer than 2,053 SMs each block runs a
// dozen or more chunks (H100: 2,053 chunks on 129 blocks instead of 132).
static void run_new_kernels(const char* name) {
  Context& ctx = gpu_context();
  const std::vector<Schedule> schedules = {Schedule::parse("static-256x2-cached"), Schedule::parse("dynamic-128x4-u8"),
                                           Schedule::parse("static-64x4-tpr4-u4-cached"), Schedule::parse("static-128x4-u1"),
                                           Schedule::parse("static-32x1-tpr32-even")};
  {
    const EntryType& e = entry_type(name);
    RandomMatrixOptions o;
    o.rows = 2053;
    o.cols = 1777;
    o.mean_row = 9;
    o.empty_fraction = 0.1;
    o.long_row = 1500;
    o.seed = 21;
    const HostMatrix a = random_matrix(e, o);
    for (const char* layout : {"sell32s256-aos-aos", "sell16s32-soa-soa", "csr-aos-soa", "csr-aos-aos-d16",
                               "ell-soa-aos-d16", "sell16-soa-soa-d16", "sell32s256-aos-aos-d16"})
      for (Precision p : {Precision::f32, Precision::f64}) {
        const Layout l = Layout::parse(layout);
        DeviceMatrix da(ctx, a, l, p);
        DeviceMatrix dt = DeviceMatrix::transposed(ctx, a, l, p);
        for (const Schedule& sc : schedules)
          for (Op op : {Op::n, Op::t, Op::h})
            for (TransposeKind kind : {TransposeKind::atomic, TransposeKind::copy}) {
              if (op == Op::n && kind == TransposeKind::copy) continue;
              const Variant v{e.name, p, l, sc, op, kind};
              check_variant(ctx, v, a, v.uses_transposed_copy() ? dt : da, 1.0, 0.0);
              if (op == Op::n) check_variant(ctx, v, a, da, -0.5, 2.0);
            }
      }
  }
  {  // narrow layouts with offsets up to +-32000 (the int16 range is +-32767), rows != cols
    const EntryType& e = entry_type(name);
    RandomMatrixOptions o;
    o.rows = 90000;
    o.cols = 80000;
    o.mean_row = 3;
    o.band = 32000 - 10000;  // around the row's diagonal position r * cols / rows: |col - r| <= 32000
    o.seed = 22;
    const HostMatrix a = random_matrix(e, o);
    REQUIRE(narrow_columns_fit(a));
    for (const char* layout : {"csr-soa-aos-d16", "sell32-aos-aos-d16", "sell32s1024-aos-soa-d16"})
      for (Precision p : {Precision::f32, Precision::f64}) {
        const Layout l = Layout::parse(layout);
        DeviceMatrix da(ctx, a, l, p);
        for (Op op : {Op::n, Op::t})
          check_variant(ctx, Variant{e.name, p, l, schedules[1], op, TransposeKind::atomic}, a, da, 1.0, 0.0);
        // 704 chunks of 128 rows: 6 per block on 118 blocks of an H100 (132 without the even grid)
        check_variant(ctx, Variant{e.name, p, l, Schedule::parse("static-128x1-even"), Op::n, TransposeKind::atomic},
                      a, da, -0.5, 2.0);
      }
  }
}

TEST_CASE("gpu spmv: sorted sell, load policies, unroll and narrow columns (real)") { run_new_kernels("real"); }
TEST_CASE("gpu spmv: sorted sell, load policies, unroll and narrow columns (complex)") { run_new_kernels("complex"); }
TEST_CASE("gpu spmv: sorted sell, load policies, unroll and narrow columns (block3)") { run_new_kernels("block3"); }

// Renumbered variants (@rcm, @degree): DeviceMatrix::for_variant packs P A P^T, SpmvLaunch moves x in and the
// result back (permute.cuh), or the product writes it back (y_map); checked in the caller's numbering
// against A itself, with alpha and beta, in every family (row, narrow row, hola, hisparse), op n, t and h,
// both kinds, both vector layouts, both y forms. Small
// enough for compute-sanitizer (scripts/device_run.sh sanitize-new).
static void run_renumbered(const char* name) {
  Context& ctx = gpu_context();
  const EntryType& e = entry_type(name);
  RandomMatrixOptions o;  // a band, randomly renumbered: what reverse Cuthill-McKee undoes
  o.rows = o.cols = 2500;
  o.mean_row = 8;
  o.band = 30;
  o.empty_fraction = 0.05;
  o.seed = 41;
  const HostMatrix a = permute_symmetric(random_matrix(e, o), random_permutation(o.rows, 42));
  const std::vector<std::string> variants = {
      "csr-aos-aos/static-256x2", "ell-soa-soa-d16/dynamic-128x4-u8", "sell32-aos-soa/static-64x4-tpr4-cached",
      "sell32s256-soa-aos-d16/static-128x4-u1", "hola-aos-aos/hola-128x4-ept4", "hisparse32c2-aos-aos/hisparse-128x4-g16-big4096-s",
      "csr-aos-soa/static-32x1-tpr32-even"};
  for (Ordering ordering : {Ordering::rcm, Ordering::degree})
    for (const auto& vs : variants)
      for (Precision p : {Precision::f32, Precision::f64})
        for (Op op : {Op::n, Op::t, Op::h})
          for (TransposeKind kind : {TransposeKind::atomic, TransposeKind::copy})
          for (RenumberedY y_form : {RenumberedY::mapped, RenumberedY::moved}) {
            if ((op == Op::n && kind == TransposeKind::copy) || (op == Op::h && !e.has_adjoint)) continue;
            Variant v = Variant::parse(e.name + "." + to_string(p) + "/" + vs + ordering_suffix(ordering));
            v.op = op;
            v.renumbered_y = y_form;
            v.transpose = v.layout.outer == OuterLayout::hisparse && op != Op::n ? TransposeKind::tree : kind;
            if (kernel_shared_bytes(v, e.num_vector_components()) > kMaxStaticShared) continue;
            const DeviceMatrix da = DeviceMatrix::for_variant(ctx, a, v);
            CHECK(da.ordering() == ordering);
            check_variant(ctx, v, a, da, 1.0, 0.0);
            check_variant(ctx, v, a, da, -0.5, 2.0);
          }
  // A renumbered matrix runs only renumbered variants, and the other way round.
  const Variant v = Variant::parse(e.name + ".f64/csr-aos-aos/static-256x2@rcm");
  const DeviceMatrix plain(ctx, a, v.layout, v.precision);
  const DeviceMatrix renumbered = DeviceMatrix::for_variant(ctx, a, v);
  DeviceVector dx(ctx, a.cols, e.num_vector_components(), v.layout.vector, v.precision);
  DeviceVector dy(ctx, a.rows, e.num_vector_components(), v.layout.vector, v.precision);
  CHECK_THROWS_AS(SpmvLaunch(ctx, v, plain, dx, dy), InvalidArgument);
  CHECK_THROWS_AS(SpmvLaunch(ctx, v.kernel_variant(), renumbered, dx, dy), InvalidArgument);
  const HostMatrix wide = random_matrix(e, [] {
    RandomMatrixOptions w;
    w.rows = 30;
    w.cols = 40;
    return w;
  }());
  CHECK_THROWS_AS(DeviceMatrix::for_variant(ctx, wide, v), InvalidArgument);
  // Packed with a renumbering computed before (Selection::permutation): the same matrix, and a wrong
  // length is refused.
  const Variant narrow = Variant::parse(e.name + ".f64/ell-soa-soa-d16/dynamic-128x4-u8@rcm");
  const std::vector<int32_t> perm = ordering_permutation(a, Ordering::rcm);
  const DeviceMatrix given = DeviceMatrix::for_variant(ctx, a, narrow, &perm);
  CHECK(given.ordering() == Ordering::rcm);
  check_variant(ctx, narrow, a, given, -0.5, 2.0);
  const std::vector<int32_t> short_perm(perm.begin(), perm.end() - 1);
  CHECK_THROWS_AS(DeviceMatrix::for_variant(ctx, a, narrow, &short_perm), InvalidArgument);
}

TEST_CASE("gpu spmv: renumbered variants (real)") { run_renumbered("real"); }
TEST_CASE("gpu spmv: renumbered variants (complex)") { run_renumbered("complex"); }
TEST_CASE("gpu spmv: renumbered variants (quaternion)") { run_renumbered("quaternion"); }

// The hisparse kernels with small leaves worked one per lane (-s) or batched (-b), alone, on a randomly
// numbered matrix (one-entry leaves) and a banded one (big and dense leaves beside small ones): small enough for
// compute-sanitizer (scripts/device_run.sh sanitize-hisparse).
static void run_small_leaf_kernels(const char* name) {
  Context& ctx = gpu_context();
  const EntryType& e = entry_type(name);
  RandomMatrixOptions scattered, banded;
  scattered.rows = 1900;
  scattered.cols = 2300;
  scattered.mean_row = 3;
  scattered.empty_fraction = 0.1;
  scattered.seed = 31;
  banded.rows = banded.cols = 1500;
  banded.mean_row = 30;
  banded.band = 20;
  banded.seed = 32;
  for (const RandomMatrixOptions& o : {scattered, banded}) {
    const HostMatrix a = random_matrix(e, o);
    for (const char* layout : {"hisparse32c2-aos-aos", "hisparse64c4-aos-soa"})
      for (Precision p : {Precision::f32, Precision::f64}) {
        const Layout l = Layout::parse(layout);
        DeviceMatrix da(ctx, a, l, p);
        for (const char* sc : {"hisparse-128x4-g16-big4096-s", "hisparse-64x8-g4-big64-s", "hisparse-128x4-g32-big4096-u1-b",
                               "hisparse-64x4-g16-big0-u2-b"})
          for (Op op : {Op::n, Op::t, Op::h}) {
            const Variant v{e.name, p, l, Schedule::parse(sc), op, TransposeKind::tree};
            if (kernel_shared_bytes(v, e.num_vector_components()) > kMaxStaticShared) continue;
            check_variant(ctx, v, a, da, 1.0, 0.0);
            check_variant(ctx, v, a, da, -0.5, 2.0);
          }
      }
  }
}

TEST_CASE("gpu spmv: hisparse small leaves per lane and batched (real)") { run_small_leaf_kernels("real"); }
TEST_CASE("gpu spmv: hisparse small leaves per lane and batched (complex)") { run_small_leaf_kernels("complex"); }
TEST_CASE("gpu spmv: hisparse small leaves per lane and batched (quaternion)") { run_small_leaf_kernels("quaternion"); }

TEST_CASE("gpu spmv: transposed products need the right matrix and vector lengths") {
  Context& ctx = gpu_context();
  RandomMatrixOptions o;
  o.rows = 100;
  o.cols = 80;
  const HostMatrix a = random_matrix(entry_type("complex"), o);
  const Variant atomic = Variant::parse("complex.f64/csr-aos-aos/static-256x2/h-atomic");
  const Variant copy = Variant::parse("complex.f64/csr-aos-aos/static-256x2/h-copy");
  DeviceMatrix da(ctx, a, atomic.layout, atomic.precision);
  DeviceMatrix dt = DeviceMatrix::transposed(ctx, a, atomic.layout, atomic.precision);
  CHECK(dt.rows() == 80);
  CHECK(dt.is_transposed_copy());
  DeviceVector x(ctx, 100, 2, VectorLayout::aos, Precision::f64), y(ctx, 80, 2, VectorLayout::aos, Precision::f64);
  CHECK_NOTHROW(SpmvLaunch(ctx, atomic, da, x, y));
  CHECK_NOTHROW(SpmvLaunch(ctx, copy, dt, x, y));
  CHECK_THROWS_WITH_AS(SpmvLaunch(ctx, copy, da, x, y), doctest::Contains("transposed copy"), InvalidArgument);
  CHECK_THROWS_WITH_AS(SpmvLaunch(ctx, atomic, dt, x, y), doctest::Contains("transposed copy"), InvalidArgument);
  CHECK_THROWS_AS(SpmvLaunch(ctx, atomic, da, y, x), InvalidArgument);  // lengths of A x, not A^H x
}

TEST_CASE("gpu spmv: argument errors are clear exceptions") {
  Context& ctx = gpu_context();
  RandomMatrixOptions o;
  o.rows = 100;
  o.cols = 80;
  const HostMatrix a = random_matrix(entry_type("complex"), o);
  const Variant v = Variant::parse("complex.f64/csr-aos-aos/static-256x2");
  DeviceMatrix da(ctx, a, v.layout, v.precision);
  DeviceVector x(ctx, 80, 2, VectorLayout::aos, Precision::f64), y(ctx, 100, 2, VectorLayout::aos, Precision::f64);
  DeviceVector wrong(ctx, 81, 2, VectorLayout::aos, Precision::f64);
  CHECK_THROWS_AS(SpmvLaunch(ctx, v, da, wrong, y), InvalidArgument);
  CHECK_THROWS_AS(SpmvLaunch(ctx, Variant::parse("complex.f32/csr-aos-aos/static-256x2"), da, x, y), InvalidArgument);
  CHECK_THROWS_AS(SpmvLaunch(ctx, Variant::parse("complex.f64/ell-aos-aos/static-256x2"), da, x, y), InvalidArgument);
  CHECK_THROWS_AS(x.upload(std::vector<double>(3)), InvalidArgument);
  // ELL of a matrix with one long row explodes: the cap refuses it before packing.
  o.long_row = 80;
  o.rows = 5000;
  const HostMatrix skew = random_matrix(entry_type("complex"), o);
  CHECK_THROWS_WITH_AS(DeviceMatrix(ctx, skew, Layout::parse("ell-aos-aos"), Precision::f64, 1 << 20),
                       doctest::Contains("memory cap"), InvalidArgument);
  CHECK_THROWS_AS(DeviceVector(ctx, int64_t(1) << 40, 4, VectorLayout::aos, Precision::f64), DeviceError);
}

TEST_CASE("gpu spmv: summary") {
  std::cout << "GPU spmv verified: " << tally().variants.size() << " variants, " << tally().runs
            << " launches checked against the CPU reference on " << gpu_context().device().name << "\n";
}

TEST_CASE("gpu spmv: refresh_values keeps the pattern and changes the product") {
  Context& ctx = gpu_context();
  RandomMatrixOptions o;
  o.rows = 1500;
  o.cols = 1400;
  o.empty_fraction = 0.1;
  const EntryType& q = entry_type("quaternion");
  const HostMatrix a = random_matrix(q, o);
  const HostMatrix b = with_entry_type(a, q, 99);  // same pattern, new values
  for (const char* name : {"quaternion.f64/sell32-soa-aos/dynamic-128x4-tpr2", "quaternion.f32/csr-aos-soa/static-256x2",
                           "quaternion.f64/hisparse32c2-aos-aos/hisparse-128x4-g16-big4096"}) {
    const Variant v = Variant::parse(name);
    DeviceMatrix da(ctx, a, v.layout, v.precision);
    da.refresh_values(b);
    const auto x = random_vector(a.cols, 4, 1);
    DeviceVector dx(ctx, a.cols, 4, v.layout.vector, v.precision), dy(ctx, a.rows, 4, v.layout.vector, v.precision);
    dx.upload(x);
    dy.poison();
    spmv(ctx, v, da, dx, dy);
    ctx.synchronize();
    const auto r = verify_result(dy.download(), reference_spmv(b, x), reference_abs_scale(b, x), default_tolerance(v.precision), 4);
    CHECK_MESSAGE(r.ok, name, ": ", r.message);
    RandomMatrixOptions other = o;
    other.seed = 77;  // another pattern
    CHECK_THROWS_AS(da.refresh_values(random_matrix(q, other)), InvalidArgument);
  }
}
