// HiSparse A + B, the host side: the entry adjoint that a stored A^H needs, op(A) as a matrix, a tree
// taken back from a pool made elsewhere, and NVRTC compiling the addition's kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "core/entry_adjoint.hpp"
#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/hisparse.hpp"
#include "core/matrix_add.hpp"
#include "core/matrix_compare.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "generator/kernel_builder.hpp"
#include "generator/source_gen.hpp"
#include "runtime/hisparse_add.hpp"

using namespace jitsparse;

namespace {

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

HostMatrix random(const EntryType& e, int32_t rows, int32_t cols, uint64_t seed) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = 4;
  o.empty_fraction = 0.2;
  o.seed = seed;
  return random_matrix(e, o);
}

}  // namespace

TEST_CASE("entry adjoint: the conjugate, the transposed block, the real itself") {
  CHECK(entry_adjoint_map(entry("real")) == std::vector<double>{1});
  CHECK(entry_adjoint_map(entry("complex")) == std::vector<double>{1, 0, 0, -1});
  CHECK(entry_adjoint_map(entry("quaternion")) ==
        std::vector<double>{1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1});
  const auto b = entry_adjoint_map(entry("block3"));  // a permutation: entry (i, j) <- (j, i)
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 9; ++k) CHECK(b[(i * 3 + j) * 9 + k] == (k == j * 3 + i ? 1.0 : 0.0));
}

TEST_CASE("entry adjoint: op(A) as a matrix multiplies like op(A) x, for every built-in type") {
  for (const auto& name : EntryRegistry::instance().names()) {
    const EntryType& e = entry(name);
    const HostMatrix a = random(e, 23, 17, 3);
    for (Op op : {Op::n, Op::t, Op::h}) {
      INFO(name, " op ", to_string(op));
      HostMatrix m;
      try {
        m = op_matrix(a, op);
      } catch (const InvalidArgument& err) {
        CHECK(op == Op::h);  // only a type without an entry adjoint may refuse, and only op h
        MESSAGE(name << ": " << std::string(err.what()));
        continue;
      }
      m.validate();
      const auto x = random_vector(op == Op::n ? a.cols : a.rows, e.num_vector_components(), 4);
      const auto y = reference_spmv(m, x), ref = reference_apply(a, x, op);
      const auto r = verify_result(y, ref, reference_abs_scale(a, x, op), 1e-12, e.num_vector_components());
      CHECK_MESSAGE(r.ok, r.message);
    }
  }
}

TEST_CASE("entry adjoint: a type that refuses the adjoint is refused with its name") {
  EntryType e = entry("complex");
  e.name = "no_adjoint_complex";
  e.has_adjoint = false;
  CHECK_THROWS_WITH_AS(entry_adjoint_map(e), doctest::Contains("no_adjoint_complex"), InvalidArgument);
}

TEST_CASE("hisparse from_pool: a pool made elsewhere reads back, a corrupt one is refused") {
  const HostMatrix a = random(entry("quaternion"), 300, 200, 7);
  HiSparseOptions o;
  o.d = 16;
  const HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f64, o);
  const HiSparseMatrix back = HiSparseMatrix::from_pool(a.entry, Precision::f64, a.rows, a.cols, o, m.pool(), m.root(), "x");
  CHECK(back.nnz() == a.nnz());
  const HostMatrix h = back.to_host();
  CHECK(h.col_idx == a.col_idx);
  CHECK(h.values == a.values);
  // A root past the pool, and entries outside a matrix claimed too small.
  CHECK_THROWS_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, a.rows, a.cols, o, m.pool(), m.pool().size() + 2, "x"),
                  InvalidArgument);
  CHECK_THROWS_WITH_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, 290, 200, o, m.pool(), m.root(), "x"),
                       doctest::Contains("outside"), InvalidArgument);
  CHECK_THROWS_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, 40, 40, o, m.pool(), m.root(), "x"),
                  InvalidArgument);  // a shallower tree: the root's children are leaves at the wrong level
  // A COO leaf whose first two entries swap places: out of row-major order (the GPU's A + B relies on it).
  bool swapped_one = false;
  for (const HiLeaf& leaf : hisparse_leaves(m)) {
    const HiNodeType t = hi_type(leaf.ptr);
    if (t == HiNodeType::dense_leaf || t == HiNodeType::csr_leaf || leaf.slots < 2) continue;
    std::vector<uint8_t> swapped = m.pool();
    uint8_t* xy = swapped.data() + hi_offset(leaf.ptr) + 16;
    if (xy[0] == xy[2] && xy[1] == xy[3]) continue;  // padding
    std::swap(xy[0], xy[2]);
    std::swap(xy[1], xy[3]);
    CHECK_THROWS_WITH_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, a.rows, a.cols, o, swapped, m.root(), "x"),
                         doctest::Contains("row-major"), InvalidArgument);
    swapped_one = true;
    break;
  }
  CHECK(swapped_one);
  // A pointer with a leaf's type bits at an inner level.
  std::vector<uint8_t> bad = m.pool();
  CHECK_THROWS_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, a.rows, a.cols, o, bad,
                                            (m.root() & ~uint64_t{15}) | uint64_t{2}, "x"),
                  InvalidArgument);
}

TEST_CASE("hisparse from_pool: a CSR leaf whose row lengths or header disagree with its count is refused") {
  // One 16 x 16 block of 8 entries a row: a CSR leaf at the root (no dense leaves).
  TripletList t(entry("real"), 16, 16);
  const double one = 1.0;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; c += 2) t.add(r, c, &one);
  const HostMatrix a = t.build();
  HiSparseOptions o;
  o.d = 16;
  o.dense_leaves = false;
  const HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f64, o);
  REQUIRE(hi_type(m.root()) == HiNodeType::csr_leaf);
  const uint64_t at = hi_offset(m.root());
  CHECK(HiSparseMatrix::from_pool(a.entry, Precision::f64, 16, 16, o, m.pool(), m.root(), "x").nnz() == 128);
  auto refused = [&](std::vector<uint8_t> pool, const char* what) {
    CHECK_THROWS_WITH_AS(HiSparseMatrix::from_pool(a.entry, Precision::f64, 16, 16, o, std::move(pool), m.root(), "x"),
                         doctest::Contains(what), InvalidArgument);
  };
  std::vector<uint8_t> longer = m.pool();
  ++longer[at + 16];  // row 0 claims 9 entries
  refused(longer, "more than");
  std::vector<uint8_t> shorter = m.pool();
  --shorter[at + 16];
  refused(shorter, "127 of its 128");
  std::vector<uint8_t> no_rows = m.pool();
  no_rows[at + 8] = 0;  // R = 0
  refused(no_rows, "CSR leaf with count");
  std::vector<uint8_t> unsorted = m.pool();
  std::swap(unsorted[at + 16 + 16], unsorted[at + 16 + 17]);  // row 0's first two columns
  refused(unsorted, "row-major");
  std::vector<uint8_t> wide = m.pool();
  wide[at + 8] = 17;  // more rows than d
  refused(wide, "CSR leaf with count");
}

TEST_CASE("generator: the hisparse addition kernels compile (node widths, precisions, entry sizes)") {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("jitsparse-hisparse-add-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelBuilder builder("sm_90", dir);
  auto compile = [&](Precision p, int components, int d) {
    const HiSparseAddSources s = hisparse_add_sources(p, components, d);
    for (const GeneratedSource* source : {&s.inner, &s.inner_block_items, &s.leaf_small, &s.leaf_big}) {
      INFO(source->name);
      CHECK_NOTHROW(builder.build(*source));
    }
  };
  for (int d : {16, 32, 64, 128, 256})
    for (Precision p : {Precision::f32, Precision::f64}) compile(p, 4, d);
  for (int c : {1, 2, 3, 8, 9}) compile(Precision::f64, c, 64);  // 3: a batch that does not divide the cells
  std::filesystem::remove_all(dir);
}

TEST_CASE("compare_sum: a right sum passes; a wrong value, an extra entry or a lost one fails") {
  const EntryType& e = entry("complex");
  const HostMatrix a = random(e, 40, 30, 1), b = random(e, 30, 40, 2);
  HostMatrix c = add_matrices(op_matrix(a, Op::n), op_matrix(b, Op::h), 2.0, -1.0);
  CHECK(compare_sum(c, a, Op::n, b, Op::h, 2.0, -1.0, Precision::f64).empty());
  HostMatrix wrong = c;
  wrong.values[3] += 1e-6;
  CHECK(compare_sum(wrong, a, Op::n, b, Op::h, 2.0, -1.0, Precision::f64).find("wrong components") != std::string::npos);
  CHECK(compare_sum(wrong, a, Op::n, b, Op::h, 2.0, -1.0, Precision::f32).empty());  // within f32's tolerance
  // One entry dropped (its value is not zero) and one position outside the pattern.
  TripletList dropped(e, c.rows, c.cols), extra(e, c.rows, c.cols);
  for (int32_t r = 0; r < c.rows; ++r)
    for (int32_t k = c.row_ptr[r]; k < c.row_ptr[r + 1]; ++k) {
      if (k != 0) dropped.add(r, c.col_idx[k], c.entry_values(k));
      extra.add(r, c.col_idx[k], c.entry_values(k));
    }
  int32_t free_col = 0;  // a column of row 0 that the sum does not hold
  while (std::find(c.col_idx.begin() + c.row_ptr[0], c.col_idx.begin() + c.row_ptr[1], free_col) !=
         c.col_idx.begin() + c.row_ptr[1])
    ++free_col;
  const double v[2] = {1, 0};
  extra.add(0, free_col, v);
  CHECK_FALSE(compare_sum(dropped.build(), a, Op::n, b, Op::h, 2.0, -1.0, Precision::f64).empty());
  CHECK(compare_sum(extra.build(), a, Op::n, b, Op::h, 2.0, -1.0, Precision::f64).find("outside") != std::string::npos);
}
