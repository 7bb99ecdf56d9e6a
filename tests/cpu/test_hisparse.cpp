// HiSparse host side: round trips over entry types, sizes, d, COO width and dense leaves; the byte layout of
// core/hisparse.hpp checked by an independent walk of the pool; node-type choice; transpose and scale.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/hisparse.hpp"
#include "core/hisparse_order.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"

using namespace jitsparse;

namespace {

const int kWidths[] = {16, 32, 64, 128, 256};

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

HiSparseOptions options(int d, int x = 2, bool dense = true, bool csr = true) {
  HiSparseOptions o;
  o.d = d;
  o.coo_width = x;
  o.dense_leaves = dense;
  o.csr_leaves = csr;
  return o;
}

HostMatrix random(const EntryType& e, int32_t rows, int32_t cols, double mean_row, double empty = 0.2,
                  uint64_t seed = 3) {
  RandomMatrixOptions o;
  o.rows = rows;
  o.cols = cols;
  o.mean_row = mean_row;
  o.empty_fraction = empty;
  o.seed = seed;
  return random_matrix(e, o);
}

// A matrix from explicit rows of columns, random values.
HostMatrix from_rows(const EntryType& e, int32_t cols, const std::vector<std::vector<int32_t>>& rows) {
  HostMatrix m;
  m.entry = e;
  m.rows = static_cast<int32_t>(rows.size());
  m.cols = cols;
  for (const auto& r : rows) {
    m.col_idx.insert(m.col_idx.end(), r.begin(), r.end());
    m.row_ptr.push_back(static_cast<int32_t>(m.col_idx.size()));
  }
  return with_entry_type(m, e, 11);
}

// 40 x 40: a full 16 x 16 block (a dense leaf at d = 16) and a few scattered entries.
HostMatrix with_full_block(const EntryType& e) {
  std::vector<std::vector<int32_t>> rows(40);
  for (int32_t r = 0; r < 40; ++r) {
    if (r < 16)
      for (int32_t c = 0; c < 16; ++c) rows[r].push_back(c);
    if (r % 3 == 0) rows[r].push_back(30 + r % 7);
  }
  return from_rows(e, 40, rows);
}

void require_same(const HostMatrix& got, const HostMatrix& want) {
  REQUIRE(got.rows == want.rows);
  REQUIRE(got.cols == want.cols);
  CHECK(got.row_ptr == want.row_ptr);
  CHECK(got.col_idx == want.col_idx);
  CHECK(got.values == want.values);  // exact
}

HostMatrix rounded_to_float(HostMatrix a) {
  for (double& v : a.values) v = static_cast<float>(v);
  return a;
}

template <class T>
T load(const std::vector<uint8_t>& pool, uint64_t at) {
  T v;
  std::memcpy(&v, pool.data() + at, sizeof(T));
  return v;
}

// Re-derives the layout from the header comment: alignment, types per level, sizes, COO padding, and that
// the nodes tile the pool exactly. Returns the number of real entries.
struct LayoutCheck {
  const HiSparseMatrix& m;
  uint64_t node_bytes = 0;
  int64_t entries = 0;

  void node(uint64_t ptr, int level) {
    const uint64_t at = ptr & ~uint64_t{15};
    const int type = static_cast<int>(ptr & 15);
    REQUIRE(ptr != 0);
    REQUIRE(at % 16 == 0);
    REQUIRE(at < m.pool().size());
    if (level == 0)
      REQUIRE(((type >= 1 && type <= 4) || type == 7));
    else
      REQUIRE((type == 5 || type == 6));
    const int d = m.d(), s = m.entry_bytes();
    if (type == 1) {
      node_bytes += uint64_t(d) * d * s;
      for (int i = 0; i < d * d; ++i) {
        bool nonzero = false;
        for (int k = 0; k < s; ++k) nonzero |= m.pool()[at + uint64_t(i) * s + k] != 0;
        entries += nonzero;
      }
    } else if (type <= 4) {
      coo(at, type == 2 ? 1 : type == 3 ? 2 : 4, s);
    } else if (type == 7) {
      csr(at, s);
    } else if (type == 5) {
      node_bytes += uint64_t(d) * d * 8;
      for (int i = 0; i < d * d; ++i) {
        const uint64_t c = load<uint64_t>(m.pool(), at + 8 * uint64_t(i));
        if (c != 0) node(c, level - 1);
      }
    } else {
      const uint32_t count = load<uint32_t>(m.pool(), at);
      REQUIRE(count >= 1);
      const uint64_t coords = (2 * uint64_t(count) + 15) / 16 * 16;
      node_bytes += 16 + coords + (8 * uint64_t(count) + 15) / 16 * 16;
      for (uint32_t i = 0; i < count; ++i) {
        if (i > 0) {  // row-major and unique
          const int prev = m.pool()[at + 16 + 2 * (i - 1)] * 256 + m.pool()[at + 17 + 2 * (i - 1)];
          CHECK(prev < m.pool()[at + 16 + 2 * i] * 256 + m.pool()[at + 17 + 2 * i]);
        }
        node(load<uint64_t>(m.pool(), at + 16 + coords + 8 * uint64_t(i)), level - 1);
      }
    }
  }

  void csr(uint64_t at, int s) {
    const uint32_t count = load<uint32_t>(m.pool(), at), slots = load<uint32_t>(m.pool(), at + 4),
                   rows = load<uint32_t>(m.pool(), at + 8);
    REQUIRE(count >= 1);
    CHECK(slots == count);
    REQUIRE(rows >= 1);
    REQUIRE(rows <= static_cast<uint32_t>(m.d()));
    const uint8_t* lengths = m.pool().data() + at + 16;
    uint32_t sum = 0;
    for (uint32_t r = 0; r < rows; ++r) sum += lengths[r];
    CHECK(sum == count);
    CHECK(lengths[rows - 1] > 0);  // R ends at the last row holding an entry
    const uint64_t bytes = (uint64_t(rows) + count + 15) / 16 * 16;
    // smaller than the COO leaf it replaces, which it must be to be chosen
    CHECK(16 + bytes + (uint64_t(count) * s + 15) / 16 * 16 < hi_coo_leaf_bytes(count, m.options().coo_width, s));
    node_bytes += 16 + bytes + (uint64_t(count) * s + 15) / 16 * 16;
    entries += count;
    const uint8_t* cols = lengths + rows;
    for (uint32_t r = 0, i = 0; r < rows; ++r)  // columns ascend within each row
      for (uint32_t k = 0; k < lengths[r]; ++k, ++i)
        if (k > 0) CHECK(cols[i - 1] < cols[i]);
    for (uint64_t b = rows + count; b < bytes; ++b) CHECK(m.pool()[at + 16 + b] == 0);
  }

  void coo(uint64_t at, int width, int s) {
    const uint32_t count = load<uint32_t>(m.pool(), at), padded = load<uint32_t>(m.pool(), at + 4);
    REQUIRE(count >= 1);
    if (count == 1) CHECK(width == 1);
    CHECK(padded == (count + width - 1) / width * width);
    const uint64_t coords = (2 * uint64_t(padded) + 15) / 16 * 16;
    node_bytes += 16 + coords + (uint64_t(padded) * s + 15) / 16 * 16;
    entries += count;
    const uint8_t* c = m.pool().data() + at + 16;
    for (uint32_t i = count; i < padded; ++i) {
      CHECK(c[2 * i] == c[2 * (count - 1)]);
      CHECK(c[2 * i + 1] == c[2 * (count - 1) + 1]);
      for (int k = 0; k < s; ++k) CHECK(m.pool()[at + 16 + coords + uint64_t(i) * s + k] == 0);
    }
  }
};

void check_layout(const HiSparseMatrix& m) {
  LayoutCheck c{m};
  if (m.root() == 0) {
    CHECK(m.pool().empty());
  } else {
    c.node(m.root(), m.levels() - 1);
    CHECK((m.root() & ~uint64_t{15}) + 16 <= m.pool().size());  // post-order: the root comes last
  }
  CHECK(c.node_bytes == m.pool().size());
  CHECK(c.entries == m.nnz());
  const HiSparseStats s = hisparse_statistics(m);
  CHECK(s.pool_bytes == m.pool().size());
  CHECK(s.entries == m.nnz());
}

void round_trip(const HostMatrix& a, const HiSparseOptions& o) {
  const HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f64, o);
  check_layout(m);
  require_same(m.to_host(), a);
}

}  // namespace

TEST_CASE("hisparse: f64 round trip for every entry type") {
  for (const std::string& name : EntryRegistry::instance().names()) {
    CAPTURE(name);
    const HostMatrix block = with_full_block(entry(name));
    round_trip(block, options(16));
    CHECK(hisparse_statistics(HiSparseMatrix::build(block, Precision::f64, options(16))).node_count(
              HiNodeType::dense_leaf) == 1);
    round_trip(random(entry(name), 40, 40, 20), options(16));
    round_trip(random(entry(name), 150, 130, 4), options(16));
  }
}

TEST_CASE("hisparse: empty rows and columns, tiny and non-square sizes") {
  const EntryType& e = entry("complex");
  round_trip(random(e, 200, 5000, 3, 0.6), options(64));  // most rows and columns empty
  round_trip(from_rows(e, 0, {}), options(16));
  round_trip(from_rows(e, 1, {{}}), options(16));
  round_trip(from_rows(e, 1, {{0}}), options(16));
  round_trip(from_rows(e, 7, {{}, {}, {}}), options(32));
  for (int d : kWidths) {
    CAPTURE(d);
    round_trip(random(e, 37, 300, 6), options(d));
    round_trip(random(e, 300, 37, 6), options(d));
  }
}

TEST_CASE("hisparse: the radix-sorted keys and the level-by-level comparison give one tree order") {
  for (int b : {4, 5, 6, 7, 8}) {
    CAPTURE(b);
    for (const HostMatrix& a : {random(entry("real"), 3000, 2500, 7), random(entry("complex"), 700, 90000, 3),
                                random(entry("real"), 300000, 300, 2)}) {  // the last in row shares on threads
      const int levels = hi_levels(a.rows, a.cols, 1 << b);
      REQUIRE(KeyedEntries::fits(b, levels));
      const KeyedEntries keyed(a, b, levels);
      const CoordEntries compared(a, b);
      REQUIRE(keyed.size() == static_cast<size_t>(a.nnz()));
      REQUIRE(compared.size() == keyed.size());
      size_t differ = 0;
      for (size_t k = 0; k < keyed.size(); ++k) {
        differ += keyed.source(k) != compared.source(k);
        for (int l = 0; l < levels; ++l)
          differ += keyed.row_digit(k, l) != compared.row_digit(k, l) || keyed.col_digit(k, l) != compared.col_digit(k, l);
      }
      CHECK(differ == 0);
    }
  }
  // 300 million columns: 5 levels of d = 128 need 70 bits of key, so the builder compares levels instead
  const HostMatrix wide = random(entry("real"), 3, 300000000, 4, 0.0);
  CHECK_FALSE(KeyedEntries::fits(7, hi_levels(wide.rows, wide.cols, 128)));
  round_trip(wide, options(128));
  round_trip(wide, options(64));  // 5 levels of 6 bits: keyed
}

TEST_CASE("hisparse: levels") {
  CHECK(hi_levels(0, 0, 16) == 1);
  CHECK(hi_levels(16, 1, 16) == 1);
  CHECK(hi_levels(17, 1, 16) == 2);
  CHECK(hi_levels(256, 256, 16) == 2);
  CHECK(hi_levels(1, 257, 16) == 3);
  CHECK(hi_levels(2147483647, 1, 16) == 8);
  CHECK(hi_levels(2147483647, 1, 256) == 4);
  const HostMatrix a = random(entry("real"), 300, 280, 5);  // rows > d^2
  const HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f64, options(16));
  CHECK(m.levels() == 3);
  const HiSparseStats s = hisparse_statistics(m);
  REQUIRE(s.nodes.size() == 3);
  CHECK(s.nodes[2][static_cast<int>(HiNodeType::sparse_inner)] + s.nodes[2][static_cast<int>(HiNodeType::dense_inner)] == 1);
  require_same(m.to_host(), a);
}

TEST_CASE("hisparse: every d, COO width, dense-leaf and CSR-leaf setting") {
  const EntryType& e = entry("quaternion");
  const std::vector<HostMatrix> mats = {random(e, 37, 300, 5), random(e, 300, 37, 5), random(e, 520, 410, 8, 0.1),
                                        random(e, 100, 100, 60, 0)};
  for (int d : kWidths)
    for (int x : {1, 2, 4})
      for (bool dense : {false, true})
        for (bool csr : {false, true}) {
          CAPTURE(d);
          CAPTURE(x);
          CAPTURE(dense);
          CAPTURE(csr);
          for (const HostMatrix& a : mats) round_trip(a, options(d, x, dense, csr));
          const HiSparseMatrix m = HiSparseMatrix::build(mats.back(), Precision::f64, options(d, x, dense, csr));
          if (!dense) CHECK(hisparse_statistics(m).node_count(HiNodeType::dense_leaf) == 0);
          if (!csr) CHECK(hisparse_statistics(m).node_count(HiNodeType::csr_leaf) == 0);
          // 60 entries a row of 100: dense where allowed, else CSR where allowed
          if (!dense && csr) CHECK(hisparse_statistics(m).node_count(HiNodeType::csr_leaf) > 0);
        }
}

TEST_CASE("hisparse: f32 round trip equals the values rounded to float") {
  for (const char* name : {"real", "complex", "block3"}) {
    CAPTURE(name);
    const HostMatrix a = random(entry(name), 90, 70, 12);
    for (int x : {1, 2, 4}) {
      const HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f32, options(16, x));
      check_layout(m);
      require_same(m.to_host(), rounded_to_float(a));
    }
  }
}

TEST_CASE("hisparse: transpose and scale") {
  const HostMatrix a = random(entry("quaternion"), 37, 300, 7);
  HiSparseMatrix m = HiSparseMatrix::build(a, Precision::f64, options(16));
  m.transpose();
  CHECK(m.transposed());
  CHECK(m.rows() == 300);
  CHECK(m.cols() == 37);
  CHECK(m.stored_rows() == 37);
  require_same(m.to_host(), transpose_pattern(a));
  m.transpose();
  CHECK(m.rows() == 37);
  require_same(m.to_host(), a);

  m.set_scale(-2.5);
  HostMatrix scaled = a;
  for (double& v : scaled.values) v *= -2.5;
  require_same(m.to_host(), scaled);
  m.transpose();
  require_same(m.to_host(), transpose_pattern(scaled));
}

TEST_CASE("hisparse: node-type choice") {
  const EntryType& e = entry("real");
  std::vector<std::vector<int32_t>> full(16);
  for (auto& r : full)
    for (int32_t c = 0; c < 16; ++c) r.push_back(c);
  const HostMatrix block = from_rows(e, 16, full);
  CHECK(hi_type(HiSparseMatrix::build(block, Precision::f64, options(16)).root()) == HiNodeType::dense_leaf);
  CHECK(hi_type(HiSparseMatrix::build(block, Precision::f32, options(16)).root()) == HiNodeType::dense_leaf);
  CHECK(hi_type(HiSparseMatrix::build(block, Precision::f64, options(16, 4, false, false)).root()) == HiNodeType::coo4);
  CHECK(hi_type(HiSparseMatrix::build(block, Precision::f64, options(16, 2, false, false)).root()) == HiNodeType::coo2);
  // a byte a column and one per row where COO spends two an entry: 16 + 272 + 2048 against 16 + 512 + 2048
  const HiSparseMatrix csr = HiSparseMatrix::build(block, Precision::f64, options(16, 2, false));
  CHECK(hi_type(csr.root()) == HiNodeType::csr_leaf);
  CHECK(csr.pool().size() == 16 + 272 + 2048);
  check_layout(csr);
  // two entries in one row: COO2 (16 + 16 + 16) is no larger than CSR (16 + 16 + 16)
  CHECK(hi_type(HiSparseMatrix::build(from_rows(e, 16, {{}, {2, 5}}), Precision::f64, options(16)).root()) ==
        HiNodeType::coo2);
  // a row of 256 entries does not fit a length byte: COO, not CSR, even where CSR would be smaller
  std::vector<std::vector<int32_t>> rows256(256);
  for (int32_t c = 0; c < 256; ++c) rows256[3].push_back(c);
  for (int32_t r = 4; r < 256; ++r) rows256[r].push_back(r);
  const HiSparseMatrix long_row = HiSparseMatrix::build(from_rows(e, 256, rows256), Precision::f64, options(256, 2, false));
  CHECK(hi_type(long_row.root()) == HiNodeType::coo2);
  check_layout(long_row);
  rows256[3].pop_back();  // 255 entries fit
  const HiSparseMatrix fits = HiSparseMatrix::build(from_rows(e, 256, rows256), Precision::f64, options(256, 2, false));
  CHECK(hi_type(fits.root()) == HiNodeType::csr_leaf);
  check_layout(fits);
  require_same(fits.to_host(), from_rows(e, 256, rows256));

  const HostMatrix single = from_rows(e, 5, {{}, {3}});
  for (int x : {1, 2, 4}) {
    const HiSparseMatrix m = HiSparseMatrix::build(single, Precision::f64, options(16, x));
    CHECK(hi_type(m.root()) == HiNodeType::coo1);
    CHECK(m.pool().size() == 48);  // header, one coordinate pair, one double, each padded to 16
  }

  const HiSparseMatrix empty = HiSparseMatrix::build(from_rows(e, 300, std::vector<std::vector<int32_t>>(300)),
                                                     Precision::f64, options(16));
  CHECK(empty.root() == 0);
  CHECK(empty.pool().empty());
  CHECK(empty.to_host().nnz() == 0);
  CHECK(empty.to_host().rows == 300);

  // one entry per 16 x 16 block of a 256 x 256 matrix: 256 children, a dense inner root
  std::vector<std::vector<int32_t>> spread(256);
  for (int32_t r = 0; r < 256; r += 16)
    for (int32_t c = 0; c < 256; c += 16) spread[r].push_back(c);
  const HiSparseMatrix dense_inner = HiSparseMatrix::build(from_rows(e, 256, spread), Precision::f64, options(16));
  CHECK(hi_type(dense_inner.root()) == HiNodeType::dense_inner);
  check_layout(dense_inner);
  // two blocks only: sparse inner
  const HiSparseMatrix sparse_inner =
      HiSparseMatrix::build(from_rows(e, 256, {{0, 255}}), Precision::f64, options(16));
  CHECK(hi_type(sparse_inner.root()) == HiNodeType::sparse_inner);
  const HiSparseStats s = hisparse_statistics(sparse_inner);
  CHECK(s.nodes[1][static_cast<int>(HiNodeType::sparse_inner)] == 1);
  CHECK(s.nodes[0][static_cast<int>(HiNodeType::coo1)] == 2);
  CHECK(s.pool_bytes == 2 * 48 + 16 + 16 + 16);
}

TEST_CASE("hisparse: bad options throw") {
  const HostMatrix a = random(entry("real"), 20, 20, 3);
  for (int d : {0, 8, 48, 100, 512})
    CHECK_THROWS_AS(HiSparseMatrix::build(a, Precision::f64, options(d)), InvalidArgument);
  for (int x : {0, 3, 8})
    CHECK_THROWS_AS(HiSparseMatrix::build(a, Precision::f64, options(16, x)), InvalidArgument);
  CHECK_THROWS_WITH_AS(options(48).validate(), doctest::Contains("48"), InvalidArgument);
}
