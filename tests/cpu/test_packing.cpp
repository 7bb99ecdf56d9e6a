// Packing: every entry type x layout x precision against the reference, the layout contract of
// core/layout.hpp restated independently, exact byte counts, padding, 32-bit limits, vectors.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/entry_type.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "io/matrix_market.hpp"
#include "tuner/builtin_matrices.hpp"

using namespace jitsparse;

namespace {

const Precision kPrecisions[] = {Precision::f32, Precision::f64};

std::vector<std::string> entry_names() {
  auto names = EntryRegistry::instance().names();
  // the brief's minimum: these must be reachable
  for (const char* n : {"real", "complex", "quaternion", "block2", "block3", "dual_quaternion"})
    REQUIRE(EntryRegistry::instance().contains(n));
  return names;
}

const EntryType& entry(const std::string& name) { return EntryRegistry::instance().get(name); }

// A matrix from explicit rows of columns (values random): for hand-built patterns.
HostMatrix from_rows(const EntryType& e, int32_t cols, const std::vector<std::vector<int32_t>>& rows,
                     uint64_t seed = 7) {
  HostMatrix m;
  m.entry = e;
  m.name = "hand";
  m.rows = static_cast<int32_t>(rows.size());
  m.cols = cols;
  for (const auto& r : rows) {
    m.col_idx.insert(m.col_idx.end(), r.begin(), r.end());
    m.row_ptr.push_back(static_cast<int32_t>(m.col_idx.size()));
  }
  return with_entry_type(m, e, seed);
}

// Bytes of a packed vector filled with quiet NaN: the poison a kernel must not read when beta == 0.
std::vector<unsigned char> nan_vector(int64_t n, int V, VectorLayout l, Precision p) {
  std::vector<unsigned char> v(packed_vector_bytes(n, V, l, p));
  if (p == Precision::f32) {
    const float q = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i + 4 <= v.size(); i += 4) std::memcpy(v.data() + i, &q, 4);
  } else {
    const double q = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 0; i + 8 <= v.size(); i += 8) std::memcpy(v.data() + i, &q, 8);
  }
  return v;
}

// y = alpha*A*x + beta*y through the packed arrays, checked against the reference.
// ref/scale may be passed in to share them between layouts (big matrices).
void check_spmv(const HostMatrix& a, const PackedMatrix& packed, const std::vector<double>& x, double alpha,
                double beta, const std::vector<double>* ref_in = nullptr,
                const std::vector<double>* scale_in = nullptr) {
  const int V = a.vector_components();
  const Precision p = packed.precision;
  const VectorLayout vl = packed.layout.vector;
  const auto xp = pack_vector(x, V, vl, p);
  std::vector<double> y0 = random_vector(a.rows, V, 99);
  std::vector<unsigned char> yp = beta == 0 ? nan_vector(a.rows, V, vl, p) : pack_vector(y0, V, vl, p);
  if (beta != 0) y0 = unpack_vector(yp, a.rows, V, vl, p);  // what the kernel starts from (maybe float)
  spmv_packed_cpu(packed, a.entry, xp, yp, alpha, beta);
  const auto y = unpack_vector(yp, a.rows, V, vl, p);

  const auto ref0 = ref_in ? *ref_in : reference_spmv(a, x);
  const auto scale0 = scale_in ? *scale_in : reference_abs_scale(a, x);
  std::vector<double> ref(ref0.size()), scale(ref0.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    ref[i] = alpha * ref0[i] + (beta == 0 ? 0.0 : beta * y0[i]);
    scale[i] = std::fabs(alpha) * scale0[i] + (beta == 0 ? 0.0 : std::fabs(beta * y0[i]));
  }
  const auto r = verify_result(y, ref, scale, default_tolerance(p), V);
  CHECK_MESSAGE(r.ok, a.name << " " << a.entry.name << " " << packed.layout.name() << " " << to_string(p)
                             << " alpha " << alpha << " beta " << beta << ": " << r.message);
}

// The position of element k of row r, restated from the comment in core/layout.hpp.
int64_t contract_position(const PackedMatrix& m, int64_t r, int64_t k) {
  switch (m.layout.outer) {
    case OuterLayout::csr:
    case OuterLayout::hola: return m.row_ptr[r] + k;  // hola reads the csr arrays
    case OuterLayout::ell: return k * m.rows_padded + r;
    default: return m.slice_ptr[r / m.layout.slice] + k * m.layout.slice + r % m.layout.slice;
  }
}

double packed_value(const PackedMatrix& m, int64_t pos, int i) {
  const int64_t idx = m.layout.inner == InnerLayout::aos ? pos * m.components + i : i * m.value_stride + pos;
  if (m.precision == Precision::f32) {
    float f;
    std::memcpy(&f, m.values.data() + idx * 4, 4);
    return f;
  }
  double d;
  std::memcpy(&d, m.values.data() + idx * 8, 8);
  return d;
}

double rounded(double v, Precision p) { return p == Precision::f32 ? static_cast<double>(static_cast<float>(v)) : v; }

// Every array of `m` matches the contract: entries where the formulas say, padding NaN with column 0.
void check_contract(const HostMatrix& a, const PackedMatrix& m) {
  INFO(a.name << " " << a.entry.name << " " << m.layout.name() << " " << to_string(m.precision));
  const int C = a.components();
  REQUIRE(m.rows == a.rows);
  REQUIRE(m.cols == a.cols);
  REQUIRE(m.nnz == a.nnz());
  REQUIRE(m.components == C);
  REQUIRE(static_cast<int64_t>(m.col_idx.size()) == m.stored_entries);
  REQUIRE(static_cast<int64_t>(m.values.size()) == m.value_stride * C * scalar_bytes(m.precision));
  if (m.layout.inner == InnerLayout::soa) {
    CHECK(m.value_stride % 4 == 0);
    CHECK(m.value_stride >= m.stored_entries);
    CHECK(m.value_stride < m.stored_entries + 4);
  } else {
    CHECK(m.value_stride == m.stored_entries);
  }
  std::vector<char> seen(m.stored_entries, 0);
  // stored[r]: the stored row holding matrix row r (sorted sell: restated from core/layout.hpp; else r)
  std::vector<int64_t> stored(a.rows);
  for (int32_t r = 0; r < a.rows; ++r) stored[r] = r;
  auto length = [&a](int64_t r) { return r < 0 || r >= a.rows ? 0 : a.row_ptr[r + 1] - a.row_ptr[r]; };
  auto matrix_row = [&m](int64_t i) -> int64_t { return m.layout.sorted() ? m.row_perm[i] : i; };
  if (m.layout.sorted()) {
    REQUIRE(static_cast<int64_t>(m.row_perm.size()) == m.rows_padded);
    std::vector<char> hit(a.rows, 0);
    int64_t bad_perm = 0, bad_order = 0;
    for (int64_t i = 0; i < m.rows_padded; ++i) {
      const int64_t r = m.row_perm[i];
      if (i >= a.rows) {
        bad_perm += r != -1;
        continue;
      }
      // a permutation that keeps each row inside its window of sigma rows
      if (r < 0 || r >= a.rows || hit[r] || r / m.layout.sigma != i / m.layout.sigma) {
        ++bad_perm;
        continue;
      }
      hit[r] = 1;
      stored[r] = i;
      // longest first inside the window, ties in row order
      if (i % m.layout.sigma != 0) {
        const int64_t q = m.row_perm[i - 1];
        bad_order += length(q) < length(r) || (length(q) == length(r) && q > r);
      }
    }
    CHECK(bad_perm == 0);
    CHECK(bad_order == 0);
  } else {
    CHECK(m.row_perm.empty());
  }
  if (m.layout.uses_row_ptr()) {
    CHECK(m.rows_padded == a.rows);
    CHECK(m.num_slices == 0);
    CHECK(m.stored_entries == a.nnz());
    CHECK(m.row_ptr == a.row_ptr);
    CHECK(m.slice_ptr.empty());
    CHECK(m.row_len.empty());
  } else {
    const int K = m.layout.outer == OuterLayout::ell ? 32 : m.layout.slice;
    CHECK(m.rows_padded % K == 0);
    CHECK(m.rows_padded >= a.rows);
    CHECK(m.rows_padded < a.rows + K);
    REQUIRE(static_cast<int64_t>(m.row_len.size()) == m.rows_padded);
    REQUIRE(static_cast<int64_t>(m.slice_ptr.size()) == m.num_slices + 1);
    CHECK(m.slice_ptr.front() == 0);
    CHECK(m.slice_ptr.back() == m.stored_entries);
    if (m.layout.outer == OuterLayout::ell) {
      int64_t width = 0;
      for (int32_t r = 0; r < a.rows; ++r) width = std::max<int64_t>(width, a.row_ptr[r + 1] - a.row_ptr[r]);
      CHECK(m.num_slices == 1);
      CHECK(m.stored_entries == width * m.rows_padded);
    } else {
      CHECK(m.num_slices == m.rows_padded / K);
      for (int32_t s = 0; s < m.num_slices; ++s) {
        int64_t width = 0;
        for (int32_t r = s * K; r < std::min(a.rows, (s + 1) * K); ++r) width = std::max<int64_t>(width, length(matrix_row(r)));
        CHECK(m.slice_ptr[s + 1] - m.slice_ptr[s] == width * K);
      }
    }
    int64_t bad_len = 0;
    for (int32_t r = 0; r < m.rows_padded; ++r)
      bad_len += m.row_len[r] != (r < a.rows ? length(matrix_row(r)) : 0);
    CHECK(bad_len == 0);
  }
  // Counted, not CHECKed one by one: millions of doctest assertions would dominate the run time.
  int64_t bad_col = 0, bad_value = 0, out_of_range = 0;
  for (int32_t r = 0; r < a.rows; ++r)
    for (int32_t k = 0; k < a.row_ptr[r + 1] - a.row_ptr[r]; ++k) {
      const int64_t pos = contract_position(m, stored[r], k);
      if (pos < 0 || pos >= m.stored_entries) {
        ++out_of_range;
        continue;
      }
      seen[pos] = 1;
      const int64_t e = a.row_ptr[r] + k;
      bad_col += m.col_idx[pos] != a.col_idx[e];
      for (int i = 0; i < C; ++i) bad_value += packed_value(m, pos, i) != rounded(a.entry_values(e)[i], m.precision);
    }
  CHECK(out_of_range == 0);
  CHECK(bad_col == 0);
  CHECK(bad_value == 0);
  // Every position no entry uses is padding: column 0, all components quiet NaN.
  int64_t padding = 0, bad_padding = 0;
  for (int64_t pos = 0; pos < m.stored_entries; ++pos) {
    if (seen[pos]) continue;
    ++padding;
    bad_padding += m.col_idx[pos] != 0;
    for (int i = 0; i < C; ++i) bad_padding += !std::isnan(packed_value(m, pos, i));
  }
  CHECK(padding == m.padding_entries());
  CHECK(bad_padding == 0);
  // soa: the tail up to value_stride is padding too
  int64_t bad_tail = 0;
  if (m.layout.inner == InnerLayout::soa)
    for (int64_t pos = m.stored_entries; pos < m.value_stride; ++pos)
      for (int i = 0; i < C; ++i) bad_tail += !std::isnan(packed_value(m, pos, i));
  CHECK(bad_tail == 0);
}

// The edge-case matrices every entry type and layout goes through.
std::vector<HostMatrix> edge_matrices(const EntryType& e) {
  std::vector<HostMatrix> out;
  RandomMatrixOptions o;
  o.rows = 100, o.cols = 90, o.mean_row = 4, o.empty_fraction = 0.2, o.long_row = 80, o.seed = 11;
  o.name = "empty_rows_long_row";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 1, o.cols = 1, o.mean_row = 1, o.name = "1x1";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 77, o.cols = 5, o.mean_row = 2, o.seed = 3, o.name = "tall";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 5, o.cols = 77, o.mean_row = 30, o.seed = 4, o.name = "wide";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 40, o.cols = 30, o.mean_row = 0, o.name = "all_empty";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 0, o.cols = 0, o.name = "0x0";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 0, o.cols = 6, o.name = "0x6";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 6, o.cols = 0, o.mean_row = 3, o.name = "6x0";
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 37, o.cols = 37, o.mean_row = 6, o.seed = 5, o.name = "37_rows";  // not a multiple of 16 or 32
  out.push_back(random_matrix(e, o));
  o = {};
  o.rows = 49, o.cols = 12, o.mean_row = 12, o.seed = 6, o.name = "dense_rows";  // every row full
  out.push_back(random_matrix(e, o));
  return out;
}

}  // namespace

TEST_CASE("packing: layout names, parsing and the list of all layouts") {
  const auto layouts = all_layouts();
  CHECK(layouts.size() == 24);
  CHECK(row_layouts().size() == 20);
  CHECK(Layout::parse("hola-soa-aos").outer == OuterLayout::hola);
  CHECK(Layout::parse("hola-soa-aos").uses_row_ptr());
  std::vector<std::string> names;
  for (const auto& l : layouts) {
    names.push_back(l.name());
    CHECK(Layout::parse(l.name()) == l);
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(names.front() == "csr-aos-aos");
  const Layout s = Layout::parse("sell-32-soa-aos");
  CHECK(s.outer == OuterLayout::sell);
  CHECK(s.slice == 32);
  CHECK(s.inner == InnerLayout::soa);
  CHECK(s.vector == VectorLayout::aos);
  CHECK(s.name() == "sell32-soa-aos");
  CHECK(s.outer_name() == "sell32");
  CHECK(Layout::parse("SELL16-aos-soa").name() == "sell16-aos-soa");
  CHECK(Layout::parse("ell-soa-soa").outer_name() == "ell");
  CHECK(Layout::parse("csr-aos-soa").outer_name() == "csr");
  for (const char* bad : {"", "csr", "csr-aos", "sell8-aos-aos", "ell-aos-xyz", "coo-aos-aos", "csr-aos-aos-aos",
                          "sell--aos-aos", "sell32s-aos-aos", "sell32x256-aos-aos", "sell32s100-aos-aos",
                          "sell32s16-aos-aos", "sell16s2097152-aos-aos", "sell32s-256-aos-aos", "sell32s99999999-aos-aos"})
    CHECK_THROWS_AS(Layout::parse(bad), InvalidArgument);
  const Layout by_length = Layout::parse("sell16s64-soa-aos");
  CHECK(by_length.outer == OuterLayout::sell);
  CHECK(by_length.slice == 16);
  CHECK(by_length.sigma == 64);
  CHECK(by_length.sorted());
  CHECK(by_length.name() == "sell16s64-soa-aos");
  CHECK(by_length != Layout::parse("sell16-soa-aos"));
  CHECK(!Layout::parse("sell16-soa-aos").sorted());
  CHECK(Layout::parse("sell32s1048576-aos-aos").sigma == 1 << 20);
  CHECK_THROWS_WITH(Layout::parse("sell32s100-aos-aos"), doctest::Contains("power of two"));
  CHECK_THROWS_WITH(Layout::parse("bsr-aos-aos"), doctest::Contains("bsr-aos-aos"));
  CHECK(vector_stride(0) == 0);
  CHECK(vector_stride(1) == 32);
  CHECK(vector_stride(32) == 32);
  CHECK(vector_stride(33) == 64);
}

TEST_CASE("packing: spmv on packed arrays equals the reference (all entry types x layouts x precisions)") {
  for (const auto& name : entry_names()) {
    const EntryType& e = entry(name);
    for (const HostMatrix& a : edge_matrices(e)) {
      REQUIRE_NOTHROW(a.validate());
      const auto x = random_vector(a.cols, a.vector_components(), 1234);
      const auto ref = reference_spmv(a, x);
      const auto scale = reference_abs_scale(a, x);
      for (const Layout& l : all_layouts())
        for (Precision p : kPrecisions) {
          const PackedMatrix m = pack(a, l, p);
          check_contract(a, m);
          CHECK(packed_bytes(a, l, p) == m.bytes());
          check_spmv(a, m, x, 1.0, 0.0, &ref, &scale);
          check_spmv(a, m, x, -0.5, 0.0, &ref, &scale);
          check_spmv(a, m, x, 2.0, 0.75, &ref, &scale);
          check_spmv(a, m, x, 0.0, -1.5, &ref, &scale);
        }
    }
  }
}

TEST_CASE("packing: sorted sell (SELL-C-sigma) over several windows: contract, product, bytes, repack") {
  RandomMatrixOptions o;
  o.rows = 1000;  // not a multiple of any window: the last window and slice are cut
  o.cols = 700;
  o.mean_row = 6;
  o.empty_fraction = 0.1;
  o.long_row = 300;
  for (const char* name : {"real", "complex", "block3"}) {
    const HostMatrix a = random_matrix(entry(name), o);
    const auto x = random_vector(a.cols, a.vector_components(), 5);
    for (const char* layout : {"sell16s16-aos-aos", "sell16s64-soa-soa", "sell32s64-aos-soa", "sell32s256-soa-aos",
                               "sell32s4096-aos-aos"})
      for (Precision p : kPrecisions) {
        const Layout l = Layout::parse(layout);
        PackedMatrix m = pack(a, l, p);
        check_contract(a, m);
        CHECK(m.bytes() == packed_bytes(a, l, p));
        check_spmv(a, m, x, 1.5, 0.0);
        check_spmv(a, m, x, -0.5, 2.0);
        // stored_row_order is the packed order
        const auto order = stored_row_order(a, l);
        CHECK(order == m.row_perm);
        // new values, same pattern: the product follows them
        const HostMatrix b = with_entry_type(a, a.entry, 77);
        repack_values(m, b);
        check_spmv(b, m, x, 1.0, 0.0);
      }
    // sorting cuts padding where lengths vary: sell32s256 stores fewer positions than sell32
    const PackedMatrix plain = pack(a, Layout::parse("sell32-aos-aos"), Precision::f64);
    const PackedMatrix sorted = pack(a, Layout::parse("sell32s256-aos-aos"), Precision::f64);
    CHECK(sorted.stored_entries < plain.stored_entries);
  }
  // a pattern that differs is refused and leaves the packed matrix as it was
  const HostMatrix a = random_matrix(entry("real"), o);
  RandomMatrixOptions o2 = o;
  o2.seed = 9;
  PackedMatrix m = pack(a, Layout::parse("sell32s64-aos-aos"), Precision::f64);
  const PackedMatrix before = m;
  CHECK_THROWS_AS(repack_values(m, random_matrix(entry("real"), o2)), InvalidArgument);
  CHECK(m.layout == before.layout);
  CHECK(m.values == before.values);
  // the identity order for every other layout
  const auto identity = stored_row_order(a, Layout::parse("sell32-aos-aos"));
  REQUIRE(identity.size() == static_cast<size_t>(a.rows));
  for (int32_t r = 0; r < a.rows; ++r) CHECK(identity[r] == r);
}

TEST_CASE("packing: byte counts computed by hand") {
  const EntryType& real = entry("real");
  // 5 x 4, row lengths 2, 0, 3, 1, 0: nnz 6, longest row 3
  const HostMatrix a = from_rows(real, 4, {{0, 2}, {}, {1, 2, 3}, {3}, {}});
  struct Case {
    const char* layout;
    Precision p;
    int64_t bytes;
    int64_t stored;
  };
  const Case cases[] = {
      {"csr-aos-aos", Precision::f64, 6 * 4 + 6 * 4 + 6 * 8, 6},  // row_ptr, col_idx, values
      {"csr-soa-aos", Precision::f64, 6 * 4 + 6 * 4 + 8 * 8, 6},  // soa: value_stride 8
      {"csr-aos-aos", Precision::f32, 6 * 4 + 6 * 4 + 6 * 4, 6},
      // ell: 32 padded rows x width 3 = 96 positions; slice_ptr 2, row_len 32
      {"ell-aos-aos", Precision::f64, 2 * 4 + 32 * 4 + 96 * 4 + 96 * 8, 96},
      {"ell-soa-soa", Precision::f32, 2 * 4 + 32 * 4 + 96 * 4 + 96 * 4, 96},
      // sell16: one slice of 16 rows x 3 = 48 positions
      {"sell16-aos-aos", Precision::f64, 2 * 4 + 16 * 4 + 48 * 4 + 48 * 8, 48},
      {"sell16-soa-aos", Precision::f32, 2 * 4 + 16 * 4 + 48 * 4 + 48 * 4, 48},
      {"sell32-aos-soa", Precision::f64, 2 * 4 + 32 * 4 + 96 * 4 + 96 * 8, 96},
  };
  for (const auto& c : cases) {
    CAPTURE(c.layout);
    const Layout l = Layout::parse(c.layout);
    CHECK(packed_bytes(a, l, c.p) == c.bytes);
    const PackedMatrix m = pack(a, l, c.p);
    CHECK(m.bytes() == c.bytes);
    CHECK(m.stored_entries == c.stored);
    CHECK(m.padding_entries() == c.stored - 6);
  }
  // quaternion f32 csr-soa: 4 component arrays of stride 8
  const HostMatrix q = from_rows(entry("quaternion"), 4, {{0, 2}, {}, {1, 2, 3}, {3}, {}});
  CHECK(packed_bytes(q, Layout::parse("csr-soa-aos"), Precision::f32) == 6 * 4 + 6 * 4 + 4 * 8 * 4);
  CHECK(pack(q, Layout::parse("csr-soa-aos"), Precision::f32).bytes() == 6 * 4 + 6 * 4 + 4 * 8 * 4);

  // sell16 with two slices of different widths: 20 rows, row 0 has 1 entry, row 17 has 5.
  std::vector<std::vector<int32_t>> rows(20);
  rows[0] = {4};
  rows[17] = {0, 1, 2, 3, 4};
  const HostMatrix b = from_rows(real, 5, rows);
  const PackedMatrix m = pack(b, Layout::parse("sell16-aos-aos"), Precision::f64);
  CHECK(m.rows_padded == 32);
  CHECK(m.num_slices == 2);
  CHECK(m.slice_ptr == std::vector<int32_t>{0, 16, 96});
  CHECK(m.col_idx[16 + 2 * 16 + 1] == 2);  // row 17, element 2
  CHECK(m.col_idx[0] == 4);                // row 0, element 0
  CHECK(m.bytes() == 3 * 4 + 32 * 4 + 96 * 4 + 96 * 8);
  const PackedMatrix e = pack(b, Layout::parse("ell-aos-aos"), Precision::f64);
  CHECK(e.rows_padded == 32);
  CHECK(e.stored_entries == 5 * 32);
  CHECK(e.col_idx[2 * 32 + 17] == 2);
}

TEST_CASE("packing: padding is NaN and never read; a NaN in x at an unused column does not spread") {
  for (const auto& name : {"real", "quaternion", "block3"}) {
    const EntryType& e = entry(name);
    const int V = e.num_vector_components();
    // Column 0 is used by no row, and padding points at column 0: reading padding would bring in x[0].
    const HostMatrix a = from_rows(e, 6, {{1, 2, 3, 4, 5}, {}, {2}, {1, 5}, {3, 4}, {}, {}, {5}, {2, 3}});
    std::vector<double> x = random_vector(a.cols, V, 5);
    for (int i = 0; i < V; ++i) x[i] = std::numeric_limits<double>::quiet_NaN();
    const auto ref = reference_spmv(a, x);
    for (double v : ref) REQUIRE(std::isfinite(v));
    for (const Layout& l : all_layouts())
      for (Precision p : kPrecisions) {
        const PackedMatrix m = pack(a, l, p);
        if (!l.uses_row_ptr()) REQUIRE(m.padding_entries() > 0);
        check_contract(a, m);  // padding NaN, column 0
        check_spmv(a, m, x, 1.0, 0.0);
        check_spmv(a, m, x, 1.0, 2.0);
      }
  }
}

TEST_CASE("packing: a kernel that multiplies padding is caught") {
  // Simulate a broken kernel: treat every stored position as a real entry. Its result must be NaN.
  const EntryType& e = entry("complex");
  const HostMatrix a = from_rows(e, 3, {{0, 1, 2}, {1}, {}});
  const PackedMatrix m = pack(a, Layout::parse("ell-aos-aos"), Precision::f64);
  PackedMatrix broken = m;
  for (int32_t r = 0; r < a.rows; ++r) broken.row_len[r] = 3;
  const auto x = random_vector(a.cols, 2, 1);
  auto yp = pack_vector(std::vector<double>(a.rows * 2, 0.0), 2, VectorLayout::aos, Precision::f64);
  spmv_packed_cpu(broken, e, pack_vector(x, 2, VectorLayout::aos, Precision::f64), yp, 1.0, 0.0);
  const auto y = unpack_vector(yp, a.rows, 2, VectorLayout::aos, Precision::f64);
  const auto r = verify_result(y, reference_spmv(a, x), reference_abs_scale(a, x), 1e-12, 2);
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad == 2);  // row 1, component 0
}

TEST_CASE("packing: 32-bit limits are enforced before allocating") {
  const EntryType& real = entry("real");
  // ELL of 30016 padded rows x one row of 100000 entries = 3,001,600,000 positions > 2^31 - 1.
  RandomMatrixOptions o;
  o.rows = 30000, o.cols = 100000, o.mean_row = 1, o.long_row = 100000, o.seed = 2;
  const HostMatrix a = random_matrix(real, o);
  const Layout ell = Layout::parse("ell-aos-aos");
  CHECK(packed_bytes(a, ell, Precision::f64) == 2 * 4 + 30016LL * 4 + 3001600000LL * (4 + 8));
  CHECK_THROWS_WITH_AS(pack(a, ell, Precision::f64), doctest::Contains("3001600000"), InvalidArgument);
  CHECK_THROWS_WITH_AS(pack(a, ell, Precision::f32), doctest::Contains("2147483647"), InvalidArgument);
  // The same matrix in csr or sell is small.
  const PackedMatrix c = pack(a, Layout::parse("csr-aos-aos"), Precision::f32);
  CHECK(c.stored_entries == a.nnz());
  const PackedMatrix s = pack(a, Layout::parse("sell16-soa-aos"), Precision::f32);
  CHECK(s.stored_entries < 2 * a.nnz() + 100000 * 16);
}

TEST_CASE("packing: broken matrices are rejected") {
  const EntryType& real = entry("real");
  HostMatrix a = from_rows(real, 3, {{0, 1}, {2}});
  HostMatrix bad_col = a;
  bad_col.col_idx[2] = 3;
  CHECK_THROWS_WITH_AS(pack(bad_col, Layout::parse("sell32-aos-aos"), Precision::f64), doctest::Contains("column 3"),
                       InvalidArgument);
  HostMatrix bad_size = a;
  bad_size.values.pop_back();
  CHECK_THROWS_AS(pack(bad_size, Layout::parse("csr-aos-aos"), Precision::f64), InvalidArgument);
  CHECK_THROWS_AS(packed_bytes(bad_size, Layout::parse("csr-aos-aos"), Precision::f64), InvalidArgument);
  Layout odd = Layout::parse("sell16-aos-aos");
  odd.slice = 0;
  CHECK_THROWS_AS(packed_bytes(a, odd, Precision::f64), InvalidArgument);
  CHECK_THROWS_AS(pack(a, odd, Precision::f64), InvalidArgument);
  // spmv with vectors of the wrong size or entry type
  const PackedMatrix m = pack(a, Layout::parse("csr-aos-aos"), Precision::f64);
  std::vector<unsigned char> y(2 * 8), x_short(2 * 8);
  CHECK_THROWS_AS(spmv_packed_cpu(m, real, x_short, y, 1, 0), InvalidArgument);
  std::vector<unsigned char> x(3 * 8);
  CHECK_THROWS_AS(spmv_packed_cpu(m, entry("complex"), x, y, 1, 0), InvalidArgument);
  CHECK_NOTHROW(spmv_packed_cpu(m, real, x, y, 1, 0));
}

TEST_CASE("packing: repack_values refreshes values and rejects another pattern") {
  for (const auto& name : {"real", "complex", "block3", "dual_quaternion"}) {
    const EntryType& e = entry(name);
    RandomMatrixOptions o;
    o.rows = 45, o.cols = 40, o.mean_row = 3, o.empty_fraction = 0.1, o.long_row = 30, o.seed = 8;
    const HostMatrix a = random_matrix(e, o);
    const HostMatrix b = with_entry_type(a, e, 77);
    const auto x = random_vector(a.cols, a.vector_components(), 3);
    for (const Layout& l : all_layouts())
      for (Precision p : kPrecisions) {
        PackedMatrix m = pack(a, l, p);
        repack_values(m, b);
        const PackedMatrix fresh = pack(b, l, p);
        CHECK(m.values == fresh.values);  // padding NaN bytes identical too
        CHECK(m.col_idx == fresh.col_idx);
        check_spmv(b, m, x, 1.0, 0.0);
        // another pattern: rejected, and the packed matrix is left as it was
        o.seed = 9;
        const HostMatrix other = random_matrix(e, o);
        const auto before = m.values;
        CHECK_THROWS_AS(repack_values(m, other), InvalidArgument);
        CHECK(m.values == before);
        HostMatrix moved = b;  // same row lengths, one column moved left (stays sorted and unique)
        int32_t r0 = 0;
        while (moved.row_ptr[r0 + 1] == moved.row_ptr[r0] || moved.col_idx[moved.row_ptr[r0]] == 0) ++r0;
        --moved.col_idx[moved.row_ptr[r0]];
        REQUIRE_NOTHROW(moved.validate());
        CHECK_THROWS_AS(repack_values(m, moved), InvalidArgument);
        CHECK(m.values == before);
        CHECK_THROWS_AS(repack_values(m, with_entry_type(a, entry(name == std::string("real") ? "complex" : "real"), 1)),
                        InvalidArgument);
      }
  }
}

TEST_CASE("packing: vectors round-trip through aos and soa in both precisions") {
  for (int V : {1, 2, 3, 4, 8}) {
    for (int64_t n : {0, 1, 31, 32, 33, 100}) {
      const auto v = random_vector(n, V, 17);
      for (VectorLayout l : {VectorLayout::aos, VectorLayout::soa})
        for (Precision p : kPrecisions) {
          const auto packed = pack_vector(v, V, l, p);
          CHECK(static_cast<int64_t>(packed.size()) == packed_vector_bytes(n, V, l, p));
          CHECK(packed_vector_bytes(n, V, l, p) ==
                (l == VectorLayout::soa ? vector_stride(n) : n) * V * scalar_bytes(p));
          const auto back = unpack_vector(packed, n, V, l, p);
          REQUIRE(back.size() == v.size());
          for (size_t i = 0; i < v.size(); ++i) CHECK(back[i] == rounded(v[i], p));
        }
    }
  }
  // soa layout by hand: component i of element j at i * stride + j; padding NaN
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};  // 3 elements of 2 components
  const auto packed = pack_vector(v, 2, VectorLayout::soa, Precision::f64);
  REQUIRE(packed.size() == 2 * 32 * 8);
  const double* d = reinterpret_cast<const double*>(packed.data());
  CHECK(d[0] == 1);
  CHECK(d[1] == 3);
  CHECK(d[2] == 5);
  CHECK(d[32] == 2);
  CHECK(d[34] == 6);
  CHECK(std::isnan(d[3]));
  CHECK(std::isnan(d[63]));
  const auto aos = pack_vector(v, 2, VectorLayout::aos, Precision::f32);
  REQUIRE(aos.size() == 6 * 4);
  CHECK(reinterpret_cast<const float*>(aos.data())[3] == 4.0f);
  CHECK_THROWS_AS(pack_vector({1, 2, 3}, 2, VectorLayout::aos, Precision::f64), InvalidArgument);
  CHECK_THROWS_AS(unpack_vector(packed, 40, 2, VectorLayout::soa, Precision::f64), InvalidArgument);
}

TEST_CASE("packing: random_matrix and with_entry_type") {
  const EntryType& q = entry("quaternion");
  RandomMatrixOptions o;
  o.rows = 2000, o.cols = 1500, o.mean_row = 6, o.empty_fraction = 0.25, o.long_row = 1200, o.seed = 42;
  const HostMatrix a = random_matrix(q, o);
  REQUIRE_NOTHROW(a.validate());
  CHECK(matrix_hash(a) == matrix_hash(random_matrix(q, o)));  // deterministic
  o.seed = 43;
  CHECK(matrix_hash(a) != matrix_hash(random_matrix(q, o)));
  const int32_t lr = o.long_row_index();
  CHECK(a.row_ptr[lr + 1] - a.row_ptr[lr] == 1200);
  int64_t empty = 0, nonempty_entries = 0;
  for (int32_t r = 0; r < a.rows; ++r) {
    const int32_t len = a.row_ptr[r + 1] - a.row_ptr[r];
    if (len == 0) ++empty;
    if (r != lr) nonempty_entries += len;
  }
  CHECK(empty > 400);
  CHECK(empty < 600);
  const double mean = static_cast<double>(nonempty_entries) / (a.rows - empty - 1);
  CHECK(mean > 5.5);
  CHECK(mean < 6.5);
  for (double v : a.values) {
    CHECK(v >= -1.0);
    CHECK(v <= 1.0);
  }
  // band: columns near the diagonal
  RandomMatrixOptions b;
  b.rows = 300, b.cols = 300, b.mean_row = 5, b.band = 4;
  const HostMatrix banded = random_matrix(entry("real"), b);
  REQUIRE_NOTHROW(banded.validate());
  for (int32_t r = 0; r < banded.rows; ++r)
    for (int32_t k = banded.row_ptr[r]; k < banded.row_ptr[r + 1]; ++k) CHECK(std::abs(banded.col_idx[k] - r) <= 4);
  // with_entry_type keeps the pattern
  const HostMatrix c = with_entry_type(a, entry("block3"), 1);
  REQUIRE_NOTHROW(c.validate());
  CHECK(c.row_ptr == a.row_ptr);
  CHECK(c.col_idx == a.col_idx);
  CHECK(c.values.size() == a.col_idx.size() * 9);
  CHECK(random_vector(10, 3, 5) == random_vector(10, 3, 5));
  CHECK(random_vector(10, 3, 5) != random_vector(10, 3, 6));
  CHECK(random_vector(10, 3, 5).size() == 30);
}

TEST_CASE("packing: real matrices from tests/data, every entry type x layout x precision") {
  const std::string dir = JITSPARSE_TEST_DATA;
  // mhd1280b (22k entries) goes through everything; on the larger two the heavy block types (block4..8,
  // up to 64 terms per entry) take three layouts in f64 only, to keep the suite quick.
  const std::vector<std::string> main_types = {"real", "complex", "quaternion", "block2", "block3", "dual_quaternion"};
  const std::vector<Layout> few_layouts = {Layout::parse("csr-aos-aos"), Layout::parse("ell-soa-soa"),
                                           Layout::parse("sell32-soa-aos")};
  for (const char* file : {"/complex/mhd1280b.mtx", "/real/bcsstk13.mtx", "/graph/cage10.mtx"}) {
    CAPTURE(file);
    const std::string path = dir + file;
    const HostMatrix pattern = read_matrix_market(path, std::string(file).find("complex") != std::string::npos
                                                            ? ReadOptions{"complex"}
                                                            : ReadOptions{});
    REQUIRE(pattern.nnz() > 1000);
    for (const auto& name : entry_names()) {
      const HostMatrix a = with_entry_type(pattern, entry(name), 21);
      const auto x = random_vector(a.cols, a.vector_components(), 22);
      const auto ref = reference_spmv(a, x);
      const auto scale = reference_abs_scale(a, x);
      const bool everything = std::string(file).find("mhd1280b") != std::string::npos ||
                              std::find(main_types.begin(), main_types.end(), name) != main_types.end();
      for (const Layout& l : everything ? all_layouts() : few_layouts)
        for (Precision p : kPrecisions) {
          if (!everything && p == Precision::f32) continue;
          const PackedMatrix m = pack(a, l, p);
          CHECK(m.bytes() == packed_bytes(a, l, p));
          check_spmv(a, m, x, 1.0, 0.0, &ref, &scale);
        }
    }
  }
}

TEST_CASE("packing: narrow layouts (-d16) hold 16-bit column offsets from the row: contract, product, bytes, repack") {
  RandomMatrixOptions o;
  o.rows = 70000;  // not square: offsets from the row reach rows - cols plus the band
  o.cols = 60000;
  o.mean_row = 6;
  o.empty_fraction = 0.1;
  o.band = 2000;  // (random_matrix's long row would span every column: none here)
  for (const char* name : {"real", "complex", "block3"}) {
    const HostMatrix a = random_matrix(entry(name), o);
    REQUIRE(narrow_columns_fit(a));
    const auto x = random_vector(a.cols, a.vector_components(), 5);
    for (const char* layout : {"csr-aos-aos-d16", "ell-soa-aos-d16", "sell16-aos-soa-d16", "sell32-soa-soa-d16",
                               "sell32s256-aos-aos-d16", "sell16s64-soa-aos-d16"})
      for (Precision p : kPrecisions) {
        const Layout l = Layout::parse(layout);
        REQUIRE(l.narrow);
        PackedMatrix m = pack(a, l, p);
        CHECK(m.col_idx.empty());
        REQUIRE(static_cast<int64_t>(m.col_delta.size()) == m.stored_entries);
        CHECK(m.bytes() == packed_bytes(a, l, p));
        Layout wide = l;
        wide.narrow = false;
        CHECK(m.bytes() == packed_bytes(a, wide, p) - 2 * m.stored_entries);  // 2 bytes per position less
        // the contract restated: element k of stored row r is column (matrix row of r) + col_delta
        for (int64_t r = 0; r < m.rows; ++r) {
          const int64_t row = m.row_perm.empty() ? r : m.row_perm[r];
          const int64_t len = a.row_ptr[row + 1] - a.row_ptr[row];
          for (int64_t k = 0; k < len; ++k)
            if (a.col_idx[a.row_ptr[row] + k] != row + m.col_delta[contract_position(m, r, k)]) {
              FAIL_CHECK(layout << ": row " << row << " element " << k);
              r = m.rows;
              break;
            }
        }
        check_spmv(a, m, x, 1.5, 0.0);
        check_spmv(a, m, x, -0.5, 2.0);
        const HostMatrix b = with_entry_type(a, a.entry, 77);
        repack_values(m, b);
        check_spmv(b, m, x, 1.0, 0.0);
      }
  }
  // Names: a fourth part -d16, for csr, ell and sell only.
  for (const char* name : {"csr-aos-aos-d16", "sell32s256-soa-aos-d16", "ell-aos-soa-d16"})
    CHECK(Layout::parse(name).name() == name);
  CHECK_FALSE(Layout::parse("csr-aos-aos").narrow);
  CHECK(Layout::parse("csr-aos-aos") != Layout::parse("csr-aos-aos-d16"));
  CHECK_FALSE(Layout::parse("csr-aos-aos").same_matrix_arrays(Layout::parse("csr-aos-soa-d16")));
  for (const char* bad : {"hola-aos-aos-d16", "hisparse64c2-aos-aos-d16", "csr-aos-aos-d8", "csr-aos-aos-d16-x"})
    CHECK_THROWS_AS(Layout::parse(bad), InvalidArgument);
  // A column 32768 away from its row does not fit; 32767 does.
  const EntryType& real = entry("real");
  const HostMatrix fits = from_rows(real, 40000, std::vector<std::vector<int32_t>>({{0, 32767}, {1}, {2, 32769}}));
  CHECK(narrow_columns_fit(fits));
  const HostMatrix far = from_rows(real, 40000, {{0, 32768}, {1}});
  CHECK_FALSE(narrow_columns_fit(far));
  // The check reads each row's first and last column (sorted): too far below the row, then inside both
  // bounds with entries between.
  std::vector<std::vector<int32_t>> rows(32780);
  rows[32779] = {10, 20, 32779};  // 32769 below the row
  CHECK_FALSE(narrow_columns_fit(from_rows(real, 40000, rows)));
  rows[32779] = {12, 20, 32779, 39999};  // 32767 below, 7220 above: fits
  CHECK(narrow_columns_fit(from_rows(real, 40000, rows)));
  // Past 2^18 rows the check is split over threads: a far column in any share is found.
  std::vector<std::vector<int32_t>> many(300000);
  for (int32_t r = 0; r < 300000; ++r) many[r] = {r};
  CHECK(narrow_columns_fit(from_rows(real, 300000, many)));
  for (int32_t far_row : {5, 150001, 299999}) {
    CAPTURE(far_row);
    std::vector<std::vector<int32_t>> one_far = many;
    one_far[far_row] = {far_row > 40000 ? far_row - 40000 : far_row + 40000};
    CHECK_FALSE(narrow_columns_fit(from_rows(real, 300000, one_far)));
  }
  CHECK_THROWS_WITH_AS(pack(far, Layout::parse("sell32-aos-aos-d16"), Precision::f64),
                       doctest::Contains("-d16"), InvalidArgument);
  CHECK_NOTHROW(pack(far, Layout::parse("sell32-aos-aos"), Precision::f64));
  for (const char* layout : {"csr-aos-aos-d16", "ell-aos-aos-d16", "sell32s64-aos-aos-d16"}) {
    const PackedMatrix m = pack(fits, Layout::parse(layout), Precision::f64);
    check_spmv(fits, m, random_vector(fits.cols, 1, 3), 1.0, 0.0);
  }
}

// Where a tune's packing time goes (host work, the same on any machine). Run by hand:
//   jitsparse_cpu_tests -tc="*packing timing*" --no-skip
TEST_CASE("packing: timing of the main set's layouts" * doctest::skip()) {
  for (const char* name : {"laplacian_large", "graph_irregular"}) {
    const HostMatrix a = builtin_matrix(name).matrix;
    double total = 0;
    for (const Layout& l : all_layouts()) {
      if (l.outer == OuterLayout::ell && std::string(name) == "graph_irregular") continue;  // over 2^31 positions
      const auto t0 = std::chrono::steady_clock::now();
      const PackedMatrix p = pack(a, l, Precision::f64);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total += s;
      MESSAGE(std::string(name) << " " << l.name() << ": " << s << " s, " << p.stored_entries << " positions");
    }
    MESSAGE(std::string(name) << ": " << total << " s in all");
  }
}
