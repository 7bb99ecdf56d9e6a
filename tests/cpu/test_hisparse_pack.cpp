// HiSparse as a device layout: names, the strip lists, a CPU product that reads the pool through the lists
// as the kernel does (checked against the reference for A x, A^T x and A^H x), and NVRTC compiling every
// hisparse kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <unistd.h>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/hisparse_pack.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "generator/variant.hpp"
#include "tuner/builtin_matrices.hpp"

using namespace jitsparse;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

HostMatrix random(const EntryType& e, int32_t rows, int32_t cols, double mean_row, double empty, int32_t long_row,
                  uint64_t seed) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = mean_row;
  o.empty_fraction = empty;
  o.long_row = long_row;
  o.seed = seed;
  return random_matrix(e, o);
}

// op(A) x through the packed lists, against the reference.
void check_product(const HostMatrix& a, const Layout& l, Precision p, Op op) {
  const PackedMatrix m = pack(a, l, p);
  const int V = a.vector_components();
  const int64_t xn = op == Op::n ? a.cols : a.rows, yn = op == Op::n ? a.rows : a.cols;
  const auto x = random_vector(xn, V, 5);
  auto y0 = random_vector(yn, V, 6);
  const auto xb = pack_vector(x, V, l.vector, p);
  auto yb = pack_vector(y0, V, l.vector, p);
  spmv_hisparse_packed_cpu(m, a.entry, op, xb, yb, 2.0, -0.5);
  const auto y = unpack_vector(yb, yn, V, l.vector, p);
  auto ref = reference_apply(a, x, op);
  const auto y0p = unpack_vector(pack_vector(y0, V, l.vector, p), yn, V, l.vector, p);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = 2.0 * ref[i] - 0.5 * y0p[i];
  auto scale = reference_abs_scale(a, x, op);
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = 2.0 * scale[i] + 0.5 * std::abs(y0p[i]);
  const auto r = verify_result(y, ref, scale, default_tolerance(p), V);
  INFO(a.name, " ", a.rows, "x", a.cols, " as ", l.name(), " ", to_string(p), " op ", to_string(op));
  CHECK_MESSAGE(r.ok, r.message);
}

}  // namespace

TEST_CASE("hisparse layout: names read back, bad ones are refused with the reason") {
  CHECK(hisparse_layouts().size() == 60);
  const Layout r = Layout::parse("hisparse64c2r-aos-soa");
  CHECK(r.row_leaves);
  CHECK(r.coo == 2);
  CHECK(r.slice == 64);
  CHECK(r.name() == "hisparse64c2r-aos-soa");
  CHECK(hisparse_options(r).csr_leaves);
  CHECK_FALSE(hisparse_options(Layout::parse("hisparse64c2-aos-soa")).csr_leaves);
  CHECK_FALSE(r.same_matrix_arrays(Layout::parse("hisparse64c2-aos-soa")));
  for (const char* bad : {"hisparse64c2rr-aos-aos", "hisparse64r-aos-aos", "hisparse64c2x-aos-aos"})
    CHECK_THROWS_AS(Layout::parse(bad), InvalidArgument);
  for (const Layout& l : hisparse_layouts()) CHECK(Layout::parse(l.name()) == l);
  CHECK(Layout::parse("hisparse64c2-aos-soa").slice == 64);
  CHECK(Layout::parse("hisparse64c2-aos-soa").coo == 2);
  CHECK_THROWS_AS(Layout::parse("hisparse64c3-aos-aos"), InvalidArgument);
  CHECK_THROWS_AS(Layout::parse("hisparse48c2-aos-aos"), InvalidArgument);
  CHECK_THROWS_WITH_AS(Layout::parse("hisparse64c2-soa-aos"), doctest::Contains("aos"), InvalidArgument);
  for (const char* n : {"quaternion.f64/hisparse64c2-aos-aos/hisparse-128x8-g16-big4096",
                        "complex.f32/hisparse256c4-aos-soa/hisparse-64x4-g32-big0/h-tree",
                        "block3.f64/hisparse16c1-aos-aos/hisparse-256x2-g4-big65536/t-tree"})
    CHECK(Variant::parse(n).name() == n);
  CHECK_THROWS_AS(Variant::parse("real.f64/hisparse64c2-aos-aos/static-256x2"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/csr-aos-aos/hisparse-128x8-g16-big4096"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/hisparse64c2-aos-aos/hisparse-128x8-g16-big4096/t-atomic"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/csr-aos-aos/static-256x2/t-tree"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/hisparse64c2-aos-aos/hisparse-128x8-g2-big4096"), InvalidArgument);
  CHECK_THROWS_AS(Variant::parse("real.f64/hisparse64c2-aos-aos/hisparse-128x8-g16-big1000"), InvalidArgument);
  CHECK(Variant::parse("real.f64/hisparse64c2-aos-aos/hisparse-128x8-g16-big4096").deterministic());
  CHECK_FALSE(Variant::parse("real.f64/hisparse64c2-aos-aos/hisparse-128x8-g16-big4096/t-tree").deterministic());
}

TEST_CASE("hisparse packing: strips cover every leaf once, heavy classes first, thresholds are prefixes") {
  const HostMatrix a = random(entry("real"), 700, 530, 9, 0.2, 400, 7);
  for (int d : {16, 64}) {
    Layout l = Layout::parse("hisparse" + std::to_string(d) + "c2-aos-aos");
    const PackedMatrix m = pack(a, l, Precision::f64);
    CHECK(m.bytes() > static_cast<int64_t>(m.pool.size()));
    for (int k = 0; k < 2; ++k) {
      const auto& s = m.hi[k];
      const int64_t strips = ((k == 0 ? a.rows : a.cols) + d - 1) / d;
      REQUIRE(static_cast<int64_t>(s.strip_order.size()) == strips);
      std::vector<int32_t> sorted = s.strip_order;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int32_t> iota(strips);
      std::iota(iota.begin(), iota.end(), 0);
      CHECK(sorted == iota);
      CHECK(s.strip_begin.back() == static_cast<int32_t>(s.leaf_ptr.size()));
      // Work per strip, then: the first at_least[k] strips are exactly those with >= 2^k slots.
      std::vector<int64_t> work(strips, 0);
      for (int64_t st = 0; st < strips; ++st)
        for (int32_t i = s.strip_begin[st]; i < s.strip_begin[st + 1]; ++i) {
          const uint8_t* node = m.pool.data() + hi_offset(s.leaf_ptr[i]);
          uint32_t slots = d * d;
          if (hi_type(s.leaf_ptr[i]) != HiNodeType::dense_leaf) std::memcpy(&slots, node + 4, 4);
          work[st] += slots;
          if (i > s.strip_begin[st]) CHECK(s.leaf_block[i] > s.leaf_block[i - 1]);  // by the other axis
        }
      for (int b = 0; b < 20; ++b) {
        const int32_t n = s.at_least[b];
        for (int32_t i = 0; i < strips; ++i) CHECK((work[s.strip_order[i]] >= (int64_t{1} << b)) == (i < n));
      }
      CHECK(hisparse_big_strips(s, 0) == 0);
      CHECK(hisparse_big_strips(s, 64) == s.at_least[6]);
    }
  }
}

TEST_CASE("hisparse packing: the kernel's reading order gives A x, A^T x and A^H x for every entry type") {
  for (const char* name : {"real", "complex", "quaternion", "block3", "dual_quaternion"}) {
    const EntryType& e = entry(name);
    const std::vector<HostMatrix> mats = {
        random(e, 300, 300, 6, 0.2, 0, 1),        // square, empty rows
        random(e, 97, 301, 12, 0.1, 250, 2),      // wide, a long row, sizes off the node width
        random(e, 333, 40, 30, 0.0, 0, 3),        // tall and dense: dense leaves at d = 16
        random(e, 1, 1, 1, 0.0, 0, 4),            // 1 x 1
        random(e, 0, 0, 1, 0.0, 0, 5),            // 0 x 0
        random(e, 50, 70, 3, 1.0, 0, 6),          // all rows empty
    };
    for (const HostMatrix& a : mats)
      for (Precision p : {Precision::f32, Precision::f64})
        for (const char* l : {"hisparse16c1-aos-aos", "hisparse16c4-aos-soa", "hisparse64c2-aos-aos", "hisparse256c4-aos-aos",
                              "hisparse16c2r-aos-aos", "hisparse64c2r-aos-soa"})  // r: CSR leaves
          for (Op op : {Op::n, Op::t, Op::h}) check_product(a, Layout::parse(l), p, op);
  }
}

TEST_CASE("hisparse packing: new values keep the tree, a new pattern is refused") {
  const EntryType& e = entry("complex");
  const HostMatrix a = random(e, 200, 200, 6, 0.1, 0, 9);
  PackedMatrix m = pack(a, Layout::parse("hisparse32c2-aos-aos"), Precision::f64);
  const HostMatrix b = with_entry_type(a, e, 77);
  repack_values(m, b);
  const PackedMatrix fresh = pack(b, m.layout, Precision::f64);
  CHECK(m.pool == fresh.pool);
  const HostMatrix other = random(e, 200, 200, 6, 0.1, 0, 10);
  const auto before = m.pool;
  CHECK_THROWS_AS(repack_values(m, other), InvalidArgument);
  CHECK(m.pool == before);
}

TEST_CASE("generator: every hisparse kernel compiles (entry types, precisions, op n/t/h, node widths, groups)") {
  std::vector<Variant> variants;
  auto add = [&](const std::string& e, Precision p, const std::string& layout, const std::string& schedule, Op op) {
    Variant v;
    v.entry = e;
    v.precision = p;
    v.layout = Layout::parse(layout);
    v.schedule = Schedule::parse(schedule);
    v.op = op;
    v.transpose = TransposeKind::tree;
    if (kernel_shared_bytes(v, entry(e).num_vector_components()) <= kMaxStaticShared) variants.push_back(v);
  };
  for (const char* e : {"real", "complex", "quaternion", "block3", "dual_quaternion"})
    for (Precision p : {Precision::f32, Precision::f64})
      for (Op op : {Op::n, Op::t, Op::h}) add(e, p, "hisparse64c2-aos-aos", "hisparse-128x4-g16-big4096", op);
  for (const char* e : {"real", "complex", "quaternion", "block3", "dual_quaternion"})  // small leaves one per lane
    for (Op op : {Op::n, Op::t}) add(e, Precision::f64, "hisparse64c2-aos-aos", "hisparse-128x4-g16-big4096-s", op);
  for (const char* e : {"real", "complex", "quaternion", "block3"})  // the most chunks per thread (capped by size)
    for (Precision p : {Precision::f32, Precision::f64})
      for (Op op : {Op::n, Op::t}) add(e, p, "hisparse32c4-aos-aos", "hisparse-128x4-g16-big4096-u8", op);
  for (const char* e : {"real", "complex", "quaternion", "block3", "dual_quaternion"})  // CSR leaves (r)
    for (Precision p : {Precision::f32, Precision::f64})
      for (Op op : {Op::n, Op::t, Op::h}) add(e, p, "hisparse64c2r-aos-aos", "hisparse-128x8-g32-big4096-u1", op);
  for (const char* s : {"hisparse-256x2-g4-big0-u1", "hisparse-64x8-g32-big256-u4", "hisparse-128x4-g8-big65536"})
    for (const char* l : {"hisparse16c1-aos-soa", "hisparse256c4-aos-aos"}) add("real", Precision::f64, l, s, Op::n);
  const std::string dir = std::filesystem::temp_directory_path() / ("jitsparse-hisparse-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  size_t ok = 0;
  for (const auto& o : builder.build_all(variants)) {
    if (!o.ok) MESSAGE(o.variant.name() << ": " << o.error.substr(0, 3000));
    ok += o.ok;
  }
  CHECK(ok == variants.size());
  CHECK(variants.size() >= 30);
  std::filesystem::remove_all(dir);
}

// The host cost a tuner pays per hisparse layout on a large matrix. Run by hand:
//   jitsparse_cpu_tests -tc="*hisparse packing timing*" --no-skip
TEST_CASE("hisparse packing timing on a large matrix" * doctest::skip()) {
  const HostMatrix a = builtin_matrix("laplacian_large").matrix;
  for (const char* l : {"hisparse32c2-aos-aos", "hisparse64c2-aos-aos"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const PackedMatrix m = pack(a, Layout::parse(l), Precision::f64);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE(a.name << " (" << a.nnz() << " entries) as " << l << " f64: " << s << " s, " << m.bytes() << " bytes");
  }
}
