// Packing the master CSR copy into the device layouts of core/layout.hpp, and a CPU SpMV that reads the
// packed arrays exactly as a kernel does (the proof that packing and the layout contract agree).
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/hisparse_pack.hpp"
#include "core/layout.hpp"
#include "core/host_passes.hpp"

namespace jitsparse {
namespace {

constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max();

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// The slice size of a layout's row padding: sell K, ell 32, csr 1 (no padding).
int64_t row_multiple(const Layout& l) {
  switch (l.outer) {
    case OuterLayout::sell: return l.slice;
    case OuterLayout::ell: return 32;
    default: return 1;
  }
}

// Shape of a packed matrix, computed from the row lengths only (shared by packed_bytes and pack).
struct Shape {
  int64_t rows_padded = 0;
  int64_t num_slices = 0;
  int64_t stored = 0;
  int64_t value_stride = 0;
  std::vector<int64_t> slice_ptr;  // sell/ell; only filled when wanted
};

void check_matrix_sizes(const HostMatrix& a) {
  if (a.rows < 0 || a.cols < 0 || static_cast<int64_t>(a.row_ptr.size()) != static_cast<int64_t>(a.rows) + 1 ||
      a.row_ptr.front() != 0 || a.row_ptr.back() != a.nnz() ||
      static_cast<int64_t>(a.values.size()) != a.nnz() * a.components())
    throw InvalidArgument("matrix '" + a.name + "': inconsistent CSR arrays (rows " + std::to_string(a.rows) +
                          ", row_ptr " + std::to_string(a.row_ptr.size()) + ", nnz " + std::to_string(a.nnz()) +
                          ", values " + std::to_string(a.values.size()) + ")");
}

// Row r of the stored matrix is row order[r] of `a` (sorted sell); order empty: the identity.
int64_t stored_row_length(const HostMatrix& a, const std::vector<int32_t>& order, int64_t r) {
  const int64_t src = order.empty() ? r : order[r];
  return src < 0 || src >= a.rows ? 0 : a.row_ptr[src + 1] - a.row_ptr[src];
}

void check_sell(const Layout& l) {
  if (l.outer != OuterLayout::sell) return;
  if (l.slice != 16 && l.slice != 32)
    throw InvalidArgument("sell slice must be 16 or 32, not " + std::to_string(l.slice));
  if (l.sigma != 0 && !valid_sell_sigma(l.slice, l.sigma))
    throw InvalidArgument("sorted sell window sigma " + std::to_string(l.sigma) + " of layout " + l.name() +
                          " must be a power of two from " + std::to_string(l.slice) + " (the slice) to 1048576");
}

Shape compute_shape(const HostMatrix& a, const Layout& l, bool want_slice_ptr, const std::vector<int32_t>& order) {
  check_sell(l);
  Shape s;
  const int64_t rows = a.rows;
  const int64_t K = row_multiple(l);
  s.rows_padded = round_up(rows, K);
  if (l.uses_row_ptr()) {
    s.stored = a.nnz();
  } else if (l.outer == OuterLayout::ell) {
    int64_t width = 0;
    for (int64_t r = 0; r < rows; ++r) width = std::max<int64_t>(width, a.row_ptr[r + 1] - a.row_ptr[r]);
    s.num_slices = 1;
    s.stored = width * s.rows_padded;
    if (want_slice_ptr) s.slice_ptr = {0, s.stored};
  } else {
    s.num_slices = s.rows_padded / K;
    if (want_slice_ptr) s.slice_ptr.assign(s.num_slices + 1, 0);
    for (int64_t sl = 0; sl < s.num_slices; ++sl) {
      int64_t width = 0;
      const int64_t end = std::min(rows, (sl + 1) * K);
      for (int64_t r = sl * K; r < end; ++r) width = std::max<int64_t>(width, stored_row_length(a, order, r));
      s.stored += width * K;
      if (want_slice_ptr) s.slice_ptr[sl + 1] = s.stored;
    }
  }
  s.value_stride = l.inner == InnerLayout::soa ? round_up(s.stored, 4) : s.stored;
  return s;
}

// The rows of `a` in the given stored order (rows past a.rows dropped): what a sorted sell packs.
HostMatrix rows_in_order(const HostMatrix& a, const std::vector<int32_t>& order) {
  HostMatrix b;
  b.entry = a.entry;
  b.name = a.name;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(static_cast<size_t>(a.rows) + 1, 0);
  const int C = a.components();
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
  for (int64_t i = 0; i < a.rows; ++i) {
    const int32_t r = order[i];
    const int64_t from = a.row_ptr[r], len = a.row_ptr[r + 1] - from, to = b.row_ptr[i];
    std::copy_n(a.col_idx.begin() + from, len, b.col_idx.begin() + to);
    std::copy_n(a.values.begin() + from * C, len * C, b.values.begin() + to * C);
    b.row_ptr[i + 1] = static_cast<int32_t>(to + len);
  }
  return b;
}

int64_t shape_bytes(const Shape& s, const Layout& l, int components, Precision p) {
  int64_t index_words = 0;
  if (l.uses_row_ptr())
    index_words += s.rows_padded + 1;  // row_ptr
  else
    index_words += (s.num_slices + 1) + s.rows_padded;  // slice_ptr, row_len
  if (l.sorted()) index_words += s.rows_padded;         // row_perm
  const int64_t column_bytes = s.stored * (l.narrow ? 2 : 4);  // col_delta or col_idx
  return index_words * 4 + column_bytes + s.value_stride * components * scalar_bytes(p);
}

std::string describe(const HostMatrix& a, const Layout& l, Precision p) {
  return "packing matrix '" + a.name + "' (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
         std::to_string(a.nnz()) + " " + a.entry.name + " entries) as " + l.name() + " " + to_string(p);
}

// Where the k-th element of row r lives: base + k * step (csr: step 1; sell: K; ell: rows_padded).
struct RowWalk {
  int64_t base;
  int64_t step;
};

RowWalk row_walk(const PackedMatrix& m, int64_t r) {
  switch (m.layout.outer) {
    case OuterLayout::csr:
    case OuterLayout::hola: return {m.row_ptr[r], 1};
    case OuterLayout::ell: return {r, m.rows_padded};
    default: {
      const int64_t K = m.layout.slice;
      return {m.slice_ptr[r / K] + r % K, K};
    }
  }
}

int64_t row_length(const PackedMatrix& m, int64_t r) {
  return m.layout.uses_row_ptr() ? m.row_ptr[r + 1] - m.row_ptr[r] : m.row_len[r];
}

// The matrix row that stored row r holds: the base of a narrow layout's column offsets.
int64_t matrix_row_of(const PackedMatrix& m, int64_t r) { return m.row_perm.empty() ? r : m.row_perm[r]; }

// The column of position p in stored row r, as a kernel reads it.
int64_t packed_column(const PackedMatrix& m, int64_t p, int64_t r) {
  return m.layout.narrow ? matrix_row_of(m, r) + m.col_delta[p] : m.col_idx[p];
}

// Whether a narrow layout can hold column - row = delta.
bool narrow_offset_fits(int64_t delta) { return delta >= -kNarrowOffsetLimit && delta <= kNarrowOffsetLimit; }

// col_idx -> col_delta (narrow layouts, core/layout.hpp); throws when an offset does not fit.
void narrow_columns(PackedMatrix& m, const std::string& what) {
  m.col_delta.assign(m.col_idx.size(), 0);
  const int64_t stored_rows = m.layout.uses_row_ptr() ? m.rows : m.rows_padded;
  for (int64_t r = 0; r < stored_rows; ++r) {
    const RowWalk w = row_walk(m, r);
    const int64_t len = row_length(m, r), base = matrix_row_of(m, r);
    for (int64_t k = 0; k < len; ++k) {
      const int64_t p = w.base + k * w.step, delta = m.col_idx[p] - base;
      if (!narrow_offset_fits(delta))
        throw InvalidArgument(what + ": column " + std::to_string(m.col_idx[p]) + " of row " + std::to_string(base) +
                              " is more than " + std::to_string(kNarrowOffsetLimit) +
                              " away from the row: a narrow (-d16) layout cannot hold it (renumber the matrix, "
                              "e.g. --reorder rcm, or take the layout without -d16)");
      m.col_delta[p] = static_cast<int16_t>(delta);
    }
  }
  m.col_idx.clear();
  m.col_idx.shrink_to_fit();
}

// Writes the values of the master copy (and NaN into padding when `padding`) at the packed positions.
// Rows are taken in blocks (a slice; 32 rows for ell) and each block element by element, so the writes
// run through memory in order instead of jumping a slice (or the whole ell array) per entry.
template <class T>
void write_values(PackedMatrix& m, const HostMatrix& a, bool padding) {
  T* v = reinterpret_cast<T*>(m.values.data());
  const int C = m.components;
  const bool soa = m.layout.inner == InnerLayout::soa;
  const int64_t vs = m.value_stride;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const double* src = a.values.data();
  if (m.layout.uses_row_ptr()) {
    if (!soa) {
      std::transform(src, src + m.nnz * C, v, [](double d) { return static_cast<T>(d); });
    } else {
      // soa: a chunk of entries at a time, component by component, so each array is written in runs
      for (int64_t k0 = 0; k0 < m.nnz; k0 += 256) {
        const int64_t k1 = std::min<int64_t>(m.nnz, k0 + 256);
        for (int i = 0; i < C; ++i)
          for (int64_t k = k0; k < k1; ++k) v[i * vs + k] = static_cast<T>(src[k * C + i]);
      }
    }
  } else {
    const int64_t B = m.layout.outer == OuterLayout::ell ? 32 : m.layout.slice;
    const int64_t ell_width = m.layout.outer == OuterLayout::ell && m.rows_padded > 0
                                  ? m.stored_entries / m.rows_padded : 0;
    for (int64_t r0 = 0; r0 < m.rows_padded; r0 += B) {
      const int64_t width = m.layout.outer == OuterLayout::ell
                                ? ell_width
                                : (m.slice_ptr[r0 / B + 1] - m.slice_ptr[r0 / B]) / B;
      const RowWalk w0 = row_walk(m, r0);  // rows of a block sit next to each other: base + (r - r0)
      const int32_t* len = m.row_len.data() + r0;
      const int32_t* first = a.row_ptr.data() + std::min<int64_t>(r0, m.rows);  // rows past m.rows have len 0
      for (int64_t k = 0; k < width; ++k) {
        const int64_t p0 = w0.base + k * w0.step;
        if (soa) {
          for (int i = 0; i < C; ++i) {
            T* dst = v + i * vs + p0;
            for (int64_t j = 0; j < B; ++j) {
              if (k < len[j])
                dst[j] = static_cast<T>(src[(static_cast<int64_t>(first[j]) + k) * C + i]);
              else if (padding)
                dst[j] = nan;
            }
          }
        } else {
          T* dst = v + p0 * C;
          for (int64_t j = 0; j < B; ++j, dst += C) {
            if (k < len[j]) {
              const double* e = src + (static_cast<int64_t>(first[j]) + k) * C;
              for (int i = 0; i < C; ++i) dst[i] = static_cast<T>(e[i]);
            } else if (padding) {
              std::fill(dst, dst + C, nan);
            }
          }
        }
      }
    }
  }
  // soa: the tail between stored_entries and value_stride of each component array is padding too.
  if (padding && soa)
    for (int i = 0; i < C; ++i) std::fill(v + i * vs + m.stored_entries, v + (i + 1) * vs, nan);
}

template <class T>
void pack_vector_impl(const std::vector<double>& aos, int64_t n, int V, VectorLayout layout, unsigned char* out) {
  T* v = reinterpret_cast<T*>(out);
  if (layout == VectorLayout::aos) {
    for (int64_t j = 0; j < n * V; ++j) v[j] = static_cast<T>(aos[j]);
    return;
  }
  const int64_t stride = vector_stride(n);
  for (int i = 0; i < V; ++i) {
    for (int64_t j = 0; j < n; ++j) v[i * stride + j] = static_cast<T>(aos[j * V + i]);
    // padding of the soa arrays: never read; NaN so a kernel that does read it fails verification
    std::fill(v + i * stride + n, v + (i + 1) * stride, std::numeric_limits<T>::quiet_NaN());
  }
}

template <class T>
void unpack_vector_impl(const unsigned char* in, int64_t n, int V, VectorLayout layout, std::vector<double>& aos) {
  const T* v = reinterpret_cast<const T*>(in);
  if (layout == VectorLayout::aos) {
    for (int64_t j = 0; j < n * V; ++j) aos[j] = static_cast<double>(v[j]);
    return;
  }
  const int64_t stride = vector_stride(n);
  for (int i = 0; i < V; ++i)
    for (int64_t j = 0; j < n; ++j) aos[j * V + i] = static_cast<double>(v[i * stride + j]);
}

template <class T>
void spmv_impl(const PackedMatrix& m, const EntryType& entry, const std::vector<unsigned char>& xb,
               std::vector<unsigned char>& yb, double alpha, double beta) {
  const T* vals = reinterpret_cast<const T*>(m.values.data());
  const T* x = reinterpret_cast<const T*>(xb.data());
  T* y = reinterpret_cast<T*>(yb.data());
  const int C = m.components, V = m.vector_components;
  const bool soa = m.layout.inner == InnerLayout::soa;
  const bool xsoa = m.layout.vector == VectorLayout::soa;
  const int64_t xs = vector_stride(m.cols), ys = vector_stride(m.rows);
  std::vector<double> a(C), xv(V), acc(V);
  for (int64_t r = 0; r < m.rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    const RowWalk w = row_walk(m, r);
    const int64_t len = row_length(m, r);
    int64_t p = w.base;
    for (int64_t k = 0; k < len; ++k, p += w.step) {
      const int64_t c = packed_column(m, p, r);
      for (int i = 0; i < C; ++i) a[i] = static_cast<double>(soa ? vals[i * m.value_stride + p] : vals[p * C + i]);
      for (int i = 0; i < V; ++i) xv[i] = static_cast<double>(xsoa ? x[i * xs + c] : x[c * V + i]);
      entry.multiply_add(a.data(), xv.data(), acc.data());
    }
    const int64_t yr = m.row_perm.empty() ? r : m.row_perm[r];  // sorted sell: stored row -> matrix row
    for (int i = 0; i < V; ++i) {
      T& out = xsoa ? y[i * ys + yr] : y[yr * V + i];
      // beta == 0: y is write-only (it may hold NaN poison), as in BLAS.
      out = static_cast<T>(beta == 0.0 ? alpha * acc[i] : alpha * acc[i] + beta * static_cast<double>(out));
    }
  }
}

[[noreturn]] void bad_layout(const std::string& text) {
  throw InvalidArgument("unknown layout '" + text +
                        "' (expected outer-inner-vector: outer csr, ell, sell16, sell32, sell<K>s<sigma>, hola or "
                        "hisparse<d>c<X>[r]; "
                        "inner and vector aos or soa, then -d16 for 16-bit column offsets (csr, ell, sell); e.g. csr-aos-aos, "
                        "sell32-soa-aos, ell-aos-aos-d16, hisparse64c2-aos-aos)");
}

}  // namespace

std::string Layout::outer_name() const {
  switch (outer) {
    case OuterLayout::csr: return "csr";
    case OuterLayout::hola: return "hola";
    case OuterLayout::ell: return "ell";
    case OuterLayout::hisparse:
      return "hisparse" + std::to_string(slice) + "c" + std::to_string(coo) + (row_leaves ? "r" : "");
    default: return "sell" + std::to_string(slice) + (sigma > 0 ? "s" + std::to_string(sigma) : "");
  }
}

bool valid_sell_sigma(int slice, int sigma) {
  return sigma >= slice && sigma <= (1 << 20) && (sigma & (sigma - 1)) == 0 && sigma % slice == 0;
}

std::string Layout::name() const {
  return outer_name() + (inner == InnerLayout::aos ? "-aos" : "-soa") + (vector == VectorLayout::aos ? "-aos" : "-soa") +
         (narrow ? "-d16" : "");
}

namespace {

// Whether every entry's |number(column) - number(row)| fits the narrow offsets.
template <class Number>
bool offsets_fit(const HostMatrix& a, Number number) {
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      if (!narrow_offset_fits(number(a.col_idx[k]) - number(r))) return false;
  return true;
}

}  // namespace

bool narrow_columns_fit(const HostMatrix& a) {
  // Columns are sorted within a row (HostMatrix): its first and last bound all its offsets, so a pass over
  // the rows decides (run-time selection checks a narrow pick this way; a pass over the entries took
  // 0.4 ms on a matrix of a million entries). Packing still checks every offset. The pass touches most of
  // the column array's cache lines (rows are shorter than a line or two): 2 ms for 826k rows of 13
  // entries on the 2-core machine, so a large matrix is split over up to four threads.
  auto rows_fit = [&a](int64_t first, int64_t last, const std::atomic<bool>& misfit) {
    constexpr int64_t kCheckEvery = 4096;  // rows between looks at whether another thread found a misfit
    for (int64_t block = first; block < last; block += kCheckEvery) {
      if (misfit.load(std::memory_order_relaxed)) return false;
      for (int64_t r = block; r < std::min(last, block + kCheckEvery); ++r) {
        const int64_t begin = a.row_ptr[r], end = a.row_ptr[r + 1];
        if (begin < end && (!narrow_offset_fits(a.col_idx[begin] - r) || !narrow_offset_fits(a.col_idx[end - 1] - r)))
          return false;
      }
    }
    return true;
  };
  std::atomic<bool> misfit{false};
  for_row_shares(a.rows, row_share_count(a.rows), [&](int, int64_t first, int64_t last) {
    if (!rows_fit(first, last, misfit)) misfit = true;
  });
  return !misfit;
}

bool narrow_columns_fit(const HostMatrix& a, const std::vector<int32_t>& perm) {
  if (static_cast<int64_t>(perm.size()) != a.rows || a.rows != a.cols)
    throw InvalidArgument("narrow_columns_fit: the renumbering has " + std::to_string(perm.size()) +
                          " entries for a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix");
  return offsets_fit(a, [&perm](int64_t i) { return static_cast<int64_t>(perm[i]); });
}

Layout Layout::parse(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto fail = [&text]() { bad_layout(text); };
  // "sell-32-..." is accepted as "sell32-..."
  if (s.rfind("sell-", 0) == 0) s.erase(4, 1);
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dash = s.find('-', start);
    parts.push_back(s.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (parts.size() == 4 && parts[3] != "d16") fail();
  if (parts.size() != 3 && parts.size() != 4) fail();
  Layout l;
  l.narrow = parts.size() == 4;
  if (parts[0] == "csr") {
    l.outer = OuterLayout::csr;
  } else if (parts[0] == "hola") {
    l.outer = OuterLayout::hola;
  } else if (parts[0] == "ell") {
    l.outer = OuterLayout::ell;
  } else if (parts[0].rfind("sell16", 0) == 0 || parts[0].rfind("sell32", 0) == 0) {
    l.outer = OuterLayout::sell;
    l.slice = parts[0][4] == '1' ? 16 : 32;
    if (parts[0].size() > 6) {  // sell<K>s<sigma>
      const std::string w = parts[0].substr(7);
      if (parts[0][6] != 's' || w.empty() || w.size() > 7 || w.find_first_not_of("0123456789") != std::string::npos)
        fail();
      l.sigma = std::stoi(w);
      if (!valid_sell_sigma(l.slice, l.sigma))
        throw InvalidArgument("layout '" + text + "': the window of a sorted sell must be a power of two from " +
                              std::to_string(l.slice) + " to 1048576 (e.g. sell32s256-aos-aos)");
    }
  } else if (parts[0].rfind("hisparse", 0) == 0) {
    l.outer = OuterLayout::hisparse;
    bool known = false;
    for (const Layout& h : hisparse_layouts()) known = known || h.outer_name() == parts[0];
    if (!known)
      throw InvalidArgument("unknown hisparse layout '" + text + "' (expected hisparse<d>c<X>[r]-aos-<aos|soa>, d 16, "
                            "32, 64, 128 or 256, X 1, 2 or 4, r for CSR leaves; e.g. hisparse64c2-aos-aos)");
    const size_t c = parts[0].find('c', 8);
    l.slice = std::stoi(parts[0].substr(8, c - 8));
    l.coo = std::stoi(parts[0].substr(c + 1, 1));
    l.row_leaves = parts[0].back() == 'r';
  } else {
    fail();
  }
  auto side = [&](const std::string& p, bool& is_soa) {
    if (p == "aos") is_soa = false;
    else if (p == "soa") is_soa = true;
    else fail();
  };
  bool inner_soa = false, vector_soa = false;
  side(parts[1], inner_soa);
  side(parts[2], vector_soa);
  l.inner = inner_soa ? InnerLayout::soa : InnerLayout::aos;
  l.vector = vector_soa ? VectorLayout::soa : VectorLayout::aos;
  if (l.outer == OuterLayout::hisparse && inner_soa)
    throw InvalidArgument("layout '" + text + "': hisparse leaves store entries aos (e.g. hisparse64c2-aos-aos)");
  if (l.narrow && !l.can_be_narrow())
    throw InvalidArgument("layout '" + text + "': only csr, ell and sell layouts have a narrow (-d16) form");
  return l;
}

namespace {

// (outer, slice, sigma) x {aos, soa} x {aos, soa}
std::vector<Layout> layouts_of(const std::vector<std::tuple<OuterLayout, int, int>>& outers) {
  std::vector<Layout> out;
  for (const auto& [outer, slice, sigma] : outers)
    for (InnerLayout inner : {InnerLayout::aos, InnerLayout::soa})
      for (VectorLayout vec : {VectorLayout::aos, VectorLayout::soa}) {
        Layout l;
        l.outer = outer;
        l.slice = slice;
        l.sigma = sigma;
        l.inner = inner;
        l.vector = vec;
        out.push_back(l);
      }
  return out;
}

}  // namespace

std::vector<Layout> row_layouts() {
  return layouts_of({{OuterLayout::csr, 0, 0},
                     {OuterLayout::ell, 0, 0},
                     {OuterLayout::sell, 16, 0},
                     {OuterLayout::sell, 32, 0},
                     {OuterLayout::sell, 32, kDefaultSellSigma}});
}

std::vector<Layout> all_layouts() {
  std::vector<Layout> out = row_layouts();
  for (const Layout& l : layouts_of({{OuterLayout::hola, 0, 0}})) out.push_back(l);
  return out;
}

std::vector<Layout> hisparse_layouts() {
  std::vector<Layout> out;
  for (int d : {16, 32, 64, 128, 256})
    for (int x : {1, 2, 4})
      for (VectorLayout vec : {VectorLayout::aos, VectorLayout::soa}) {
        Layout l;
        l.outer = OuterLayout::hisparse;
        l.slice = d;
        l.coo = x;
        l.vector = vec;
        out.push_back(l);
        l.row_leaves = true;
        out.push_back(l);
      }
  return out;
}

int64_t vector_stride(int64_t n) { return round_up(n, 32); }

int64_t PackedMatrix::bytes() const {
  const int64_t words =
      static_cast<int64_t>(row_ptr.size() + slice_ptr.size() + row_len.size() + row_perm.size() + col_idx.size());
  return words * 4 + static_cast<int64_t>(col_delta.size()) * 2 + static_cast<int64_t>(values.size()) + static_cast<int64_t>(pool.size()) + hi[0].bytes() +
         hi[1].bytes();
}

int64_t packed_bytes(const HostMatrix& a, const Layout& layout, Precision precision) {
  check_matrix_sizes(a);
  if (layout.outer == OuterLayout::hisparse) return hisparse_bytes_estimate(a, layout, precision);
  const std::vector<int32_t> order = layout.sorted() ? stored_row_order(a, layout) : std::vector<int32_t>{};
  return shape_bytes(compute_shape(a, layout, false, order), layout, a.components(), precision);
}

std::vector<int32_t> stored_row_order(const HostMatrix& a, const Layout& layout) {
  check_sell(layout);
  std::vector<int32_t> order(a.rows);
  for (int32_t r = 0; r < a.rows; ++r) order[r] = r;
  if (!layout.sorted()) return order;
  const int64_t sigma = layout.sigma;
  for (int64_t w = 0; w < a.rows; w += sigma)
    std::stable_sort(order.begin() + w, order.begin() + std::min<int64_t>(a.rows, w + sigma),
                     [&a](int32_t x, int32_t y) {
                       return a.row_ptr[x + 1] - a.row_ptr[x] > a.row_ptr[y + 1] - a.row_ptr[y];
                     });
  order.resize(round_up(a.rows, layout.slice), -1);
  return order;
}

PackedMatrix pack(const HostMatrix& a, const Layout& layout, Precision precision) {
  check_matrix_sizes(a);
  if (layout.outer == OuterLayout::hisparse) return pack_hisparse(a, layout, precision);
  if (layout.sorted()) {  // sell-K of the rows in sorted order, and where each stored row's y goes
    std::vector<int32_t> order = stored_row_order(a, layout);
    Layout unsorted = layout;
    unsorted.sigma = 0;
    unsorted.narrow = false;  // the offsets are from the matrix rows, known only through row_perm
    PackedMatrix m = pack(rows_in_order(a, order), unsorted, precision);
    m.layout = layout;
    m.row_perm = std::move(order);
    if (layout.narrow) narrow_columns(m, describe(a, layout, precision));
    return m;
  }
  const int C = a.components();
  const Shape s = compute_shape(a, layout, true, {});
  // Kernels index positions (row_ptr, slice_ptr, begin + k * stride) and rows with 32-bit ints, so both
  // must fit or a kernel would silently wrap. Value and vector indices are 64-bit in the kernels
  // (pos * C and i * value_stride + pos are long long; templates/jitsparse/layouts.cuh), so no limit there.
  if (s.rows_padded > kIndexLimit)
    throw InvalidArgument(describe(a, layout, precision) + ": " + std::to_string(s.rows_padded) +
                          " padded rows exceed the 32-bit index limit " + std::to_string(kIndexLimit));
  if (s.stored > kIndexLimit)
    throw InvalidArgument(describe(a, layout, precision) + ": " + std::to_string(s.stored) + " stored positions (" +
                          std::to_string(s.stored - a.nnz()) +
                          " of them padding) exceed the 32-bit index limit " + std::to_string(kIndexLimit));

  PackedMatrix m;
  m.layout = layout;
  m.precision = precision;
  m.components = C;
  m.vector_components = a.vector_components();
  m.rows = a.rows;
  m.cols = a.cols;
  m.rows_padded = static_cast<int32_t>(s.rows_padded);
  m.num_slices = static_cast<int32_t>(s.num_slices);
  m.stored_entries = s.stored;
  m.value_stride = s.value_stride;
  m.nnz = a.nnz();
  if (layout.uses_row_ptr()) {
    m.row_ptr = a.row_ptr;
  } else {
    m.slice_ptr.assign(s.slice_ptr.begin(), s.slice_ptr.end());
    m.row_len.assign(s.rows_padded, 0);
    for (int64_t r = 0; r < a.rows; ++r) m.row_len[r] = a.row_ptr[r + 1] - a.row_ptr[r];
  }
  m.col_idx.assign(s.stored, 0);  // padding columns are 0
  m.values.resize(static_cast<size_t>(s.value_stride) * C * scalar_bytes(precision));

  // Columns (a column outside the matrix is an error here, not a GPU fault), in the blocked order of
  // write_values for the same reason.
  const int64_t B = layout.uses_row_ptr() ? 1 : layout.outer == OuterLayout::ell ? 32 : layout.slice;
  for (int64_t r0 = 0; r0 < a.rows; r0 += B) {
    const int64_t r1 = std::min<int64_t>(a.rows, r0 + B);
    int64_t width = 0;
    for (int64_t r = r0; r < r1; ++r) width = std::max<int64_t>(width, a.row_ptr[r + 1] - a.row_ptr[r]);
    const RowWalk w0 = row_walk(m, r0);
    for (int64_t k = 0; k < width; ++k)
      for (int64_t r = r0; r < r1; ++r) {
        if (k >= a.row_ptr[r + 1] - a.row_ptr[r]) continue;
        const int32_t c = a.col_idx[a.row_ptr[r] + k];
        if (c < 0 || c >= a.cols)
          throw InvalidArgument(describe(a, layout, precision) + ": column " + std::to_string(c) + " of row " +
                                std::to_string(r) + " is outside 0.." + std::to_string(a.cols - 1));
        m.col_idx[w0.base + k * w0.step + (r - r0)] = c;
      }
  }
  if (precision == Precision::f32)
    write_values<float>(m, a, true);
  else
    write_values<double>(m, a, true);
  if (layout.narrow) narrow_columns(m, describe(a, layout, precision));
  return m;
}

namespace {

// repack_values on the stored rows: `a` holds them in the packed order.
void repack_stored_rows(PackedMatrix& m, const HostMatrix& a) {
  auto mismatch = [&](const std::string& what) {
    throw InvalidArgument("repack_values: matrix '" + a.name + "' does not match the packed pattern (" + what + ")");
  };
  if (a.rows != m.rows || a.cols != m.cols || a.nnz() != m.nnz)
    mismatch("size " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " with " +
             std::to_string(a.nnz()) + " entries against " + std::to_string(m.rows) + " x " +
             std::to_string(m.cols) + " with " + std::to_string(m.nnz));
  if (a.components() != m.components || a.vector_components() != m.vector_components)
    mismatch("entry type " + a.entry.name + " has " + std::to_string(a.components()) + " components, packed " +
             std::to_string(m.components));
  // Check the whole pattern before writing, so a mismatch leaves the packed matrix untouched.
  for (int64_t r = 0; r < a.rows; ++r) {
    const int64_t len = a.row_ptr[r + 1] - a.row_ptr[r];
    if (len != row_length(m, r)) mismatch("length of row " + std::to_string(r));
    const RowWalk w = row_walk(m, r);
    int64_t p = w.base;
    for (int64_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k, p += w.step)
      if (packed_column(m, p, r) != a.col_idx[k]) mismatch("columns of row " + std::to_string(r));
  }
  if (m.precision == Precision::f32)
    write_values<float>(m, a, false);
  else
    write_values<double>(m, a, false);
}

}  // namespace

void repack_values(PackedMatrix& m, const HostMatrix& a) {
  check_matrix_sizes(a);
  if (m.layout.outer == OuterLayout::hisparse) return repack_hisparse_values(m, a);
  if (m.layout.sorted()) {  // the packed arrays are sell-K of the rows in row_perm's order
    if (a.rows != m.rows || static_cast<int64_t>(m.row_perm.size()) != m.rows_padded)
      throw InvalidArgument("repack_values: matrix '" + a.name + "' does not match the packed pattern (" +
                            std::to_string(a.rows) + " rows, packed " + std::to_string(m.rows) + ")");
    const std::vector<int32_t> order(m.row_perm.begin(), m.row_perm.begin() + m.rows);
    return repack_stored_rows(m, rows_in_order(a, order));
  }
  repack_stored_rows(m, a);
}


int64_t packed_vector_bytes(int64_t n, int vector_components, VectorLayout layout, Precision precision) {
  const int64_t len = layout == VectorLayout::soa ? vector_stride(n) : n;
  return len * vector_components * scalar_bytes(precision);
}

std::vector<unsigned char> pack_vector(const std::vector<double>& aos, int vector_components, VectorLayout layout,
                                       Precision precision) {
  if (vector_components <= 0 || aos.size() % vector_components != 0)
    throw InvalidArgument("pack_vector: " + std::to_string(aos.size()) + " values are not a whole number of " +
                          std::to_string(vector_components) + "-component elements");
  const int64_t n = static_cast<int64_t>(aos.size()) / vector_components;
  std::vector<unsigned char> out(packed_vector_bytes(n, vector_components, layout, precision));
  if (precision == Precision::f32)
    pack_vector_impl<float>(aos, n, vector_components, layout, out.data());
  else
    pack_vector_impl<double>(aos, n, vector_components, layout, out.data());
  return out;
}

std::vector<double> unpack_vector(const std::vector<unsigned char>& packed, int64_t n, int vector_components,
                                  VectorLayout layout, Precision precision) {
  const int64_t want = packed_vector_bytes(n, vector_components, layout, precision);
  if (n < 0 || vector_components <= 0 || static_cast<int64_t>(packed.size()) != want)
    throw InvalidArgument("unpack_vector: " + std::to_string(packed.size()) + " bytes, expected " +
                          std::to_string(want) + " for " + std::to_string(n) + " elements of " +
                          std::to_string(vector_components) + " components");
  std::vector<double> aos(static_cast<size_t>(n) * vector_components);
  if (precision == Precision::f32)
    unpack_vector_impl<float>(packed.data(), n, vector_components, layout, aos);
  else
    unpack_vector_impl<double>(packed.data(), n, vector_components, layout, aos);
  return aos;
}

void spmv_packed_cpu(const PackedMatrix& a, const EntryType& entry, const std::vector<unsigned char>& x,
                     std::vector<unsigned char>& y, double alpha, double beta) {
  if (a.layout.outer == OuterLayout::hisparse) return spmv_hisparse_packed_cpu(a, entry, Op::n, x, y, alpha, beta);
  if (entry.num_components() != a.components || entry.num_vector_components() != a.vector_components)
    throw InvalidArgument("spmv_packed_cpu: entry type " + entry.name + " does not match the packed matrix (" +
                          std::to_string(a.components) + " components)");
  const int64_t xb = packed_vector_bytes(a.cols, a.vector_components, a.layout.vector, a.precision);
  const int64_t yb = packed_vector_bytes(a.rows, a.vector_components, a.layout.vector, a.precision);
  if (static_cast<int64_t>(x.size()) != xb || static_cast<int64_t>(y.size()) != yb)
    throw InvalidArgument("spmv_packed_cpu: x has " + std::to_string(x.size()) + " bytes (expected " +
                          std::to_string(xb) + "), y has " + std::to_string(y.size()) + " (expected " +
                          std::to_string(yb) + ")");
  if (a.precision == Precision::f32)
    spmv_impl<float>(a, entry, x, y, alpha, beta);
  else
    spmv_impl<double>(a, entry, x, y, alpha, beta);
}

}  // namespace jitsparse
